import { useSignals } from '@preact/signals-react/runtime';
import { useState } from 'react';
import { useServices } from '../app/AppContext';
import { RECOVERY_TEXT, recoveryCodesFile, recoveryCodesText } from '../services/auth/recoveryCodes';

/** Hands a text file to the browser's downloads. */
function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = name;
  anchor.style.display = 'none';
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  URL.revokeObjectURL(url);
}

/**
 * The recovery codes, shown once after 2FA is turned on: Copy puts them on the clipboard, Download saves
 * them as a text file named with the product and the account.
 */
export function RecoveryCodes({ codes, onDone }: { codes: readonly string[]; onDone(): void }) {
  useSignals();
  const { stores, clock } = useServices();
  const [status, setStatus] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const account = stores.session.user.value?.username ?? 'account';
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(recoveryCodesText(codes));
      setStatus({ tone: 'success', text: RECOVERY_TEXT.copied });
    } catch {
      setStatus({ tone: 'error', text: RECOVERY_TEXT.copyFailed });
    }
  };
  const save = (): void => {
    const file = recoveryCodesFile(codes, account, clock.now());
    download(file.name, file.text);
    setStatus({ tone: 'success', text: RECOVERY_TEXT.downloaded(file.name) });
  };
  return (
    <div className="recovery" data-testid="recovery-codes">
      <p className="message">{RECOVERY_TEXT.intro}</p>
      <ul>
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <div className="recovery-actions">
        <button type="button" className="button" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" className="button" onClick={save}>
          Download
        </button>
        <button type="button" className="button primary" onClick={onDone}>
          I have saved them
        </button>
      </div>
      <p
        className={`message${status === null ? '' : ` ${status.tone}`}`}
        role="status"
        data-testid="recovery-status"
      >
        {status?.text ?? ''}
      </p>
    </div>
  );
}
