import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import { KEY_MAP } from '../services/keyboard';
import { Dialog } from './Dialog';

/** `?`: the key map, from the same list the README is generated from. Esc or `?` closes it. */
export function KeyMap() {
  useSignals();
  const { layout } = useServices();
  const open = layout.keyMapOpen.value;
  if (!open) return null;
  return (
    <Dialog
      label="Keyboard shortcuts"
      className="keymap"
      backdropClassName="keymap-overlay"
      testId="keymap"
      onClose={() => layout.showKeyMap(false)}
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
    </Dialog>
  );
}
