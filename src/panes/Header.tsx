import { useSignals } from '@preact/signals-react/runtime';
import { useServices } from '../app/AppContext';
import { AuthButtons } from './AuthButtons';
import { DegradedBadge } from './DegradedBadge';
import { LiveIndicator } from './LiveIndicator';
import { SimulatedBadge } from './SimulatedBadge';
import { StandinsBadge } from './StandinsBadge';
import { SymbolSearch } from './SymbolSearch';

export function Header() {
  useSignals();
  const { stores } = useServices();
  return (
    <header className="header">
      <span className="brand">Signal Console</span>
      <SymbolSearch />
      <span className="current-symbol" data-testid="current-symbol">
        {stores.ui.symbol.value}
      </span>
      <LiveIndicator />
      <DegradedBadge />
      <SimulatedBadge />
      <StandinsBadge />
      <span className="header-spacer" />
      <AuthButtons />
    </header>
  );
}
