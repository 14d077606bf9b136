import { useSignals } from '@preact/signals-react/runtime';
import { useEffect } from 'react';
import { useServices } from '../app/AppContext';
import { KEY_MAP } from '../services/keyboard';

/** `?`: the key map, from the same list the README is generated from. Esc or `?` closes it. */
export function KeyMap() {
  useSignals();
  const { layout } = useServices();
  const open = layout.keyMapOpen.value;
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') layout.showKeyMap(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open, layout]);
  if (!open) return null;
  return (
    <div className="keymap-overlay" onClick={() => layout.showKeyMap(false)}>
      <div
        className="keymap"
        role="dialog"
        aria-modal="true"
        aria-label="Keyboard shortcuts"
        data-testid="keymap"
        onClick={(e) => e.stopPropagation()}
      >
        <h2>Keyboard</h2>
        <table>
          <tbody>
            {KEY_MAP.map((row) => (
              <tr key={row.keys}>
                <th scope="row">
                  <kbd>{row.keys}</kbd>
                </th>
                <td>{row.does}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="keymap-hint">Type "help" in the terminal for every command. Esc closes.</p>
      </div>
    </div>
  );
}
