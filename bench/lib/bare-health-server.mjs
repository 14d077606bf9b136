// A bare node:http server answering the same JSON body as /api/healthz: the baseline for our stack.
import http from 'node:http';

const body = process.env.BODY ?? '{}';
const server = http.createServer((req, res) => {
  if (req.url === '/api/healthz') {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
    res.end(body);
  } else {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"detail":"Not Found"}');
  }
});
server.keepAliveTimeout = 72_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
