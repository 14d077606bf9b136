#!/usr/bin/env node
// The `signal-console` command: loads tsx so Node 20 runs the TypeScript CLI (bin/cli.ts) as is.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./cli.ts');
process.exitCode = await main(process.argv.slice(2));
