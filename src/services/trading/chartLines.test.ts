import { describe, expect, it } from 'vitest';
import type { PositionProtection } from '../../contracts/protection';
import type { Decision, Rule } from '../../contracts/rules';
import { LINE_COLORS, positionChart } from './chartLines';
import { chartOfPair, holdDeadline } from './chartPosition';
import { BTC_LONG, ETH_SHORT } from './testing/fixtures';

const guarded: PositionProtection = {
  stop_loss: { price: 94_000, on: 'exchange', state: 'resting' },
  take_profit: { price: 101_000, on: 'exchange', state: 'placing' },
  trailing: { callback_pct: 1, on: 'exchange', state: 'resting' },
  exit_at: '2026-11-26T14:30:00.000Z',
};

const summary = (p: ReturnType<typeof positionChart>) =>
  p?.lines.map((l) => [l.kind, l.price, l.title, l.color, l.style, l.draggable]);

describe('the lines of a position on its chart', () => {
  it('draws the entry with side and size, the liquidation, and each working leg with where it rests', () => {
    const chart = positionChart({ ...BTC_LONG, protection: guarded });
    expect(summary(chart)).toEqual([
      ['entry', 96_150.5, 'LONG 0.052', LINE_COLORS.long, 'solid', false],
      ['liq', 87_010.1234, 'Liq.', LINE_COLORS.liquidation, 'dotted', false],
      ['sl', 94_000, 'SL exchange', LINE_COLORS.stop, 'dashed', true],
      ['tp', 101_000, 'TP exchange placing', LINE_COLORS.target, 'dashed', true],
    ]);
    // The trailing stop's trigger is not on the wire: it is named, not drawn.
    expect(chart?.notes).toEqual(['Trail 1% exchange']);
    expect(chart?.deadlines).toEqual([
      { kind: 'exit', at: Date.parse(guarded.exit_at ?? ''), label: 'Exit 14:30:00 UTC app' },
    ]);
    expect(chart?.lines.map((l) => l.legend)).toEqual([
      'LONG 0.052 @ 96,150.5',
      'Liq. 87,010.1',
      'SL 94,000.0 exchange',
      'TP 101,000.0 exchange placing',
    ]);
  });

  it("draws a short's entry in red, and a leg the app runs in the app's colour, dotted", () => {
    const chart = positionChart({
      ...ETH_SHORT,
      protection: { ...guarded, stop_loss: { price: 3_500, on: 'app', state: 'resting' }, exit_at: null },
    });
    expect(summary(chart)?.[0]).toEqual(['entry', 3_400, 'SHORT 1.5', LINE_COLORS.short, 'solid', false]);
    expect(summary(chart)?.[2]).toEqual(['sl', 3_500, 'SL app', LINE_COLORS.app, 'dotted', true]);
    expect(chart?.deadlines).toEqual([]);
  });

  it('leaves out legs that fired or were refused, and a liquidation price the venue does not give', () => {
    const chart = positionChart({
      ...BTC_LONG,
      liquidationPrice: 0,
      protection: {
        ...guarded,
        stop_loss: { price: 94_000, on: 'exchange', state: 'triggered' },
        take_profit: { price: 101_000, on: 'exchange', state: 'refused' },
        trailing: { callback_pct: 1, on: 'exchange', state: 'refused' },
      },
    });
    expect(chart?.lines.map((l) => l.kind)).toEqual(['entry']);
    expect(chart?.notes).toEqual([]);
  });

  it('draws nothing without a position, or for a size of zero', () => {
    expect(positionChart(undefined)).toBeNull();
    expect(positionChart({ ...BTC_LONG, size: 0 })).toBeNull();
  });
});

const rule = (over: Partial<Rule> = {}): Rule => ({
  id: 'r1',
  ruleName: 'BTC longs',
  conditions: {},
  action: { type: 'trade', side: 'long', amount_usd: 100, exit: { max_hold_minutes: 90 }, account: 'paper' },
  isActive: true,
  version: 2,
  created_at: '2026-11-26T10:00:00.000Z',
  ...over,
});
const decision = {
  rule_id: 'r1',
  rule_name: 'BTC longs',
  rule_version: 2,
  decided_at: '2026-11-26T13:00:00.000Z',
};

describe("a rule's max hold on the chart", () => {
  it('marks when the rule closes the position: its decision plus the max hold', () => {
    const d = decision as Decision;
    expect(holdDeadline(d, [rule()])).toEqual({
      ruleName: 'BTC longs',
      decidedAt: decision.decided_at,
      maxHoldMinutes: 90,
    });
    const byRule = new Map([['paper BTC/USDT long', d]]);
    const chart = chartOfPair('BTC/USDT', [BTC_LONG, ETH_SHORT], byRule, 'paper', [rule()]);
    expect(chart?.deadlines).toEqual([
      {
        kind: 'hold',
        at: Date.parse('2026-11-26T14:30:00.000Z'),
        label: "Hold until 14:30:00 UTC app (rule 'BTC longs')",
      },
    ]);
  });

  it('says nothing of a hold when the rule changed since it decided, has none, or is another account', () => {
    const d = decision as Decision;
    expect(holdDeadline(d, [rule({ version: 3 })])).toBeNull();
    expect(holdDeadline(d, [rule({ action: { ...rule().action, exit: {} } })])).toBeNull();
    expect(holdDeadline(undefined, [rule()])).toBeNull();
    const byRule = new Map([['k1 BTC/USDT long', d]]);
    expect(chartOfPair('BTC/USDT', [BTC_LONG], byRule, 'paper', [rule()])?.deadlines).toEqual([]);
  });

  it("draws only the chart's pair", () => {
    expect(chartOfPair('SOL/USDT', [BTC_LONG, ETH_SHORT], new Map(), 'paper', [])).toBeNull();
    expect(chartOfPair('ETH/USDT', [BTC_LONG, ETH_SHORT], new Map(), 'paper', [])?.side).toBe('short');
  });
});
