import { describe, expect, it } from 'vitest';
import { createPositionsActions } from './positionsActions';
import { createPositionsStore } from './positionsStore';
import { fakeTradingApi } from './testing/api';
import { BTC_LONG, ETH_SHORT } from './testing/fixtures';

/** The pane's actions with dialogs that record what they were asked and answer `yes`. */
function setup(yes: boolean) {
  const { server, trading } = fakeTradingApi();
  const positions = createPositionsStore();
  const asked: string[] = [];
  const alerts: string[] = [];
  const actions = createPositionsActions({
    trading,
    positions,
    dialogs: {
      confirm: (m) => {
        asked.push(m);
        return Promise.resolve(yes);
      },
      alert: (m) => void alerts.push(m),
    },
  });
  return { server, positions, asked, alerts, actions };
}

describe('positions pane actions', () => {
  it('asks before closing one position and sends nothing when declined', async () => {
    const { server, asked, actions } = setup(false);
    await actions.close('BTC/USDT');
    expect(asked).toEqual(['Are you sure you want to close the BTC/USDT position?']);
    expect(server.requests).toEqual([]);
  });

  it('closes one position when confirmed, asks for a reload, and alerts a failure', async () => {
    const { server, positions, alerts, actions } = setup(true);
    server.on('POST /close_position', () => ({ status: 200, body: { message: 'Closed.' } }));
    await actions.close('BTC/USDT');
    expect(server.count('POST /close_position')).toBe(1);
    expect(alerts).toEqual([]);
    expect(positions.refreshRequests.value.count).toBe(1);
    expect(positions.closing.value.size).toBe(0);

    server.on('POST /close_position', () => ({
      status: 400,
      body: { detail: 'No open BTC/USDT position.' },
    }));
    await actions.close('BTC/USDT');
    expect(alerts).toEqual(['Failed to close position: No open BTC/USDT position.']);
  });

  it('alerts that there is nothing to close when no position is open', async () => {
    const { server, asked, alerts, actions } = setup(true);
    await actions.closeAll();
    expect(asked).toEqual([]);
    expect(alerts).toEqual(['There are no open positions to close.']);
    expect(server.requests).toEqual([]);
  });

  it('asks with the count, then alerts the outcome of close all', async () => {
    const { server, positions, asked, alerts, actions } = setup(true);
    positions.setPositions([BTC_LONG, ETH_SHORT], 0);
    server.on('POST /close_all_positions', () => ({ status: 200, body: { message: 'Closed 2 positions.' } }));
    await actions.closeAll();
    expect(asked).toEqual([
      'Are you sure you want to close all 2 open positions? This action cannot be undone.',
    ]);
    server.on('POST /close_all_positions', () => ({ status: 500, body: 'oops' }));
    await actions.closeAll();
    expect(alerts).toEqual(['Closed 2 positions.', 'Failed to close all positions: Unknown error']);
  });

  it('does not close all when the question is declined', async () => {
    const { server, positions, actions } = setup(false);
    positions.setPositions([BTC_LONG], 0);
    await actions.closeAll();
    expect(server.requests).toEqual([]);
  });
});
