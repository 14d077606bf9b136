import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import type { BottomTab } from '../services/stores/ui';
import { OpenOrdersTab } from './OpenOrdersTab';
import { PositionsPane } from './PositionsPane';
import { TradePanel } from './TradePanel';
import { TradesPane } from './TradesPane';

const TABS: ReadonlyArray<{ id: BottomTab; label: string }> = [
  { id: 'positions', label: 'Positions' },
  { id: 'orders', label: 'Open Orders' },
  { id: 'closed', label: 'Closed' },
  { id: 'trades', label: 'Trades' },
  { id: 'trade', label: 'Trade' },
];

export function BottomPanel() {
  useSignals();
  const { ui, positions, session, openOrders } = useServices().stores;
  const active = ui.bottomTab.value;
  const open = session.isLoggedIn.value ? positions.positions.value.length : 0;
  const resting = session.isLoggedIn.value ? openOrders.orders.value.length : 0;
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
            {tab.id === 'positions' && open > 0 ? (
              <span className="tab-count" aria-label={`${open} open`}>
                {open}
              </span>
            ) : null}
            {tab.id === 'orders' && resting > 0 ? (
              <span className="tab-count" aria-label={`${resting} resting`}>
                {resting}
              </span>
            ) : null}
          </button>
        ))}
      </div>
      <div className="pane-body" role="tabpanel" id={`tabpanel-${active}`} aria-labelledby={`tab-${active}`}>
        {active === 'positions' ? (
          <PositionsPane />
        ) : active === 'orders' ? (
          <OpenOrdersTab />
        ) : active === 'closed' ? (
          <TradesPane view="closed" />
        ) : active === 'trades' ? (
          <TradesPane />
        ) : (
          <TradePanel />
        )}
      </div>
    </section>
  );
}
