import { describe, expect, it } from 'vitest';
import { createPositionsActions } from './positionsActions';
import { createPositionsStore } from './positionsStore';
import type { OrderResponse } from '../../contracts/trading';
import { fakeTradingApi } from './testing/api';
import { BTC_LONG, ETH_SHORT } from './testing/fixtures';
import { recordedClose, recordedCloseAll } from './testing/serverAnswers';

/** The pane's actions with dialogs that record what they were asked and answer `yes`. */
function setup(yes: boolean, ran: string[] = []) {
  const { server, trading } = fakeTradingApi();
  const positions = createPositionsStore();
  const asked: string[] = [];
  const details: (readonly string[] | undefined)[] = [];
  const alerts: string[] = [];
  const alertDetails: (readonly string[] | undefined)[] = [];
  const reported: (readonly OrderResponse[])[] = [];
  const actions = createPositionsActions({
    trading,
    positions,
    dialogs: {
      confirm: (m, more) => {
        asked.push(m);
        details.push(more?.details);
        return Promise.resolve(yes);
      },
      alert: (m, more) => {
        alerts.push(m);
        alertDetails.push(more?.details);
      },
    },
    report: (fills) => void reported.push(fills),
    run: (line) => Promise.resolve(void ran.push(line)),
  });
  return { server, positions, asked, details, alerts, alertDetails, reported, actions };
}

describe('position verbs from the pane (keys c, h, f and the row buttons)', () => {
  it('asks with the position it acts on, then runs the command the terminal runs', async () => {
    const ran: string[] = [];
    const { positions, asked, details, actions } = setup(true, ran);
    positions.setPositions([BTC_LONG, ETH_SHORT], 0);
    await actions.verb('half', 'BTC/USDT');
    await actions.verb('flip', 'ETH/USDT');
    await actions.verb('close', 'BTC/USDT');
    expect(asked).toEqual([
      'Close 50% of LONG 0.052 BTC/USDT? Enter / Esc',
      'Flip SHORT 1.5 ETH/USDT to LONG 1.5? Enter / Esc',
      'Close LONG 0.052 BTC/USDT? Enter / Esc',
    ]);
    expect(details[0]).toEqual([
      'LONG 0.052 BTC/USDT, entry 96,150.5',
      'Unrealized PnL +12.99 USDT (+2.60%), at market',
    ]);
    expect(ran).toEqual(['close btc 50%', 'flip eth', 'close btc']);
  });

  it('runs nothing when declined, or for a position that is not open', async () => {
    const ran: string[] = [];
    const { positions, asked, actions } = setup(false, ran);
    positions.setPositions([BTC_LONG], 0);
    await actions.verb('half', 'BTC/USDT');
    await actions.verb('flip', 'SOL/USDT');
    expect(asked).toHaveLength(1);
    expect(ran).toEqual([]);
  });
});

describe('positions pane actions', () => {
  it('asks before closing one position and sends nothing when declined', async () => {
    const { server, asked, actions } = setup(false);
    await actions.close('BTC/USDT');
    expect(asked).toEqual(['Are you sure you want to close the BTC/USDT position?']);
    expect(server.requests).toEqual([]);
  });

  it('names the position and its PnL in the question', async () => {
    const { positions, details, actions } = setup(false);
    positions.setPositions([BTC_LONG, ETH_SHORT], 0);
    await actions.close('ETH/USDT');
    expect(details).toEqual([
      ['SHORT 1.5 ETH/USDT, entry 3,400.00', 'Unrealized PnL -18.75 USDT (-1.84%), at market'],
    ]);
  });

  it('closes one position when confirmed, reports its fill, asks for a reload, and alerts a failure', async () => {
    const { server, positions, alerts, reported, actions } = setup(true);
    const closed = recordedClose();
    server.on('POST /close_position', () => ({ status: 200, body: closed }));
    await actions.close('BTC/USDT');
    expect(server.count('POST /close_position')).toBe(1);
    expect(alerts).toEqual([]);
    expect(reported).toEqual([[closed.fill]]);
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

  it('asks with the count, then alerts the outcome of close all with its fills', async () => {
    const { server, positions, asked, details, alerts, alertDetails, reported, actions } = setup(true);
    positions.setPositions([BTC_LONG, ETH_SHORT], 0);
    const all = recordedCloseAll();
    server.on('POST /close_all_positions', () => ({ status: 200, body: all }));
    await actions.closeAll();
    expect(asked).toEqual([
      'Are you sure you want to close all 2 open positions? This action cannot be undone.',
    ]);
    expect(details[0]).toEqual([
      'LONG 0.052 BTC/USDT, entry 96,150.5: +12.99 USDT',
      'SHORT 1.5 ETH/USDT, entry 3,400.00: -18.75 USDT',
      'Total unrealized PnL -5.76 USDT',
    ]);
    server.on('POST /close_all_positions', () => ({ status: 500, body: 'oops' }));
    await actions.closeAll();
    expect(alerts).toEqual([all.message, 'Failed to close all positions: Unknown error']);
    expect(reported).toEqual([all.fills]);
    expect(alertDetails[0]).toHaveLength(4);
    expect(alertDetails[0]?.[0]).toMatch(
      /^Closed LONG .* of BTC\/USDT at .*, realised .* USDT, fee .* USDT\.$/,
    );
  });

  it('does not close all when the question is declined', async () => {
    const { server, positions, actions } = setup(false);
    positions.setPositions([BTC_LONG], 0);
    await actions.closeAll();
    expect(server.requests).toEqual([]);
  });
});
