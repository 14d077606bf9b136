import { useEffect } from 'react';
import { createShortcutReader } from '../services/keyboard';
import type { LayoutStore } from '../services/layout';
import type { PaletteModel } from '../services/palette';

function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/**
 * The global keys (src/services/keyboard.ts reads them): Ctrl+K / Cmd+K the palette, `/` and Ctrl+`
 * the command line, `g f`/`g c`/`g p`/`g t` and Ctrl+1..4 the panes, `?` the key map. They are heard
 * before xterm, so Ctrl+K and Ctrl+1..4 also work while typing in the terminal.
 */
export function useGlobalShortcuts(palette: PaletteModel, layout: LayoutStore): void {
  useEffect(() => {
    const read = createShortcutReader();
    const onKeyDown = (event: KeyboardEvent): void => {
      const action = read({
        key: event.key,
        code: event.code,
        ctrlKey: event.ctrlKey,
        metaKey: event.metaKey,
        altKey: event.altKey,
        inEditable: isEditable(event.target),
        time: event.timeStamp,
      });
      if (action === null) return;
      event.preventDefault();
      event.stopPropagation();
      if (action.type === 'palette') palette.toggle();
      else if (action.type === 'keymap') layout.showKeyMap(!layout.keyMapOpen.peek());
      else layout.requestFocus(action.pane);
    };
    window.addEventListener('keydown', onKeyDown, true);
    return () => window.removeEventListener('keydown', onKeyDown, true);
  }, [palette, layout]);
}
