/**
 * The soak's crowd in a process of its own (`node --import tsx`), so that the load generator neither
 * shares an event loop with the test runner nor slows it: started with its options as JSON in
 * CROWD_OPTIONS, it runs until it is sent `{cmd: 'stop'}`, then answers its figures once every client
 * has left, and exits.
 */
import { Api } from './api';
import { Crowd, CrowdStats, figuresOf, ReferenceStream, type CrowdProcessOptions } from './crowd';

async function main(): Promise<void> {
  const o = JSON.parse(process.env.CROWD_OPTIONS ?? '') as CrowdProcessOptions;
  const users = o.tokens.map((token) => {
    const api = new Api(o.base);
    api.token = token;
    return api;
  });
  const stats = new CrowdStats();
  const reference = new ReferenceStream();
  await reference.open(o.base);
  const crowd = new Crowd({ ...o, users, stats }, reference);
  crowd.start(o.rampMs);
  process.send?.({ type: 'started' });
  process.on('message', (m: { cmd: string }) => {
    if (m.cmd === 'stop') {
      void crowd.stop().then(() => {
        reference.close();
        process.send?.({ type: 'done', figures: figuresOf(stats, 0, reference.bytes) }, () =>
          process.exit(0),
        );
      });
    }
  });
}

await main();
