/**
 * Where focus should be when the page behind it is rebuilt: a resize that swaps the wide tiles for the
 * phone layout (or back) replaces the header's buttons and the panes, and the element that had focus
 * goes with them. Focus then moves to the control that took its place, found by what it says it is.
 */

/** What an element says it is: its tag and accessible label (aria-label, or its text). */
function identity(el: HTMLElement): { tag: string; label: string } {
  return { tag: el.tagName, label: (el.getAttribute('aria-label') ?? el.textContent ?? '').trim() };
}

/** The visible control that now stands where `gone` stood (same tag, same label), outside `except`. */
export function standIn(gone: HTMLElement, except?: HTMLElement): HTMLElement | null {
  const was = identity(gone);
  if (was.label === '') return null;
  for (const el of document.querySelectorAll<HTMLElement>(was.tag)) {
    if (except?.contains(el) === true || el.getClientRects().length === 0) continue;
    if (identity(el).label === was.label) return el;
  }
  return null;
}

/** The element that last had focus. */
let lastFocused: HTMLElement | null = null;
/**
 * Where focus was meant to go but could not, because the control was not on screen (a dialog closed
 * while the phone layout hid its opener): it goes there once a rebuild shows it, unless focus moved on.
 */
let wanted: HTMLElement | null = null;

if (typeof document !== 'undefined') {
  document.addEventListener('focusin', (event) => {
    if (!(event.target instanceof HTMLElement)) return;
    lastFocused = event.target;
    wanted = null;
  });
}

export function lastFocusedElement(): HTMLElement | null {
  return lastFocused;
}

/** True when nothing has focus: the page's body holds it. */
export function focusDropped(): boolean {
  return document.activeElement === null || document.activeElement === document.body;
}

/** Remembers that focus belongs on `target` (or the control that replaces it) once it is on screen. */
export function wantFocusOn(target: HTMLElement): void {
  wanted = target;
}

/**
 * After the page was rebuilt: when focus was dropped, gives it to the stand-in of the control it was
 * meant for, or of the one that had it. Returns whether focus moved.
 */
export function restoreDroppedFocus(): boolean {
  if (!focusDropped()) return false;
  for (const gone of [wanted, lastFocused]) {
    if (gone === null) continue;
    const target = gone.isConnected ? gone : standIn(gone);
    if (target !== null && target.getClientRects().length > 0) {
      target.focus();
      return document.activeElement === target;
    }
  }
  return false;
}
