import { useState, type KeyboardEvent } from 'react';
import { useServices } from '../app/AppContext';
import { searchSymbols } from '../services/market/search';

const LIST_ID = 'symbol-search-list';

/**
 * Header symbol search (docs/product.md §2): prefix match over the supported list, arrows to move, Enter to pick,
 * Escape to close. Picking runs the `symbol` command, so its output also goes to the terminal.
 */
export function SymbolSearch() {
  const { terminal } = useServices();
  const [text, setText] = useState('');
  const [active, setActive] = useState(0);
  const [open, setOpen] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const results = open ? searchSymbols(text) : [];

  const run = async (ticker: string): Promise<void> => {
    const output = await terminal.execute(`symbol ${ticker}`, 'ui');
    const error = output.find((line) => line.tone === 'error');
    setProblem(error?.text ?? null);
    if (error === undefined) {
      setText('');
      setOpen(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>): void => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setOpen(true);
      if (results.length > 0) {
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setActive((i) => (i + step + results.length) % results.length);
      }
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const chosen = results[active]?.ticker ?? text.trim();
      if (chosen !== '') void run(chosen);
    } else if (event.key === 'Escape') {
      setOpen(false);
      setProblem(null);
    }
  };

  const activeId = results[active] === undefined ? undefined : `symbol-option-${results[active].ticker}`;
  return (
    <div className="symbol-search" role="search">
      <input
        type="search"
        role="combobox"
        aria-label="Search symbol"
        aria-expanded={results.length > 0}
        aria-controls={LIST_ID}
        aria-autocomplete="list"
        aria-activedescendant={activeId}
        placeholder="Symbol, e.g. ETH"
        value={text}
        spellCheck={false}
        autoComplete="off"
        onChange={(event) => {
          setText(event.currentTarget.value);
          setActive(0);
          setOpen(true);
          setProblem(null);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => setOpen(false)}
        aria-invalid={problem !== null}
        title={problem ?? 'Type a ticker; arrows to choose, Enter to pick'}
      />
      {results.length > 0 && (
        <ul className="symbol-search-list" id={LIST_ID} role="listbox" aria-label="Symbols">
          {results.map((s, i) => (
            <li
              key={s.symbol}
              id={`symbol-option-${s.ticker}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? 'active' : undefined}
              onMouseDown={(event) => {
                event.preventDefault(); // keep focus in the input until the command ran
                void run(s.ticker);
              }}
              onMouseEnter={() => setActive(i)}
            >
              <img src={s.icon} alt="" width={18} height={18} />
              <span className="symbol-search-pair">{s.pair}</span>
              <span className="symbol-search-name">{s.name}</span>
            </li>
          ))}
        </ul>
      )}
      {problem !== null && (
        <span className="symbol-search-error" role="alert">
          {problem}
        </span>
      )}
    </div>
  );
}
