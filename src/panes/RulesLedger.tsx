import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import { latencyText, outcomeText } from '../services/rules/rules';
import { utcStamp } from '../services/time';

/** The newest decisions of the ledger: which rule matched which signal, and what came of it. */
export function RulesLedger() {
  useSignals();
  const { stores, rules: api } = useServices();
  const rows = stores.rules.ledger.value;
  return (
    <section className="ledger" aria-label="Decision ledger">
      <h3>
        Decision ledger{' '}
        <button type="button" className="button small" onClick={() => void api.ledger(20)}>
          Refresh
        </button>
      </h3>
      {rows.length === 0 ? (
        <p className="muted">No rule has matched a signal yet.</p>
      ) : (
        <div className="ledger-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Rule</th>
                <th scope="col">Signal</th>
                <th scope="col">Outcome</th>
                <th scope="col">Fill</th>
                <th scope="col">After the news</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id} data-testid="ledger-row">
                  <td>{utcStamp(d.decided_at)}</td>
                  <td>
                    {d.rule_name} v{d.rule_version}
                  </td>
                  <td>
                    #{d.signal_id} {d.asset} {d.sentiment} {d.impact}
                  </td>
                  <td className={`outcome ${d.outcome}`}>
                    {outcomeText(d)}
                    {d.outcome === 'skipped'
                      ? `: ${d.reason}: ${d.detail ?? ''}`
                      : d.exit
                        ? ` (${d.exit})`
                        : ''}
                  </td>
                  <td>
                    {d.quantity === null || d.notional === null
                      ? ''
                      : `${d.quantity} = ${d.notional.toFixed(2)} USDT`}
                  </td>
                  <td>{latencyText(d)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
