import { effect, untracked } from '@preact/signals-core';
import { useSignals } from '@preact/signals-react/runtime';
import { useEffect, useSyncExternalStore, type ReactNode } from 'react';
import { Group, Panel, Separator, type Layout } from 'react-resizable-panels';
import { AccountModal } from '../panes/AccountModal';
import { AdminPanel } from '../panes/AdminPanel';
import { AuthModal } from '../panes/AuthModal';
import { RulesModal } from '../panes/RulesModal';
import { ScorecardModal } from '../panes/ScorecardModal';
import { KeysModal } from '../panes/KeysModal';
import { StepUpDialog } from '../panes/StepUpDialog';
import { BottomPanel } from '../panes/BottomPanel';
import { ChartPane } from '../panes/ChartPane';
import { CommandPalette } from '../panes/CommandPalette';
import { FeedPane } from '../panes/FeedPane';
import { Header } from '../panes/Header';
import { KeyMap } from '../panes/KeyMap';
import { TerminalPane } from '../panes/TerminalPane';
import { UpgradeModal } from '../panes/UpgradeModal';
import '../panes/console.css';
import type { PaneId } from '../services/keyboard';
import type { LayoutStore } from '../services/layout';
import { useServices } from './AppContext';
import { useGlobalShortcuts } from './useGlobalShortcuts';

/** Below this width the panes stack in one scrolling column. */
const NARROW = '(max-width: 767px)';

function useNarrow(): boolean {
  return useSyncExternalStore(
    (changed) => {
      const query = window.matchMedia(NARROW);
      query.addEventListener('change', changed);
      return () => query.removeEventListener('change', changed);
    },
    () => window.matchMedia(NARROW).matches,
  );
}

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

/**
 * One column for screens under 768 px: the feed and the chart first, then positions (as cards) and the
 * terminal, which a fixed button brings into view and focuses in one tap.
 */
function Column({ layout }: { layout: LayoutStore }) {
  return (
    <div className="dashboard-column" data-testid="dashboard-column">
      <Slot pane="feed">
        <FeedPane />
      </Slot>
      <Slot pane="chart">
        <ChartPane />
      </Slot>
      <Slot pane="positions">
        <BottomPanel />
      </Slot>
      <div className="column-terminal" id="column-terminal">
        <TerminalPane focusOnLoad={false} />
      </div>
      <button
        type="button"
        className="button primary column-terminal-button"
        onClick={() => {
          document.getElementById('column-terminal')?.scrollIntoView({ block: 'end' });
          layout.requestFocus('terminal');
        }}
      >
        Terminal
      </button>
    </div>
  );
}

/** Spec §2 dashboard: header; chart | command line | signal feed; bottom panel. Every split resizes. */
export function Dashboard() {
  useSignals();
  const { stores, palette, layout } = useServices();
  useGlobalShortcuts(palette, layout);
  const narrow = useNarrow();

  // The focus keys: the terminal focuses itself; other panes take focus on their frame.
  useEffect(
    () =>
      effect(() => {
        const request = layout.focusRequest.value;
        if (request === null) return;
        // Only the request is tracked: focusing writes other signals.
        untracked(() => {
          if (request.pane === 'terminal') return stores.ui.requestTerminalFocus();
          if (request.pane === 'positions') stores.ui.showBottomTab('positions');
          document.querySelector<HTMLElement>(`[data-pane="${request.pane}"]`)?.focus();
        });
      }),
    [layout, stores.ui],
  );

  return (
    <div className="dashboard">
      <Header />
      {narrow ? <Column layout={layout} /> : <Tiles key={layout.version.value} layout={layout} />}
      <AuthModal />
      <AccountModal />
      <RulesModal />
      <KeysModal />
      <UpgradeModal />
      <AdminPanel />
      <ScorecardModal />
      <StepUpDialog />
      <CommandPalette />
      <KeyMap />
    </div>
  );
}
