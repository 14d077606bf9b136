/** What a dialog names besides its question: a title, the lines of what will happen, the button. */
export interface DialogDetails {
  title?: string;
  /** What the action touches, one line each (the position and its PnL, the key and its environment). */
  details?: readonly string[];
  /** The label of the button that says yes ("Close position"); "OK" by default. */
  confirmLabel?: string;
}

/**
 * Confirm and alert, injected so the core and its tests never touch `window`. The app answers them
 * with its own dialog (see `services/confirmations.ts`); the question's text is the spec's, word for
 * word, and the details say what it will act on.
 */
export interface Dialogs {
  confirm(message: string, more?: DialogDetails): boolean | Promise<boolean>;
  alert(message: string, more?: DialogDetails): void;
}
