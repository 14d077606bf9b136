import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import { promptText } from '../services/terminal/render';

/**
 * The terminal transcript as text, off screen: read by screen readers (a polite live log) and by
 * browser tests (`[data-testid="terminal-log"] > div`). Holds the last 200 lines, typed lines included.
 */
export function TerminalLog() {
  useSignals();
  const entries = useServices().stores.terminal.entries.value;
  return (
    <div
      className="sr-only"
      role="log"
      aria-live="polite"
      aria-label="Terminal output"
      data-testid="terminal-log"
    >
      {entries.map((entry) =>
        entry.kind === 'input' ? (
          <div key={entry.id} data-kind="input">
            {promptText(entry.prompt) + entry.text}
          </div>
        ) : (
          <div key={entry.id} data-kind="output" data-tone={entry.tone}>
            {entry.text}
          </div>
        ),
      )}
    </div>
  );
}
