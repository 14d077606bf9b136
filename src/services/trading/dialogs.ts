/** What a dialog names besides its question: a title, the lines of what will happen, the button. */
export interface DialogDetails {
  title?: string;
  /** What the action touches, one line each (the position and its PnL, the key and its environment). */
  details?: readonly string[];
  /** The label of the button that says yes ("Close position"); "OK" by default. */
  confirmLabel?: string;
  /**
   * Enter answers yes (the button has focus first): for a question the person has just asked for in
   * a gesture of its own (a line dragged on the chart), where Cancel first would only be in the way.
   */
  enterConfirms?: boolean;
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
