// Creates an embedded database folder (PGlite's initdb) and exits. Run in a worker thread by
// server/db/client.ts: WebAssembly memory never shrinks, and initdb grows PGlite's heap to ~700 MB that an
// already created folder never needs; the worker's heap goes away with it.
import { workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

const db = new PGlite(workerData.dataDir);
await db.waitReady;
await db.close();
