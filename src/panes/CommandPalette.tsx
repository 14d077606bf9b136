import { useSignals } from '@preact/signals-react/runtime';
import { Command } from 'cmdk';
import { useState, type FormEvent } from 'react';
import { useServices } from '../app/AppContext';
import type { PaletteEntry } from '../services/palette';
import { Dialog } from './Dialog';

/** The small form of a command with arguments: one field per argument, from its schema. */
function ArgumentForm({
  entry,
  onRun,
}: {
  entry: PaletteEntry;
  onRun: (values: Record<string, string>) => void;
}) {
  const [values, setValues] = useState<Record<string, string>>({});
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    onRun(values);
  };
  return (
    <form
      className="palette-form"
      onSubmit={submit}
      aria-label={`Arguments of ${entry.name}`}
      // The list around it takes Enter for its items; here Enter submits the form.
      onKeyDown={(e) => {
        if (e.key === 'Enter') e.stopPropagation();
      }}
    >
      <div className="palette-form-title">
        <code>{entry.usage}</code>
        <span>{entry.summary}</span>
      </div>
      {entry.fields.map((field, index) => (
        <label key={field.name}>
          <span>
            {field.name}
            {field.required ? '' : ' (optional)'}
          </span>
          <input
            autoFocus={index === 0}
            required={field.required}
            placeholder={field.description ?? ''}
            value={values[field.name] ?? ''}
            onChange={(e) => setValues({ ...values, [field.name]: e.target.value })}
          />
        </label>
      ))}
      <button type="submit">Run {entry.name}</button>
    </form>
  );
}

/** Ctrl+K / Cmd+K: every command with its help line, fuzzy search, recent and frequent first. */
export function CommandPalette() {
  useSignals();
  const { palette, stores } = useServices();
  const [query, setQuery] = useState('');
  const [form, setForm] = useState<PaletteEntry | null>(null);
  const open = palette.open.value;

  const close = (): void => {
    palette.hide();
    setQuery('');
    setForm(null);
  };
  const run = (entry: PaletteEntry, values: Record<string, string>): void => {
    close();
    stores.ui.requestTerminalFocus();
    void palette.run(entry, values);
  };
  const choose = (entry: PaletteEntry): void => {
    if (entry.fields.length > 0) setForm(entry);
    else run(entry, {});
  };

  if (!open) return null;
  return (
    <Dialog
      label="Command palette"
      className="palette-content"
      backdropClassName="palette-overlay"
      testId="palette"
      onClose={close}
    >
      <Command label="Command palette" shouldFilter={false} className="palette">
        {form === null ? (
          <>
            <Command.Input value={query} onValueChange={setQuery} placeholder="Type a command…" />
            <Command.List>
              <Command.Empty>No command matches.</Command.Empty>
              {palette.entries(query).map((entry) => (
                <Command.Item key={entry.name} value={entry.name} onSelect={() => choose(entry)}>
                  <span className="palette-name">{entry.name}</span>
                  <span className="palette-summary">{entry.summary}</span>
                  <span className="palette-area">{entry.area}</span>
                </Command.Item>
              ))}
            </Command.List>
          </>
        ) : (
          <ArgumentForm entry={form} onRun={(values) => run(form, values)} />
        )}
      </Command>
    </Dialog>
  );
}
