import type { Signal } from '../../../contracts/signals';
import type { Disposer } from '../../clock';
import type { SignalStreamPort, StreamHandlers } from '../signalChannel';

/** A signal as the server sends it: analyzing unless `analysis` says otherwise. */
export function makeSignal(id: number | string, overrides: Partial<Signal> = {}): Signal {
  const key = String(id);
  return {
    id: key,
    signal_id: key,
    asset: null,
    assets: [],
    content: `News item ${key}`,
    metadata: {
      url: `https://news.example/${key}`,
      icon: '/api/news/assets/icons/wire.svg',
      source_name: 'Blockwire News',
      username: 'blockwire',
      media_urls: [],
    },
    quote_data: null,
    analysis: { status: 'analyzing', impact_score: null, nlp: null },
    event_type: null,
    initial_prices: {},
    source: 'replay',
    published_at: null,
    received_at: new Date(Date.UTC(2026, 0, 1, 12, 0, Number(key) % 60)).toISOString(),
    also_reported_by: [],
    ...overrides,
  };
}

/** The completed copy of a signal: its asset(s), sentiment and impact. */
export function completed(
  s: Signal,
  sentiment: 'positive' | 'negative' | 'neutral',
  impact: number,
  assets: string[] = s.assets,
  initialPrices: Record<string, number> = {},
): Signal {
  return {
    ...s,
    asset: assets[0] ?? null,
    assets,
    initial_prices: initialPrices,
    analysis: {
      status: 'completed',
      impact_score: impact,
      nlp: { sentiment, reasoning: `Because of ${s.content}.` },
      engine: 'local',
    },
  };
}

/** A stream transport the test drives: `emit` frames, `open`/`drop` the connection. */
export function fakeStream() {
  let handlers: StreamHandlers | null = null;
  const urls: string[] = [];
  let disconnects = 0;
  const port: SignalStreamPort = {
    connect(url, h): Disposer {
      urls.push(url);
      handlers = h;
      return () => {
        disconnects += 1;
        handlers = null;
      };
    },
  };
  const need = (): StreamHandlers => {
    if (handlers === null) throw new Error('the stream is not connected');
    return handlers;
  };
  return {
    port,
    urls,
    connected: () => handlers !== null,
    disconnects: () => disconnects,
    open: () => need().open(),
    drop: () => need().error(),
    status: () =>
      need().message(
        'status',
        JSON.stringify({ connected: true, sources: [], analyzer: 'local', heartbeat_ms: 15000, resumed: 0 }),
      ),
    signal: (s: Signal) => need().message('signal', JSON.stringify(s)),
    raw: (event: string, data: string) => need().message(event, data),
  };
}
