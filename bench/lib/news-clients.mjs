// The clients of the news-to-order bench, in a process of their own so that the server's work never
// delays what they see: one SSE reader on the signal stream, one positions socket per user, and the
// webhook poster. Driven over IPC by bench/news-to-order.bench.ts; every time is epoch milliseconds.
import { WebSocket } from 'ws';

const now = () => performance.timeOrigin + performance.now();
/** Signal id → when its completed card arrived. */
const completed = new Map();
/**
 * [user index, symbol, when a snapshot first held a position on it, when the server sent that snapshot
 * (its `time`, whole milliseconds)].
 */
const held = [];
/**
 * Frames as they arrive: [user index, when, the frame, the symbols that socket has seen]. Each is read
 * only once the frames that arrived with it have their times: thirty traders are thirty browsers, and
 * one process reading thirty snapshots in turn would count the reading of the first twenty-nine in the
 * last one's time.
 */
const arrived = [];
let reading = false;
function readArrived() {
  reading = false;
  for (const [index, at, text, seen] of arrived.splice(0)) {
    const msg = JSON.parse(text);
    if (msg.type !== 'snapshot') continue;
    for (const p of msg.positions) {
      const symbol = p.symbol.replace('/', '');
      if (seen.has(symbol)) continue;
      seen.add(symbol);
      held.push([index, symbol, at, msg.time]);
    }
  }
}
const sockets = [];
const abort = new AbortController();

async function readStream(base) {
  const res = await fetch(`${base}/api/signals/stream`, { signal: abort.signal });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const at = now();
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (!frame.includes('event: signal') || data === undefined) continue;
      const signal = JSON.parse(data);
      if (signal.analysis.status === 'completed' && !completed.has(signal.id)) completed.set(signal.id, at);
    }
  }
}

async function openPositions(base, token, index) {
  const res = await fetch(`${base}/api/ws/ticket`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  if (!res.ok) throw new Error(`ticket ${res.status}`);
  const { ticket } = await res.json();
  const ws = new WebSocket(`${base.replace('http', 'ws')}/api/ws/positions?ticket=${ticket}`);
  const seen = new Set();
  ws.on('message', (data) => {
    arrived.push([index, now(), data, seen]);
    if (reading) return;
    reading = true;
    setImmediate(readArrived);
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  sockets.push(ws);
}

process.on('message', async (msg) => {
  try {
    if (msg.cmd === 'connect') {
      void readStream(msg.base).catch(() => undefined);
      for (const [i, token] of msg.tokens.entries()) await openPositions(msg.base, token, i);
      process.send({ cmd: 'connected' });
    } else if (msg.cmd === 'post') {
      const at = now();
      const res = await fetch(`${msg.base}/api/signals/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${msg.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          content: msg.content,
          source_name: 'Bench Wire',
          external_id: msg.externalId,
        }),
      });
      const answered = now();
      const body = await res.json();
      process.send({ cmd: 'posted', at, answered, status: res.status, result: body.results?.[0] ?? null });
    } else if (msg.cmd === 'stats') {
      readArrived();
      process.send({ cmd: 'stats', completed: [...completed], held });
    } else if (msg.cmd === 'exit') {
      abort.abort();
      for (const ws of sockets) ws.terminate();
      process.exit(0);
    }
  } catch (err) {
    process.send({ cmd: 'error', detail: String(err) });
  }
});
