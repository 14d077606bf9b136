import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { loggerOptions, redactUrl } from '../../server/logger';

describe('log redaction', () => {
  it('logs the names of query parameters, never their values', () => {
    expect(redactUrl('/api/ws/positions?token=eyJabc&x=1')).toBe('/api/ws/positions?token=…&x=…');
    expect(redactUrl('/reset-password?token=t0k3n')).not.toContain('t0k3n');
    expect(redactUrl('/api/news/image?url=https%3A%2F%2Fcdn.example%2Fa.png%3Fsig%3Dabc')).toBe(
      '/api/news/image?url=…',
    );
    expect(redactUrl('/api/klines?symbol=BTCUSDT&symbol=ETHUSDT')).toBe('/api/klines?symbol=…');
    expect(redactUrl('/api/healthz?')).toBe('/api/healthz');
    expect(redactUrl('/api/healthz')).toBe('/api/healthz');
  });

  it('keeps passwords, tokens and cookies out of request logs', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const opts = loggerOptions({ LOG_LEVEL: 'info', NODE_ENV: 'production' });
    const app = Fastify({ logger: { ...(opts as object), stream } });
    app.post('/login', async (req) => {
      req.log.info({ body: req.body, headers: req.headers }, 'login attempt');
      return { ok: true };
    });
    await app.inject({
      method: 'POST',
      url: '/login?token=querysecret',
      headers: { authorization: 'Bearer headersecret', cookie: 'refresh=cookiesecret' },
      payload: { username: 'ada', password: 'hunter2hunter2', new_password: 'newsecret1' },
    });
    await app.close();
    const all = lines.join('\n');
    expect(all).toContain('login attempt');
    // The request's child logger carries the request id.
    expect(lines.find((l) => l.includes('login attempt'))).toMatch(/"reqId":"req-\d+"/);
    expect(all).toContain('ada');
    for (const secret of ['querysecret', 'headersecret', 'cookiesecret', 'hunter2hunter2', 'newsecret1']) {
      expect(all).not.toContain(secret);
    }
  });
});
