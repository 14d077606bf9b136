import { useSignals } from '@preact/signals-react/runtime';
import { useEffect, useRef, useState } from 'react';
import { useServices } from '../app/AppContext';
import { AuthButtons } from './AuthButtons';
import { AutoChip } from './AutoChip';
import { DegradedBadge } from './DegradedBadge';
import { LiveIndicator } from './LiveIndicator';
import { SimulatedBadge } from './SimulatedBadge';
import { StandinsBadge } from './StandinsBadge';
import { SymbolSearch } from './SymbolSearch';
import './Header.css';

/**
 * The header. On a phone it is one row (the symbol, the live dot, a degraded chip when there is one, the
 * AUTO chip, a menu); the symbol search, the other badges and the account's buttons are in the menu.
 */
export function Header({ narrow = false }: { narrow?: boolean }) {
  useSignals();
  const { stores } = useServices();
  const symbol = (
    <span className="current-symbol" data-testid="current-symbol">
      {stores.ui.symbol.value}
    </span>
  );
  if (narrow) {
    return (
      <header className="header header-phone">
        {symbol}
        <LiveIndicator />
        <DegradedBadge />
        <AutoChip />
        <span className="header-spacer" />
        <HeaderMenu />
      </header>
    );
  }
  return (
    <header className="header">
      <span className="brand">Signal Console</span>
      <SymbolSearch />
      {symbol}
      <LiveIndicator />
      <DegradedBadge />
      <SimulatedBadge />
      <StandinsBadge />
      <AutoChip />
      <span className="header-spacer" />
      <AuthButtons />
    </header>
  );
}

/** The phone's menu: the badges and every header button, one under another; Esc or a choice closes it. */
function HeaderMenu() {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return undefined;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);
  return (
    <>
      <button
        ref={button}
        type="button"
        className="button header-menu-button"
        aria-expanded={open}
        aria-controls="header-menu"
        onClick={() => setOpen(!open)}
      >
        Menu
      </button>
      {open ? (
        <div
          id="header-menu"
          className="header-menu"
          data-testid="header-menu"
          // A button inside does its thing, and the menu gets out of the way.
          onClick={(event) => {
            if ((event.target as HTMLElement).closest('button') !== null) setOpen(false);
          }}
        >
          <SymbolSearch />
          <div className="header-menu-badges">
            <SimulatedBadge />
            <StandinsBadge />
          </div>
          <AuthButtons />
        </div>
      ) : null}
    </>
  );
}
