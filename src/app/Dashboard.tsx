import { Group, Panel, Separator } from 'react-resizable-panels';
import { AccountModal } from '../panes/AccountModal';
import { AuthModal } from '../panes/AuthModal';
import { BottomPanel } from '../panes/BottomPanel';
import { ChartPane } from '../panes/ChartPane';
import { FeedPane } from '../panes/FeedPane';
import { Header } from '../panes/Header';
import { TerminalPane } from '../panes/TerminalPane';
import { useServices } from './AppContext';
import { useGlobalShortcuts } from './useGlobalShortcuts';

/** Spec §2 dashboard: header; chart | command line | signal feed; bottom panel. Every split resizes. */
export function Dashboard() {
  const { stores } = useServices();
  useGlobalShortcuts(stores.ui);
  return (
    <div className="dashboard">
      <Header />
      <Group orientation="vertical" className="dashboard-body" id="dashboard">
        <Panel id="main" defaultSize="70%" minSize="30%">
          <Group orientation="horizontal" id="main-row">
            <Panel id="chart" defaultSize="36%" minSize="15%">
              <ChartPane />
            </Panel>
            <Separator className="separator separator-vertical" />
            <Panel id="terminal" defaultSize="39%" minSize="20%">
              <TerminalPane />
            </Panel>
            <Separator className="separator separator-vertical" />
            <Panel id="feed" defaultSize="25%" minSize="15%">
              <FeedPane />
            </Panel>
          </Group>
        </Panel>
        <Separator className="separator separator-horizontal" />
        <Panel id="bottom" defaultSize="30%" minSize="10%">
          <BottomPanel />
        </Panel>
      </Group>
      <AuthModal />
      <AccountModal />
    </div>
  );
}
