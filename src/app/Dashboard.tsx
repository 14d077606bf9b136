import { effect, untracked } from '@preact/signals-core';
import { useSignals } from '@preact/signals-react/runtime';
import { useEffect, useLayoutEffect, type ReactNode } from 'react';
import { Group, Panel, Separator, type Layout } from 'react-resizable-panels';
import { AccountModal } from '../panes/AccountModal';
import { AdminPanel } from '../panes/AdminPanel';
import { AuthModal } from '../panes/AuthModal';
import { RulesModal } from '../panes/RulesModal';
import { ScorecardModal } from '../panes/ScorecardModal';
import { ConfirmDialog } from '../panes/ConfirmDialog';
import { KeysModal } from '../panes/KeysModal';
import { StepUpDialog } from '../panes/StepUpDialog';
import { BottomPanel } from '../panes/BottomPanel';
import { ChartPane } from '../panes/ChartPane';
import { CommandPalette } from '../panes/CommandPalette';
import { FeedPane } from '../panes/FeedPane';
import { Header } from '../panes/Header';
import { Toasts } from '../panes/Toasts';
import { KeyMap } from '../panes/KeyMap';
import { TerminalPane } from '../panes/TerminalPane';
import { UpgradeModal } from '../panes/UpgradeModal';
import { restoreDroppedFocus } from '../panes/focusReturn';
import '../panes/console.css';
import type { PaneId } from '../services/keyboard';
import type { LayoutStore } from '../services/layout';
import type { PhonePane } from '../services/stores/ui';
import { useServices } from './AppContext';
import { useGlobalShortcuts } from './useGlobalShortcuts';
import { useNarrow } from './useNarrow';

/** A pane's frame: the target of the focus keys (`g f`, Ctrl+1…). */
function Slot({ pane, children }: { pane: PaneId; children: ReactNode }) {
  return (
    <div className="pane-slot" data-pane={pane} tabIndex={-1}>
      {children}
    </div>
  );
}

/** A group whose sizes are saved when the person drags a separator, and restored on load. */
function savedGroup(layout: LayoutStore, id: string) {
  const saved = layout.saved(id);
  return {
    id,
    ...(saved === undefined ? {} : { defaultLayout: saved as Layout }),
    onLayoutChanged: (sizes: Layout, meta: { isUserInteraction: boolean }) => {
      if (meta.isUserInteraction) layout.save(id, sizes);
    },
  };
}

function Tiles({ layout }: { layout: LayoutStore }) {
  return (
    <Group orientation="vertical" className="dashboard-body" {...savedGroup(layout, 'dashboard')}>
      <Panel id="main" defaultSize="70%" minSize="30%">
        <Group orientation="horizontal" {...savedGroup(layout, 'main-row')}>
          <Panel id="chart" defaultSize="36%" minSize="15%">
            <Slot pane="chart">
              <ChartPane />
            </Slot>
          </Panel>
          <Separator className="separator separator-vertical" />
          <Panel id="terminal" defaultSize="39%" minSize="20%">
            <TerminalPane />
          </Panel>
          <Separator className="separator separator-vertical" />
          <Panel id="feed" defaultSize="25%" minSize="15%">
            <Slot pane="feed">
              <FeedPane />
            </Slot>
          </Panel>
        </Group>
      </Panel>
      <Separator className="separator separator-horizontal" />
      <Panel id="bottom" defaultSize="30%" minSize="10%">
        <Slot pane="positions">
          <BottomPanel />
        </Slot>
      </Panel>
    </Group>
  );
}

const PHONE_PANES: ReadonlyArray<{ id: PhonePane; label: string }> = [
  { id: 'feed', label: 'Feed' },
  { id: 'chart', label: 'Chart' },
  { id: 'positions', label: 'Positions' },
  { id: 'terminal', label: 'Terminal' },
];

/**
 * The phone layout (under 768 px): one pane fills the screen and a bottom bar switches between the feed,
 * the chart, positions and the terminal. Every pane stays mounted (the chart keeps its candles, the
 * terminal its line); the others are hidden.
 */
function Phone() {
  useSignals();
  const { stores } = useServices();
  const shown = stores.ui.phonePane.value;
  const pane = (id: PhonePane, children: ReactNode) => (
    <div
      className="phone-pane"
      id={`phone-pane-${id}`}
      role="tabpanel"
      aria-labelledby={`phone-tab-${id}`}
      hidden={shown !== id}
      data-testid={`phone-pane-${id}`}
    >
      {children}
    </div>
  );
  return (
    <div className="dashboard-phone" data-testid="dashboard-phone">
      {pane(
        'feed',
        <Slot pane="feed">
          <FeedPane />
        </Slot>,
      )}
      {pane(
        'chart',
        <Slot pane="chart">
          <ChartPane />
        </Slot>,
      )}
      {pane(
        'positions',
        <Slot pane="positions">
          <BottomPanel />
        </Slot>,
      )}
      {pane('terminal', <TerminalPane focusOnLoad={false} />)}
      <nav className="phone-bar" role="tablist" aria-label="Panes">
        {PHONE_PANES.map((p) => (
          <button
            key={p.id}
            type="button"
            role="tab"
            id={`phone-tab-${p.id}`}
            aria-selected={shown === p.id}
            aria-controls={`phone-pane-${p.id}`}
            className={shown === p.id ? 'phone-tab active' : 'phone-tab'}
            onClick={() =>
              p.id === 'terminal' ? stores.ui.requestTerminalFocus() : stores.ui.showPhonePane(p.id)
            }
          >
            {p.label}
          </button>
        ))}
      </nav>
    </div>
  );
}

/** docs/product.md §2 dashboard: header; chart | command line | signal feed; bottom panel. Every split resizes. */
export function Dashboard() {
  useSignals();
  const { stores, palette, layout, terminal } = useServices();
  useGlobalShortcuts(palette, layout, terminal.atEmptyPrompt);
  const narrow = useNarrow();
  const version = layout.version.value;

  // A swap of layouts (a resize across the phone width, a layout reset) rebuilds the header and the
  // panes: the control that had focus, or that a dialog closed meanwhile meant to give it back to, gets
  // it again in its new place, before the rebuilt terminal would take dropped focus for itself.
  useLayoutEffect(() => {
    restoreDroppedFocus();
  }, [narrow, version]);

  // The focus keys: the terminal focuses itself; other panes take focus on their frame.
  useEffect(
    () =>
      effect(() => {
        const request = layout.focusRequest.value;
        if (request === null) return;
        // Only the request is tracked: focusing writes other signals.
        untracked(() => {
          if (request.pane === 'terminal') return stores.ui.requestTerminalFocus();
          stores.ui.showPhonePane(request.pane);
          if (request.pane === 'positions') stores.ui.showBottomTab('positions');
          document.querySelector<HTMLElement>(`[data-pane="${request.pane}"]`)?.focus();
        });
      }),
    [layout, stores.ui],
  );

  return (
    <div className="dashboard">
      <Header narrow={narrow} />
      {narrow ? <Phone /> : <Tiles key={version} layout={layout} />}
      <AuthModal />
      <AccountModal />
      <RulesModal />
      <KeysModal />
      <UpgradeModal />
      <AdminPanel />
      <ScorecardModal />
      <StepUpDialog />
      <ConfirmDialog />
      <CommandPalette />
      <KeyMap />
      <Toasts />
    </div>
  );
}
