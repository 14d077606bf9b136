import { backoffMs } from '../src/contracts/backoff';
import { Signal, SignalList } from '../src/contracts/signals';
import { readEvents } from './sse';

/** One signal as a line: time, source, impact and sentiment, assets, the first 120 characters. */
export function signalLine(signal: Signal): string {
  const time = signal.received_at.slice(11, 19);
  const analysis =
    signal.analysis.status === 'completed'
      ? `${signal.analysis.impact_score.toFixed(0).padStart(3)} ${signal.analysis.nlp.sentiment}`
      : '  … analyzing';
  const assets = signal.assets.length > 0 ? signal.assets.map((a) => `$${a}`).join(' ') : 'GENERAL';
  const text = signal.content.replace(/\s+/g, ' ');
  return `${time}  ${signal.metadata.source_name}  ${analysis}  ${assets}  ${text.slice(0, 120)}`;
}

export interface FollowOptions {
  server: string;
  json: boolean;
  /** Stop after this many signal events (for scripts and tests); forever by default. */
  limit?: number;
  signal: AbortSignal;
  write(line: string): void;
  fetch?: typeof fetch;
  /** The first wait before reconnecting after the stream ends (1 s); it doubles up to 30 s while nothing arrives. */
  retryMs?: number;
  /** Waits between tries (setTimeout) and the back-off's randomness (Math.random); tests pass their own. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/**
 * `feed --follow`: streams GET /api/signals/stream and prints each signal as it comes (JSON lines with
 * `--json`). Reconnects with Last-Event-ID when the stream ends, until cancelled or `limit` is reached,
 * backing off (with jitter) while connections bring nothing.
 */
export async function followFeed(options: FollowOptions): Promise<number> {
  const doFetch = options.fetch ?? fetch;
  let seen = 0;
  let lastId: string | null = null;
  let emptyTries = 0;
  while (!options.signal.aborted) {
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (lastId !== null) headers['last-event-id'] = lastId;
      const response = await doFetch(`${options.server}/api/signals/stream`, {
        headers,
        signal: options.signal,
      });
      if (!response.ok || response.body === null) {
        options.write(`Stream refused: HTTP ${response.status}`);
        return 1;
      }
      for await (const event of readEvents(response.body)) {
        emptyTries = 0;
        if (event.id !== null) lastId = event.id;
        if (event.event !== 'signal') continue;
        const parsed = Signal.safeParse(JSON.parse(event.data));
        if (!parsed.success) continue;
        options.write(options.json ? JSON.stringify(parsed.data) : signalLine(parsed.data));
        seen += 1;
        if (options.limit !== undefined && seen >= options.limit) return 0;
      }
    } catch (error) {
      if (options.signal.aborted) return 0;
      options.write(`Stream lost (${error instanceof Error ? error.message : String(error)}); reconnecting…`);
    }
    const baseMs = options.retryMs ?? 1000;
    const wait = backoffMs(emptyTries, { baseMs, maxMs: 30_000, jitter: 'equal', random: options.random });
    emptyTries += 1;
    await (options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))))(wait);
  }
  return 0;
}

/** `feed` without `--follow` in the CLI: the latest signals from GET /api/signals. */
export async function listFeed(server: string, limit: number, json: boolean, write: (line: string) => void) {
  const response = await fetch(`${server}/api/signals?limit=${limit}`, {
    headers: { accept: 'application/json' },
  });
  if (!response.ok) {
    write(`Feed refused: HTTP ${response.status}`);
    return 1;
  }
  const signals = SignalList.parse(await response.json());
  if (json) write(JSON.stringify(signals));
  else for (const s of signals) write(signalLine(s));
  return 0;
}
