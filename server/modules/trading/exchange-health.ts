/** What one call to the exchange came to, as far as the exchange's own health goes. */
export type ExchangeAnswer =
  /** A 2xx: the exchange works. */
  | { kind: 'answered' }
  /** A 4xx refusal (unknown order, margin): it answered, which says nothing about an earlier 5xx. */
  | { kind: 'refused' }
  | { kind: 'rate-limited'; status: 429 | 418; untilMs: number }
  | { kind: 'server-error'; status: number }
  | { kind: 'no-answer' };

/** How long a 5xx or a call without an answer keeps the exchange marked degraded without a later answer. */
export const EXCHANGE_TROUBLE_MS = 30_000;

/**
 * The exchange's state as its signed clients last saw it, for the health check: rate-limited until its
 * Retry-After has passed, answering 5xx or not answering for {@link EXCHANGE_TROUBLE_MS} after the last
 * such call unless a call succeeded since. A refusal (4xx) changes nothing: the look-up of an order that a
 * 5xx lost answers "does not exist" from a working part of the exchange.
 */
export class ExchangeHealth {
  private limitedUntil = 0;
  private limitedStatus: 429 | 418 = 429;
  private trouble: { at: number; text: string } | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  record(answer: ExchangeAnswer): void {
    switch (answer.kind) {
      case 'answered':
        this.trouble = null;
        return;
      case 'refused':
        return;
      case 'rate-limited':
        this.limitedUntil = Math.max(this.limitedUntil, answer.untilMs);
        this.limitedStatus = answer.status;
        return;
      case 'server-error':
        this.trouble = { at: this.now(), text: `exchange answering ${answer.status} errors` };
        return;
      case 'no-answer':
        this.trouble = { at: this.now(), text: 'exchange not answering' };
    }
  }

  problem(): string | null {
    const now = this.now();
    if (this.limitedUntil > now) {
      const s = Math.ceil((this.limitedUntil - now) / 1000);
      return this.limitedStatus === 418
        ? `exchange banned this server for ${s} s (418)`
        : `exchange rate-limited for ${s} s (429)`;
    }
    if (this.trouble !== null && now - this.trouble.at < EXCHANGE_TROUBLE_MS) return this.trouble.text;
    return null;
  }
}
