import v8 from 'node:v8';

/** The V8 flag: WebAssembly compiled by the optimising compiler alone, not tiered up as it runs. */
export const WASM_TIERING_FLAG = '--no-wasm-dynamic-tiering';

/**
 * The embedded database is WebAssembly. By default V8 compiles it with its quick baseline compiler and
 * recompiles a function with the optimising one only once it has run a while, so the first headline
 * after a start ran the database's statements in slower code (its thirty positions 15-20 ms behind the
 * next headline's, in the news-to-order bench). After this, a database opened in this process is compiled
 * optimised from the start: ~0.7 s more to start and ~2 s more CPU, once. V8's flags are the process's:
 * called by the server's entry point through `tuneProcess` (and by the bench that runs the server in its
 * own process), before the database is opened, never by a library.
 */
export function compileWasmOptimised(): void {
  v8.setFlagsFromString(WASM_TIERING_FLAG);
}
