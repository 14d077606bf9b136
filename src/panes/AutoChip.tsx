import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import { autoChip } from '../services/rules/announce';
import './AutoChip.css';

/** "AUTO · 2 rules · 110 / 5,000 USDT today" while a rule is on, "AUTO OFF" when the kill switch is; opens Trade Rules. */
export function AutoChip() {
  useSignals();
  const { stores } = useServices();
  if (!stores.session.isLoggedIn.value) return null;
  const chip = autoChip(stores.rules.rules.value, stores.rules.risk.value);
  if (chip === null) return null;
  return (
    <button
      type="button"
      className={chip.off ? 'auto-chip off' : 'auto-chip'}
      data-testid="auto-chip"
      title={chip.title}
      onClick={() => stores.rules.openModal()}
    >
      {chip.head}
      {chip.detail === '' ? null : <span className="auto-chip-detail">{chip.detail}</span>}
    </button>
  );
}
