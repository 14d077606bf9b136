/** Types for `vader-sentiment` (a dev dependency, used only as the evaluation baseline). */
declare module 'vader-sentiment' {
  export const SentimentIntensityAnalyzer: {
    polarity_scores(text: string): { neg: number; neu: number; pos: number; compound: number };
  };
}
