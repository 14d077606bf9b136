/** The header row of the Open Positions, Trades and Closed tables: one header per column, in order. */
export function TableHead({ columns }: { columns: readonly string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/**
 * What those tables show while they have no row: `none` once loaded, nothing after an error (the
 * toolbar says what went wrong), "Loading…" before the first answer.
 */
export function NoRows({ status, none }: { status: string; none: string }) {
  return <div className="pane-empty">{status === 'ready' ? none : status === 'error' ? '' : 'Loading…'}</div>;
}
