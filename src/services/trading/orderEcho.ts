import { effect, type ReadonlySignal } from '@preact/signals-core';
import type { OrderResponse } from '../../contracts/trading';
import { failure, success, type OutputLine } from '../terminal/output';
import { TRADING_TEXT } from './messages';
import type { TradeStatus } from './tradePanel';

/**
 * One log: an order placed anywhere but at the command line (the trade panel, a card's quick trade, the
 * phone's panes) is written in the terminal too, in one line saying where it came from and what the
 * server answered, with the account it went to, as `btc long 500` prints it.
 */

/** Where an order came from, as its echo names it. */
export const ORDER_SOURCES = {
  panel: 'Trade panel',
  card: (signalId: string) => `Card #${signalId}`,
} as const;

/**
 * `Card #12: Success! Order ID: 7. Filled LONG 0.001 BTC ≈ 100.68 USDT of BTC/USDT at 100,683.1000, fee
 * 0.05 USDT. Bybit LIVE account (key ab…cd): real funds.`
 */
export function fillEcho(source: string, fill: OrderResponse, after: readonly string[] = []): OutputLine {
  const said = [
    `${TRADING_TEXT.orderSucceeded(fill.id)}.`,
    TRADING_TEXT.filled(fill),
    TRADING_TEXT.venueNote(fill.account),
    ...after,
  ];
  return success(`${source}: ${said.join(' ')}`);
}

/** `Trade panel: Error: Insufficient balance.`: the server's refusal, where the order came from. */
export function refusalEcho(source: string, message: string): OutputLine {
  return failure(`${source}: ${message}`);
}

/**
 * Echoes every answer the trade panel got from the server: a status that leaves `placing` (a check the
 * panel made before sending, or an order the user called off, never reached the server and is not echoed).
 */
export function echoPanelOrders(
  status: ReadonlySignal<TradeStatus>,
  print: (lines: readonly OutputLine[]) => void,
): () => void {
  let before = status.peek().state;
  return effect(() => {
    const now = status.value;
    const sent = before === 'placing';
    before = now.state;
    if (!sent) return;
    if (now.state === 'success') print([success(`${ORDER_SOURCES.panel}: ${now.message}`)]);
    else if (now.state === 'error') print([refusalEcho(ORDER_SOURCES.panel, now.message)]);
  });
}
