import { describe, expect, it } from 'vitest';
import { followFeed } from './feed';

describe('feed --follow back-off', () => {
  it('waits longer after each connection that brought nothing, and starts over after one that did', async () => {
    const controller = new AbortController();
    const waits: number[] = [];
    let calls = 0;
    const code = await followFeed({
      server: 'http://127.0.0.1:9',
      json: true,
      signal: controller.signal,
      write: () => undefined,
      // Three refusals, one stream with an event, one more refusal.
      fetch: () => {
        calls += 1;
        if (calls !== 4) return Promise.reject(new TypeError('fetch failed'));
        const body = `id: 7\nevent: status\ndata: {}\n\n`;
        return Promise.resolve(new Response(body, { headers: { 'content-type': 'text/event-stream' } }));
      },
      // Equal jitter with the random number fixed at 0.5: three quarters of each delay.
      random: () => 0.5,
      sleep: (ms) => {
        waits.push(ms);
        if (waits.length === 5) controller.abort();
        return Promise.resolve();
      },
    });
    expect(code).toBe(0);
    expect(waits).toEqual([750, 1_500, 3_000, 750, 1_500]);
  });
});
