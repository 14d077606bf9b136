import { useState, type FormEvent } from 'react';
import { useServices } from '../app/AppContext';

/** Typing a ticker and pressing Enter runs the `symbol` command; its output also goes to the terminal. */
export function SymbolSearch() {
  const { terminal } = useServices();
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  const onSubmit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (text.trim() === '') return;
    const output = await terminal.execute(`symbol ${text.trim()}`, 'ui');
    const error = output.find((line) => line.tone === 'error');
    setProblem(error?.text ?? null);
    if (error === undefined) setText('');
  };

  return (
    <form className="symbol-search" role="search" onSubmit={(event) => void onSubmit(event)}>
      <input
        type="search"
        aria-label="Search symbol"
        placeholder="Symbol, e.g. ETH"
        value={text}
        spellCheck={false}
        autoComplete="off"
        onChange={(event) => {
          setText(event.currentTarget.value);
          setProblem(null);
        }}
        aria-invalid={problem !== null}
        title={problem ?? 'Type a ticker and press Enter'}
      />
      {problem !== null && (
        <span className="symbol-search-error" role="alert">
          {problem}
        </span>
      )}
    </form>
  );
}
