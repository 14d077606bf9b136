/** Something a running command asks the person at the terminal (a password, a 2FA code). */
export interface Question {
  /** Shown where the prompt was, e.g. `Password: `. */
  label: string;
  /** Typed characters are not echoed and the answer is never recorded. */
  secret: boolean;
}
