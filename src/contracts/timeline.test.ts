import { describe, expect, it } from 'vitest';
import { decisionReceipt, formatSpan, newsStartMs, publishedMs, signalStages } from './timeline';

const at = (ms: number) => new Date(ms).toISOString();
const T = Date.UTC(2026, 2, 5, 14, 0, 0);

describe('headline age', () => {
  it('runs from the earlier of publication and receipt', () => {
    expect(newsStartMs(at(T - 600_000), at(T))).toBe(T - 600_000);
    expect(newsStartMs(null, at(T))).toBe(T);
    // A few seconds ahead is a clock's drift: the receipt is the earlier one.
    expect(newsStartMs(at(T + 3000), at(T))).toBe(T);
  });

  it('treats a publication time more than 5 s in the future, or unreadable, as unknown', () => {
    expect(publishedMs(at(T + 5000), T)).toBe(T + 5000);
    expect(publishedMs(at(T + 5001), T)).toBeNull();
    expect(publishedMs('not a time', T)).toBeNull();
    expect(newsStartMs(at(T + 3_600_000), at(T))).toBe(T);
  });

  it('formats spans as a trader reads them', () => {
    expect([3, 999, 1200, 12_400, 720_000, 3 * 3_600_000, 2 * 86_400_000].map(formatSpan)).toEqual([
      '3 ms',
      '999 ms',
      '1.2 s',
      '12 s',
      '12 min',
      '3.0 h',
      '2 d',
    ]);
  });
});

describe('receipts', () => {
  it("gives a signal's stages in ms, to the moment it reached this client", () => {
    const stages = signalStages(
      { published_at: at(T - 1200), received_at: at(T), analysed_at: at(T + 3), sent_at: at(T + 4) },
      T + 16,
    );
    expect(stages).toEqual([
      { name: 'published → received', ms: 1200 },
      { name: 'received → analysed', ms: 3 },
      { name: 'analysed → sent', ms: 1 },
      { name: 'sent → reached you', ms: 12 },
    ]);
  });

  it("says a decision's time after the news in parts that add up, naming the venue", () => {
    const timeline = {
      published_at: null,
      received_at: at(T),
      analysed_at: at(T + 3),
      decided_at: at(T + 3),
      sent_at: at(T + 4),
      acked_at: at(T + 43),
    };
    expect(decisionReceipt(timeline, 'binance')).toBe(
      '43 ms after the news: analysed 3, decided 1, Binance 39',
    );
    // The venue's call apart from ours, and what OKX says it spent itself.
    expect(decisionReceipt({ ...timeline, venue_ms: 35, venue_own_ms: 1.46 }, 'okx')).toBe(
      '43 ms after the news: analysed 3, decided 1, ours 4, OKX 35 (its own 1.5)',
    );
    expect(decisionReceipt({ ...timeline, venue_ms: 30, venue_own_ms: null }, 'bybit')).toBe(
      '43 ms after the news: analysed 3, decided 1, ours 9, Bybit 30',
    );
    // A venue time longer than send → ack (clocks of two processes) is not split.
    expect(decisionReceipt({ ...timeline, venue_ms: 50 }, 'bybit')).toBe(
      '43 ms after the news: analysed 3, decided 1, Bybit 39',
    );
    expect(decisionReceipt(timeline, 'paper')).toBe('43 ms after the news: analysed 3, decided 1, paper 39');
    expect(decisionReceipt({ ...timeline, acked_at: null }, 'paper')).toBeNull();
  });
});
