// A bare `ws` price broadcaster: the baseline for /api/ws/prices. Same ticks (120 symbols, a random walk
// every TICK_MS), same coalescing window (FLUSH_MS), same frame shape, one serialised frame per
// distinct subscription; nothing else (no framework, no validation, no bus).
import { WebSocketServer } from 'ws';

const TICK_MS = Number(process.env.TICK_MS ?? 100);
const FLUSH_MS = Number(process.env.FLUSH_MS ?? 250);
const SYMBOLS = (process.env.SYMBOLS ?? '').split(',').filter(Boolean);
const prices = new Map(SYMBOLS.map((s, i) => [s, 100 + i]));
const latest = new Map();
let dirty = new Set();
const clients = new Map();

const wss = new WebSocketServer({ host: '127.0.0.1', port: Number(process.env.PORT), maxPayload: 64 * 1024 });
wss.on('connection', (ws) => {
  clients.set(ws, { key: '', symbols: new Set() });
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString());
    const c = clients.get(ws);
    if (msg.op === 'subscribe' && c) {
      for (const s of msg.symbols) c.symbols.add(s);
      c.key = [...c.symbols].sort().join(',');
    }
  });
  ws.on('close', () => clients.delete(ws));
});

setInterval(() => {
  const t = Date.now();
  for (const [s, p] of prices) {
    const next = p * Math.exp(0.0005 * (Math.random() - 0.5));
    prices.set(s, next);
    latest.set(s, { s, p: Number(next.toPrecision(6)), t });
    dirty.add(s);
  }
}, TICK_MS);

setInterval(() => {
  if (dirty.size === 0) return;
  const changed = dirty;
  dirty = new Set();
  const t = Date.now();
  const frames = new Map();
  for (const [ws, c] of clients) {
    if (ws.bufferedAmount > 1024 * 1024) {
      ws.terminate();
      clients.delete(ws);
      continue;
    }
    let frame = frames.get(c.key);
    if (frame === undefined) {
      const data = [...c.symbols].filter((s) => changed.has(s)).map((s) => latest.get(s));
      frame = data.length === 0 ? null : JSON.stringify({ type: 'prices', t, data });
      frames.set(c.key, frame);
    }
    if (frame !== null) ws.send(frame);
  }
}, FLUSH_MS);

wss.on('listening', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => wss.close(() => process.exit(0)));
