/** The browser's confirm and alert, injected so the core and its tests never touch `window`. */
export interface Dialogs {
  confirm(message: string): boolean | Promise<boolean>;
  alert(message: string): void;
}
