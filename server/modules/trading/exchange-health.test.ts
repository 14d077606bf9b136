import { describe, expect, it } from 'vitest';
import { EXCHANGE_TROUBLE_MS, ExchangeHealth } from './exchange-health';

describe('ExchangeHealth', () => {
  it('says rate-limited until Retry-After has passed, with the seconds left and the status', () => {
    let now = 1_000_000;
    const h = new ExchangeHealth(() => now);
    expect(h.problem()).toBeNull();
    h.record({ kind: 'rate-limited', status: 429, untilMs: now + 2_500 });
    expect(h.problem()).toBe('exchange rate-limited for 3 s (429)');
    h.record({ kind: 'answered' });
    expect(h.problem(), 'an answer does not lift a ban').toBe('exchange rate-limited for 3 s (429)');
    now += 2_500;
    expect(h.problem()).toBeNull();
    h.record({ kind: 'rate-limited', status: 418, untilMs: now + 60_000 });
    expect(h.problem()).toBe('exchange banned this server for 60 s (418)');
  });

  it('keeps a 5xx or a missing answer until a success or the trouble window ends; refusals change nothing', () => {
    let now = 5_000_000;
    const h = new ExchangeHealth(() => now);
    h.record({ kind: 'server-error', status: 502 });
    expect(h.problem()).toBe('exchange answering 502 errors');
    h.record({ kind: 'refused' });
    expect(h.problem()).toBe('exchange answering 502 errors');
    h.record({ kind: 'answered' });
    expect(h.problem()).toBeNull();
    h.record({ kind: 'no-answer' });
    expect(h.problem()).toBe('exchange not answering');
    now += EXCHANGE_TROUBLE_MS;
    expect(h.problem()).toBeNull();
  });
});
