import { useLayoutEffect, useRef, type ReactNode } from 'react';
import { lastFocusedElement, standIn, wantFocusOn } from './focusReturn';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), ' +
  'textarea:not([disabled]), [tabindex]:not([tabindex="-1"]), [contenteditable="true"]';

function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.getClientRects().length > 0);
}

/**
 * The element to give focus back to on close: the opener, or, when the page behind was rebuilt while the
 * dialog was open (a resize swaps the layout), the visible control that took its place.
 */
function returnTarget(opener: HTMLElement | null, root: HTMLElement): HTMLElement | null {
  if (opener === null || opener.isConnected) return opener;
  return standIn(opener, root);
}

/** Open dialogs, innermost last: only the innermost one answers keys and holds focus. */
const stack: HTMLElement[] = [];

function openerNow(): HTMLElement | null {
  const active = document.activeElement;
  if (active instanceof HTMLElement && active !== document.body) return active;
  // Only a control that lost focus by being disabled: focus the user moved away on purpose stays away.
  const last = lastFocusedElement();
  if (last?.isConnected === true && last.matches(':disabled')) return last;
  return active instanceof HTMLElement ? active : null;
}

const RETURN_WAIT_MS = 3000;

/**
 * Gives focus back to `target`; one disabled while the action that opened the dialog finishes gets it
 * as soon as it is enabled again (unless focus went somewhere else meanwhile).
 */
function giveFocusBack(target: HTMLElement): void {
  const disabled = () => target.matches(':disabled');
  if (!disabled()) {
    target.focus();
    return;
  }
  const started = Date.now();
  const retry = (): void => {
    const active = document.activeElement;
    if (!target.isConnected || (active !== null && active !== document.body)) return;
    if (!disabled()) target.focus();
    else if (Date.now() - started < RETURN_WAIT_MS) setTimeout(retry, 25);
  };
  setTimeout(retry, 0);
}

/** True while a dialog is open: what the page behind must not take focus from. */
export function dialogOpen(): boolean {
  return stack.length > 0;
}

export interface DialogProps {
  /** The accessible name, read by screen readers (and the tests' `getByRole('dialog', { name })`). */
  label: string;
  /** Called on Esc, a click on the backdrop, or the caller's own Close button. */
  onClose: () => void;
  /** Extra class for the panel beside `modal`. */
  className?: string;
  /** Class of the backdrop; `modal-backdrop` unless a dialog draws its own. */
  backdropClassName?: string;
  testId?: string;
  /** Where focus goes on open: a selector inside the dialog; the first focusable element otherwise. */
  initialFocus?: string;
  children: ReactNode;
}

/**
 * The one dialog primitive every modal is built on. While it is mounted: Esc closes it (and goes no
 * further, so the terminal behind never sees it), Tab and Shift+Tab cycle inside it, focus that lands
 * outside is pulled back in, and on close focus returns to the element that had it before opening.
 * Mount it only while open: `{open && <Dialog …/>}`.
 */
export function Dialog({
  label,
  onClose,
  className,
  backdropClassName = 'modal-backdrop',
  testId,
  initialFocus,
  children,
}: DialogProps) {
  const panel = useRef<HTMLDivElement>(null);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;

  // A layout effect: focus moves in the same commit that shows or removes the dialog, never a frame later.
  useLayoutEffect(() => {
    const root = panel.current;
    if (!root) return undefined;
    const opener = openerNow();
    const first =
      (initialFocus ? root.querySelector<HTMLElement>(initialFocus) : null) ?? focusables(root)[0] ?? root;
    // On the stack first: a dialog opened over another is innermost before focus moves into it, so the
    // one below does not pull focus back.
    stack.push(root);
    first.focus();
    const innermost = (): boolean => stack[stack.length - 1] === root;

    const onKeyDown = (event: KeyboardEvent): void => {
      if (!innermost()) return;
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        closeRef.current();
        return;
      }
      if (event.key !== 'Tab') return;
      const items = focusables(root);
      if (items.length === 0) {
        event.preventDefault();
        root.focus();
        return;
      }
      const head = items[0] as HTMLElement;
      const tail = items[items.length - 1] as HTMLElement;
      const active = document.activeElement;
      if (event.shiftKey && (active === head || !root.contains(active))) {
        event.preventDefault();
        tail.focus();
      } else if (!event.shiftKey && (active === tail || !root.contains(active))) {
        event.preventDefault();
        head.focus();
      }
    };
    const onFocusIn = (event: FocusEvent): void => {
      if (!innermost() || !(event.target instanceof Node) || root.contains(event.target)) return;
      (focusables(root)[0] ?? root).focus();
    };
    // Capture phase, so the dialog sees keys before any listener of the page behind it.
    document.addEventListener('keydown', onKeyDown, true);
    document.addEventListener('focusin', onFocusIn);
    return () => {
      document.removeEventListener('keydown', onKeyDown, true);
      document.removeEventListener('focusin', onFocusIn);
      stack.splice(stack.indexOf(root), 1);
      const target = returnTarget(opener, root);
      if (target !== null) giveFocusBack(target);
      // Its opener is not on screen (the phone layout keeps it in a menu): it gets focus when shown.
      else if (opener !== null && opener !== document.body) wantFocusOn(opener);
    };
    // Focus moves once per opening; later renders must not steal it back.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  return (
    <div
      className={backdropClassName}
      onMouseDown={(event) => event.target === event.currentTarget && onClose()}
    >
      <div
        ref={panel}
        className={className ? `modal ${className}` : 'modal'}
        role="dialog"
        aria-modal="true"
        aria-label={label}
        tabIndex={-1}
        {...(testId ? { 'data-testid': testId } : {})}
      >
        {children}
      </div>
    </div>
  );
}
