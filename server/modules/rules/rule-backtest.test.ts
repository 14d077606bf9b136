import { describe, expect, it } from 'vitest';
import type { Candle } from '../../../src/contracts/market';
import type { Rule } from '../../../src/contracts/rules';
import { completedSignal } from '../../../tests/integration/rules.support';
import { backtest, intervalFor, spanWords } from './rule-backtest';

const MIN = 60_000;
const rule = (exit?: Rule['action']['exit']): Rule => ({
  id: 'r1',
  ruleName: 'test',
  conditions: { asset: 'SOL', sentiment: 'positive' },
  action: { type: 'trade', side: 'long', amount_usd: 1000, account: 'paper', ...(exit ? { exit } : {}) },
  isActive: true,
  version: 1,
  created_at: new Date(0).toISOString(),
});
/** Minute candles from t0, opening at `opens[i]`, each ranging ±`range` around its open. */
const candles = (t0: number, opens: number[], range = 0.1): Candle[] =>
  opens.map((o, i) => ({
    time: t0 + i * MIN,
    open: o,
    high: o + range,
    low: o - range,
    close: o,
    volume: 1,
  }));

describe('backtest', () => {
  it('picks the finest interval whose 1,000 candles cover the period', () => {
    expect(intervalFor(0.5)[0]).toBe('1m');
    expect(intervalFor(3)[0]).toBe('5m');
    expect(intervalFor(10)[0]).toBe('15m');
    expect(intervalFor(30)[0]).toBe('1h');
    expect(intervalFor(365)[0]).toBe('4h');
  });

  it('enters after the signal, exits at the stop before the target, and counts fees and slippage', async () => {
    const t0 = 1_700_000_000_000;
    const series = candles(t0, [100, 100, 101, 102, 103, 104, 105, 106]);
    series[2] = { ...series[2]!, low: 97, high: 104 }; // reaches both the stop and the target: the stop wins
    const result = await backtest({
      rule: rule({ take_profit_pct: 3, stop_loss_pct: 2 }),
      days: 0.5,
      holdMinutes: 30,
      now: t0 + 60 * MIN,
      signals: [completedSignal({ id: '1', assets: ['SOL'], receivedAt: t0 + 30_000 })],
      since: new Date(t0 - 86_400_000),
      candles: async () => series,
      priceSource: 'test prices',
    });
    expect(result.trades).toHaveLength(1);
    const [trade] = result.trades;
    expect(trade?.exit_reason).toBe('stop_loss');
    expect(trade?.entry).toBeCloseTo(100 * 1.0002, 6);
    // 2 % down on 1000 USDT, less the exit slippage and 0.05 % fees on both legs.
    expect(trade?.pnl_usd).toBeLessThan(-20);
    expect(trade?.pnl_usd).toBeGreaterThan(-21.5);
    expect(result.win_rate).toBe(0);
    expect(result.max_drawdown_usd).toBeCloseTo(-trade!.pnl_usd, 2);
    expect(result.note).toContain('Fewer than 20 trades');
  });

  it('holds for the holding time, skips non-matching signals and says when history is short', async () => {
    const t0 = 1_700_000_000_000;
    const series = candles(
      t0,
      Array.from({ length: 60 }, (_, i) => 100 + i),
    );
    const result = await backtest({
      rule: rule(),
      days: 30,
      holdMinutes: 10,
      now: t0 + 2 * 86_400_000,
      signals: [
        completedSignal({ id: '1', assets: ['SOL'], receivedAt: t0 + 1000 }),
        completedSignal({ id: '2', assets: ['SOL'], sentiment: 'negative', receivedAt: t0 + 2000 }),
        completedSignal({ id: '3', assets: ['ETH'], receivedAt: t0 + 3000 }),
        completedSignal({ id: '4', assets: ['SOL'], receivedAt: t0 + 55 * MIN }),
      ],
      since: new Date(t0),
      candles: async () => series,
      priceSource: 'test prices',
    });
    expect(result.trades.map((t) => [t.signal_id, t.exit_reason, t.entry.toFixed(2)])).toEqual([
      ['1', 'hold', '101.02'],
    ]);
    expect(result.trades[0]!.exit).toBeCloseTo(111 * 0.9998, 6);
    expect(result.pnl_usd).toBeGreaterThan(90);
    expect(result.equity).toEqual([0, result.pnl_usd]);
    expect(result.note).toContain('The news stored here covers 2 days; the backtest ran on those.');
    expect(result.note).not.toMatch(/0\.0/);
    expect(result.note).toContain('1 match is too recent to have closed.');
  });

  it("replays only the headlines that pass the rule's words, as the engine would", async () => {
    const t0 = 1_700_000_000_000;
    const series = candles(
      t0,
      Array.from({ length: 60 }, (_, i) => 100 + i),
    );
    const worded = rule();
    worded.conditions = { ...worded.conditions, include: ['listing'], exclude: ['perpetual'] };
    const result = await backtest({
      rule: worded,
      days: 30,
      holdMinutes: 5,
      now: t0 + 2 * 86_400_000,
      signals: [
        completedSignal({
          id: '1',
          assets: ['SOL'],
          content: 'SOL perpetual listing',
          receivedAt: t0 + 1000,
        }),
        completedSignal({ id: '2', assets: ['SOL'], content: 'SOL rallies', receivedAt: t0 + 10 * MIN }),
        completedSignal({
          id: '3',
          assets: ['SOL'],
          content: 'Spot listing: SOL',
          receivedAt: t0 + 20 * MIN,
        }),
      ],
      since: new Date(t0),
      candles: async () => series,
      priceSource: 'test prices',
    });
    expect(result.trades.map((t) => t.signal_id)).toEqual(['3']);
  });

  it('replays all the news stored by default, on minute candles, and names the rule', async () => {
    const t0 = 1_700_000_000_000;
    const series = candles(
      t0,
      Array.from({ length: 130 }, (_, i) => 100 + i / 10),
    );
    const asked: string[] = [];
    const result = await backtest({
      rule: rule(),
      holdMinutes: 30,
      now: t0 + 2 * 60 * MIN,
      signals: [
        completedSignal({ id: '1', assets: ['SOL'], receivedAt: t0 + 5 * MIN }),
        completedSignal({ id: '2', assets: ['SOL'], receivedAt: t0 + 50 * MIN }),
      ],
      since: new Date(t0),
      candles: async (_symbol, interval, limit) => {
        asked.push(`${interval} ${limit}`);
        return series;
      },
      priceSource: 'simulated prices',
    });
    expect(asked).toEqual(['1m 152']);
    expect(result.trades.map((t) => t.signal_id)).toEqual(['1', '2']);
    expect(result).toMatchObject({
      rule_name: 'test',
      covers: '2 hours',
      price_source: 'simulated prices, 1m candles',
    });
    expect(result.note).toContain('The news stored here covers 2 hours; the backtest ran on all of it.');
  });

  it('holds the cooldown per asset, as the rules would, and says how many it left out', async () => {
    const t0 = 1_700_000_000_000;
    const series = candles(
      t0,
      Array.from({ length: 200 }, () => 100),
    );
    const at = (m: number) => completedSignal({ id: String(m), assets: ['SOL'], receivedAt: t0 + m * MIN });
    const result = await backtest({
      rule: rule(),
      holdMinutes: 5,
      cooldownMinutes: 15,
      now: t0 + 200 * MIN,
      signals: [at(1), at(3), at(10), at(17), at(40)],
      since: new Date(t0),
      candles: async () => series,
      priceSource: 'test prices',
    });
    expect(result.trades.map((t) => t.signal_id)).toEqual(['1', '17', '40']);
    expect(result).toMatchObject({ cooldown_minutes: 15, cooldown_skipped: 2 });
    expect(result.note).toContain(
      '2 matches within your 15 min cooldown per asset were left out, as the rules would.',
    );
  });

  it('says so when no news is stored, and never a period of 0.0', async () => {
    const result = await backtest({
      rule: rule(),
      holdMinutes: 30,
      now: 1_700_000_000_000,
      signals: [],
      since: null,
      candles: async () => [],
      priceSource: 'test prices',
    });
    expect(result.note).toContain('No news is stored here yet: there was nothing to replay.');
    expect(result.covers).toBe('less than a minute');
    expect([
      spanWords(45 * MIN),
      spanWords(60 * MIN),
      spanWords(26 * 60 * MIN),
      spanWords(30 * 86_400_000),
    ]).toEqual(['45 minutes', '1 hour', '26 hours', '30 days']);
  });
});
