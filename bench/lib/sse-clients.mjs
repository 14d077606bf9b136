// Opens COUNT server-sent-event clients to URL and measures, for every signal event, the time from
// the `[t=…]` stamp the ingester put in the content to its arrival (ms). Frames are scanned as bytes
// (no string decoding) so that the clients, which share the machine with the server, stay cheap.
// IPC: {cmd:'stats'} → {ready, events, dropped, analyzing, completed} (histograms in 0.05 ms buckets);
// {cmd:'reset'} clears the counters.
import net from 'node:net';

const url = process.env.URL;
const count = Number(process.env.COUNT);
const BUCKET = 0.05;
const STAMP = Buffer.from('[t=');
const STATUS = Buffer.from('"status":"');
const END = Buffer.from('\n\n');
let ready = 0;
let events = 0;
let dropped = 0;
const hist = { analyzing: new Map(), completed: new Map() };
const now = () => performance.timeOrigin + performance.now();

function number(buf, from) {
  let end = from;
  while (end < buf.length && buf[end] !== 93 /* ] */) end += 1;
  return Number(buf.toString('latin1', from, end));
}

/** Scans the complete frames in `buf`; returns the index after the last complete frame. */
function scan(buf) {
  const last = buf.lastIndexOf(END);
  if (last < 0) return 0;
  const arrived = now();
  let pos = 0;
  for (;;) {
    const at = buf.indexOf(STAMP, pos);
    if (at < 0 || at > last) break;
    const s = buf.indexOf(STATUS, at);
    const kind = s >= 0 && s < last && buf[s + STATUS.length] === 99 /* c */ ? 'completed' : 'analyzing';
    const ms = Math.max(0, arrived - number(buf, at + STAMP.length));
    const b = Math.round(ms / BUCKET);
    hist[kind].set(b, (hist[kind].get(b) ?? 0) + 1);
    events += 1;
    pos = at + STAMP.length;
  }
  return last + END.length;
}

/**
 * A raw TCP client speaking just enough HTTP/1.1 for an event stream: the request line, then every
 * byte is scanned for stamps (the chunked framing between frames never looks like one). This keeps
 * the 2,000 clients cheap enough to share two cores with the server.
 */
function open() {
  const target = new URL(url);
  const socket = net.connect(Number(target.port), target.hostname);
  let headersDone = false;
  let carry = null;
  socket.on('connect', () => {
    socket.write(
      `GET ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\nAccept: text/event-stream\r\n\r\n`,
    );
  });
  socket.on('data', (chunk) => {
    let buf = carry === null ? chunk : Buffer.concat([carry, chunk]);
    if (!headersDone) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        carry = buf;
        return;
      }
      headersDone = true;
      ready += 1;
      buf = buf.subarray(end + 4);
    }
    const used = scan(buf);
    carry = used >= buf.length ? null : buf.subarray(used);
  });
  socket.on('close', () => {
    dropped += 1;
  });
  socket.on('error', () => undefined);
}

for (let i = 0; i < count; i++) open();

process.on('message', (msg) => {
  if (msg.cmd === 'stats') {
    process.send({ ready, events, dropped, analyzing: [...hist.analyzing], completed: [...hist.completed] });
  } else if (msg.cmd === 'reset') {
    events = 0;
    hist.analyzing.clear();
    hist.completed.clear();
  } else if (msg.cmd === 'exit') {
    process.exit(0);
  }
});
