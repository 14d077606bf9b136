import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import { WELCOME_TEXT } from '../services/terminal/welcome';
import './Welcome.css';

/** The first visit's greeting above the command line: three lines to run (buttons) and what login adds. */
export function Welcome() {
  useSignals();
  const { welcome } = useServices();
  if (!welcome.visible.value) return null;
  return (
    <div className="welcome" data-testid="welcome" role="note" aria-label="Welcome">
      <p className="welcome-title">{WELCOME_TEXT.title}</p>
      <ul className="welcome-tries">
        {WELCOME_TEXT.tries.map((t) => (
          <li key={t.line}>
            <button
              type="button"
              className="welcome-try"
              data-testid="welcome-try"
              onClick={() => void welcome.run(t.line)}
            >
              <code>{t.line}</code>
            </button>
            <span className="welcome-what">{t.what}</span>
          </li>
        ))}
      </ul>
      <p className="welcome-unlocks">{WELCOME_TEXT.unlocks}</p>
      <button
        type="button"
        className="welcome-dismiss"
        aria-label={WELCOME_TEXT.dismiss}
        title={WELCOME_TEXT.dismiss}
        onClick={() => welcome.dismiss()}
      >
        ×
      </button>
    </div>
  );
}
