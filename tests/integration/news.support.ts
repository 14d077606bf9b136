import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { BusEventMap } from '../../src/contracts/events';
import { Signal, StreamStatus } from '../../src/contracts/signals';

export const TOKEN = 'test-ingest-token-1234567890';

export interface SseFrame {
  id: string | null;
  event: string;
  data: string;
  at: number;
}

/** A server-sent-events client on node:http that keeps every frame and comment it receives. */
export interface SseClient {
  frames: SseFrame[];
  comments: string[];
  res: http.IncomingMessage;
  ended: Promise<void>;
  signals(): Signal[];
  statuses(): StreamStatus[];
  waitFor(pred: (frames: SseFrame[]) => boolean, ms?: number): Promise<void>;
  close(): void;
}

export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      url,
      { headers: { accept: 'text/event-stream', ...headers }, agent: false },
      (res) => {
        const frames: SseFrame[] = [];
        const comments: string[] = [];
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const frame: SseFrame = { id: null, event: 'message', data: '', at: Date.now() };
            let isFrame = false;
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) comments.push(line.slice(1).trim());
              else if (line.startsWith('id: ')) frame.id = line.slice(4);
              else if (line.startsWith('event: ')) frame.event = line.slice(7);
              else if (line.startsWith('data: ')) {
                frame.data += line.slice(6);
                isFrame = true;
              }
            }
            if (isFrame) frames.push(frame);
          }
        });
        const ended = new Promise<void>((done) => {
          res.on('end', done);
          res.on('close', done);
          res.on('error', () => done());
        });
        resolve({
          frames,
          comments,
          res,
          ended,
          signals: () =>
            frames.filter((f) => f.event === 'signal').map((f) => Signal.parse(JSON.parse(f.data))),
          statuses: () =>
            frames.filter((f) => f.event === 'status').map((f) => StreamStatus.parse(JSON.parse(f.data))),
          async waitFor(pred, ms = 10_000) {
            const deadline = Date.now() + ms;
            while (!pred(frames)) {
              if (Date.now() > deadline)
                throw new Error(`timed out; frames: ${JSON.stringify(frames.map((f) => f.event))}`);
              await new Promise((r) => setTimeout(r, 10));
            }
          },
          close: () => {
            req.destroy();
          },
        });
      },
    );
    req.on('error', reject);
  });
}

/** Posts items to the webhook through inject. */
export async function ingest(app: FastifyInstance, body: unknown, token = TOKEN) {
  return app.inject({
    method: 'POST',
    url: '/api/signals/ingest',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

/** Collects every `signal.published` event of the app's bus. */
export function collectPublished(app: FastifyInstance) {
  const events: BusEventMap['signal.published'][] = [];
  const dispose = app.bus.subscribe('signal.published', (e) => {
    events.push(e);
  });
  return {
    events,
    dispose,
    async waitFor(pred: () => boolean, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (!pred()) {
        if (Date.now() > deadline) throw new Error('timed out waiting for published signals');
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
}

export function item(content: string, extra: Record<string, unknown> = {}) {
  return { content, source_name: 'Test Wire', ...extra };
}
