import { useEffect } from 'react';
import { createShortcutReader } from '../services/keyboard';
import type { LayoutStore } from '../services/layout';
import type { PaletteModel } from '../services/palette';

function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** The key went to the command line (xterm's hidden input inside the terminal's host). */
function atCommandLine(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && target.closest('[data-testid="terminal"]') !== null;
}

/**
 * The global keys (src/services/keyboard.ts reads them): Ctrl+K / Cmd+K the palette, `/` and Ctrl+`
 * the command line, `g f`/`g c`/`g p`/`g t` and Ctrl+1..4 the panes, `?` the key map (also at an
 * empty command line, which `promptEmpty` tells). They are heard
 * before xterm, so Ctrl+K and Ctrl+1..4 also work while typing in the terminal.
 */
export function useGlobalShortcuts(
  palette: PaletteModel,
  layout: LayoutStore,
  promptEmpty: () => boolean = () => false,
): void {
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
        atEmptyPrompt: atCommandLine(event.target) && promptEmpty(),
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
  }, [palette, layout, promptEmpty]);
}
