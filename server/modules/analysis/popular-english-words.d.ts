declare module 'popular-english-words/words.js' {
  /** English words, most common first. */
  export const words: string[];
}
