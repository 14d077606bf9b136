import Decimal from 'decimal.js';
import { z } from 'zod';
import { Decision } from '../../../src/contracts/rules';
import { Signal } from '../../../src/contracts/signals';
import { Position } from '../../../src/contracts/trading';
import type { Api } from './api';

/** Every decision of a user's ledger, newest first, page by page. */
export async function allDecisions(api: Api): Promise<Decision[]> {
  const all: Decision[] = [];
  for (;;) {
    const before = all.at(-1)?.id;
    const page = await api.must(
      z.array(Decision),
      'GET',
      `/rules/ledger?limit=500${before === undefined ? '' : `&before=${before}`}`,
    );
    all.push(...page);
    if (page.length < 500) return all;
  }
}

/** Every stored signal, newest first, page by page. */
export async function allSignals(api: Api): Promise<Signal[]> {
  const all: Signal[] = [];
  for (;;) {
    const before = all.at(-1)?.id;
    const page = await api.must(
      z.array(Signal),
      'GET',
      `/signals?limit=200${before === undefined ? '' : `&before=${before}`}`,
    );
    all.push(...page);
    if (page.length < 200) return all;
  }
}

/** A user's positions as signed sizes by symbol (`SOL/USDT` → "-1.2"), without the flat ones. */
export async function signedPositions(api: Api): Promise<Record<string, string>> {
  const positions = await api.must(z.array(Position), 'GET', '/positions');
  return Object.fromEntries(
    positions.map((p) => [p.symbol, new Decimal(String(p.size)).mul(p.side === 'long' ? 1 : -1).toString()]),
  );
}

/** Signed quantities summed by symbol, as `signedPositions` answers them. */
export function netBySymbol(
  fills: { symbol: string; buy: boolean; quantity: number }[],
): Record<string, string> {
  const net = new Map<string, Decimal>();
  for (const f of fills) {
    const qty = new Decimal(String(f.quantity)).mul(f.buy ? 1 : -1);
    net.set(f.symbol, (net.get(f.symbol) ?? new Decimal(0)).plus(qty));
  }
  return Object.fromEntries([...net].filter(([, q]) => !q.isZero()).map(([s, q]) => [s, q.toString()]));
}
