import { useEffect } from 'react';
import { isTerminalFocusShortcut } from '../services/keyboard';
import type { UiStore } from '../services/stores/ui';

function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** `/` or Ctrl+` anywhere outside an input focuses the command line. */
export function useGlobalShortcuts(ui: UiStore): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent): void => {
      const press = {
        key: event.key,
        code: event.code,
        ctrlKey: event.ctrlKey,
        metaKey: event.metaKey,
        altKey: event.altKey,
        inEditable: isEditable(event.target),
      };
      if (!isTerminalFocusShortcut(press)) return;
      event.preventDefault();
      ui.requestTerminalFocus();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [ui]);
}
