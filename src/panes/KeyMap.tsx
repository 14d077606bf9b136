import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import { KEY_MAP } from '../services/keyboard';
import { Dialog } from './Dialog';

const FEED = /^in the feed(?:: |, )/;

/** The key map's two groups: everywhere and at the command line, then the feed's own (their prefix said by the heading). */
const GROUPS = [
  { title: 'Anywhere and at the command line', rows: KEY_MAP.filter((k) => !FEED.test(k.does)) },
  {
    title: 'In the feed',
    rows: KEY_MAP.filter((k) => FEED.test(k.does)).map((k) => ({ ...k, does: k.does.replace(FEED, '') })),
  },
];

/** `?`: the key map, from the same list docs/commands.md is generated from. Esc or `?` closes it. */
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
      <div className="keymap-groups">
        {GROUPS.map((group) => (
          <table key={group.title}>
            <caption>{group.title}</caption>
            <tbody>
              {group.rows.map((row) => (
                <tr key={row.keys}>
                  <th scope="row">
                    <kbd>{row.keys}</kbd>
                  </th>
                  <td>{row.does}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      </div>
      <p className="keymap-hint">Type &quot;help&quot; in the terminal for the commands. Esc closes.</p>
    </Dialog>
  );
}
