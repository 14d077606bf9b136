import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { SYMBOLS } from '../../src/contracts/symbols';
import type { Config } from '../config';
import type { Database } from '../db/client';
import type { Analyzer } from '../modules/analysis/analysis.service';
import type { PaperExchange } from '../modules/trading/paper/paper-exchange';
import { rehearseDecisionStatements } from './decision-statements';
import { keepTextPathsWarm } from './gc-rewarm';
import { rehearseOrderStatements } from './order-statements';
import { rehearseSignalStatements } from './signal-statements';
import { rehearseTextPaths } from './text-paths';
import { compileWasmOptimised } from './wasm-tiering';

declare module 'fastify' {
  interface FastifyInstance {
    /** Which of the speed tunings apply in this app (server/warm/). */
    speedTuning: SpeedTuning;
  }
}

/** Where a tuning applies: in front of PGlite alone (its reason is PGlite's), or whatever the database. */
type Where = Database['driver'] | 'any';

/**
 * The server's speed tunings: work done ahead, or a library's default bypassed, so that the first
 * headline after a start (or after a quiet spell) reaches its card and its orders as fast as the next
 * one. None of them changes an answer. Each cost was measured on the news-to-order bench on the
 * embedded database (`npm run bench -- news-to-order`); a tuning whose reason is PGlite's applies in
 * front of PGlite only. The canary tests beside them (`*.test.ts` here; the paper order path's in
 * tests/integration/paper-exchange.test.ts) fail when an upgrade of PGlite, drizzle, Node or V8 takes
 * away what a tuning relies on: then it is stale, and `SPEED_TUNING=off` runs the server without any.
 *
 * Each entry: where it applies, when it runs, and what it saves.
 */
export const TUNINGS = {
  /** wasm-tiering.ts, by the entry point (server/main.ts) before the database opens. */
  'wasm-optimised': {
    where: 'pglite',
    when: 'once, before PGlite compiles',
    saves:
      "the first headline's thirty positions 15-20 ms behind the next one's, V8 running PGlite's WebAssembly in baseline code (costs ~0.7 s of start and ~2 s of CPU, once)",
  },
  /** pglite-parsers.ts, by openDatabase. */
  'pglite-parsers': {
    where: 'pglite',
    when: 'every statement',
    saves:
      '~125 µs a statement: PGlite merged the parsers drizzle passes with each one into a copy of its 318-type table',
  },
  /** statement-rehearsal.ts with signal-, decision- and order-statements.ts, by the news, rules and trading modules. */
  'statement-rehearsals': {
    where: 'pglite',
    when: 'once, at start',
    saves:
      "~8 ms of the first headline's decision claim, ~8 ms of its risk checks and ~2 ms of its ledger rows, PGlite opening their tables, planning their foreign-key checks and compiling the code they run",
  },
  /** text-paths.ts, by the news module. */
  'text-rehearsal': {
    where: 'any',
    when: 'once, at start',
    saves:
      "~25 ms in front of the first headline's card and orders, V8 compiling the text paths' patterns and optimising their code (~2 ms of it the webhook body's schema)",
  },
  /** gc-rewarm.ts, by the news module. */
  'text-kept-warm': {
    where: 'any',
    when: 'after each full collection no headline preceded',
    saves:
      "~7 ms (instead of ~0.3) of the first analysis after a quiet spell, V8 having dropped the patterns' code after a few full collections",
  },
  /** order-path.ts, through PaperExchange.rehearse (it lends the exchange's own prices and fees), by the trading module. */
  'order-path-rehearsal': {
    where: 'any',
    when: 'once, at start',
    saves:
      "part of what the first headline's orders paid beyond the text paths' ~25 ms (not measured apart), V8 optimising the paper exchange's sizing, fills and socket frames on them",
  },
} as const satisfies Record<string, { where: Where; when: string; saves: string }>;

export type TuningName = keyof typeof TUNINGS;

/** The tunings that apply in one process, from the one switch and the database it runs on. */
export interface SpeedTuning {
  /** SPEED_TUNING: off turns every tuning off. */
  readonly on: boolean;
  readonly applied: readonly TuningName[];
  applies(name: TuningName): boolean;
}

export function speedTuning(setting: Config['SPEED_TUNING'], driver: Database['driver']): SpeedTuning {
  const names = Object.keys(TUNINGS) as TuningName[];
  const applied =
    setting === 'off'
      ? []
      : names.filter((name) => {
          const where: Where = TUNINGS[name].where;
          return where === 'any' || where === driver;
        });
  return { on: setting === 'on', applied, applies: (name) => applied.includes(name) };
}

/** The database the configuration names, before it is opened. */
export const configuredDriver = (config: Pick<Config, 'DATABASE_URL'>): Database['driver'] =>
  config.DATABASE_URL ? 'postgres' : 'pglite';

/**
 * The tunings that are the process's (V8's flags): by the server's entry point, before the app opens
 * the database, never by a library or a test's app.
 */
export function tuneProcess(config: Pick<Config, 'SPEED_TUNING' | 'DATABASE_URL'>): void {
  if (speedTuning(config.SPEED_TUNING, configuredDriver(config)).applies('wasm-optimised')) {
    compileWasmOptimised();
  }
}

type WarmLog = Pick<FastifyBaseLogger, 'debug' | 'warn'>;

/** At the news module's start: the text paths, then the signal store's statements. */
export async function warmNews(
  app: FastifyInstance,
  analyzer: Pick<Analyzer, 'rehearse'>,
  log: WarmLog,
): Promise<void> {
  if (app.speedTuning.applies('text-rehearsal')) {
    log.debug({ ms: Math.round(rehearseTextPaths(analyzer)) }, 'text paths rehearsed');
  }
  if (app.speedTuning.applies('statement-rehearsals')) {
    log.debug(
      { ms: Math.round(await rehearseSignalStatements(app.database.db, log)) },
      'signal statements rehearsed',
    );
  }
}

/**
 * The news module's text paths kept compiled through quiet spells; `used()` grows with every headline
 * admitted or analysed. Answers the disposer.
 */
export function keepNewsWarm(
  app: FastifyInstance,
  analyzer: Pick<Analyzer, 'rehearse'>,
  used: () => number,
): () => void {
  return app.speedTuning.applies('text-kept-warm') ? keepTextPathsWarm(analyzer, used) : () => undefined;
}

/** At the rules module's start: the ledger statements of a headline's decisions. */
export async function warmRules(app: FastifyInstance, log: WarmLog): Promise<void> {
  if (app.speedTuning.applies('statement-rehearsals')) {
    log.debug(
      { ms: Math.round(await rehearseDecisionStatements(app.database.db, log)) },
      'decision statements rehearsed',
    );
  }
}

/** At the trading module's start: the paper order path in memory, then the orders' statements. */
export async function warmTrading(
  app: FastifyInstance,
  paper: Pick<PaperExchange, 'rehearse'>,
  log: WarmLog,
): Promise<void> {
  if (app.speedTuning.applies('order-path-rehearsal')) {
    log.debug(
      { ms: Math.round(paper.rehearse(SYMBOLS.slice(0, 10).map((s) => s.symbol))) },
      'order path rehearsed',
    );
  }
  if (app.speedTuning.applies('statement-rehearsals')) {
    log.debug(
      { ms: Math.round(await rehearseOrderStatements(app.database.db, log)) },
      'order statements rehearsed',
    );
  }
}
