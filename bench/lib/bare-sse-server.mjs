// A bare node:http server-sent-event broadcaster: the baseline for /api/signals/stream. GET /stream
// keeps a client; POST /publish with a Signal as JSON writes it to every client twice, as the
// `analyzing` and the `completed` event, as our pipeline does for each signal.
import http from 'node:http';

const clients = new Set();
let id = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stream') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(`id: ${id}\nevent: status\ndata: {"connected":true}\n\n`);
    clients.add(res);
    res.on('close', () => clients.delete(res));
    return;
  }
  if (req.method === 'POST' && req.url === '/publish') {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.writeHead(202, { 'content-type': 'application/json' });
      res.end('{"accepted":1}');
      const signal = JSON.parse(body);
      const analyzing = { status: 'analyzing', impact_score: null, nlp: null };
      for (const analysis of [analyzing, signal.analysis]) {
        const frame = `id: ${++id}\nevent: signal\ndata: ${JSON.stringify({ ...signal, analysis })}\n\n`;
        for (const client of clients) client.write(frame);
      }
    });
    return;
  }
  res.writeHead(404);
  res.end();
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => {
  for (const c of clients) c.destroy();
  server.close(() => process.exit(0));
});
