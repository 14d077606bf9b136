import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import type { BottomTab } from '../services/stores/ui';
import { PositionsPane } from './PositionsPane';
import { TradePanel } from './TradePanel';

const TABS: ReadonlyArray<{ id: BottomTab; label: string }> = [
  { id: 'positions', label: 'Positions' },
  { id: 'trade', label: 'Trade' },
];

export function BottomPanel() {
  useSignals();
  const { ui } = useServices().stores;
  const active = ui.bottomTab.value;
  return (
    <section className="pane bottom-panel">
      <div className="tabs" role="tablist" aria-label="Bottom panel">
        {TABS.map((tab) => (
          <button
            key={tab.id}
            type="button"
            role="tab"
            id={`tab-${tab.id}`}
            aria-selected={active === tab.id}
            aria-controls={`tabpanel-${tab.id}`}
            className={active === tab.id ? 'tab active' : 'tab'}
            onClick={() => ui.showBottomTab(tab.id)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div className="pane-body" role="tabpanel" id={`tabpanel-${active}`} aria-labelledby={`tab-${active}`}>
        {active === 'positions' ? <PositionsPane /> : <TradePanel />}
      </div>
    </section>
  );
}
