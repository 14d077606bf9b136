import type { AnalysisInput, AnalysisResult } from '../../../src/contracts/analysis';
import type { Config } from '../../config';
import { analyzeWithLlm, PROMPT_VERSION } from './llm-analyzer';
import { DEFAULT_LLM_OPTIONS, LlmClient, LlmError, type LlmOptions } from './llm-client';
import { createLocalAnalyzer, loadWeights } from './local-analyzer';
import type { ModelWeights } from './model';

/**
 * The analysis module's one entry point for the news pipeline: `createAnalyzer(config)` gives the
 * engine chosen by `ANALYZER`. `llm` always runs the local engine as well: its result is the fallback
 * when the endpoint fails (engine `local-fallback`) and the check that flags a disagreement.
 */
export interface Analyzer {
  kind: 'local' | 'llm';
  analyze(input: AnalysisInput): Promise<AnalysisResult>;
  /**
   * Runs the local analysis over these inputs and drops the results (never the LLM): done at start, so
   * that the first real item runs compiled code and compiled patterns.
   */
  rehearse(inputs: readonly AnalysisInput[]): void;
  /**
   * What is wrong with the engine, for the health check: the LLM's last answer failed and news is
   * analysed locally until it answers again. Null when it works (always for `local`).
   */
  problem(): string | null;
  close(): Promise<void>;
}

/** The subset of a pino logger the analyzer writes to. */
export interface AnalysisLog {
  warn(obj: Record<string, unknown>, msg: string): void;
}

export interface AnalyzerDeps {
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  log?: AnalysisLog;
  /** Overrides of the LLM client's timeout, retries, back-off and concurrency. */
  llm?: Partial<Omit<LlmOptions, 'baseUrl' | 'apiKey' | 'model'>>;
  weights?: ModelWeights;
}

export type AnalyzerConfig = Pick<Config, 'ANALYZER' | 'LLM_BASE_URL' | 'LLM_API_KEY' | 'LLM_MODEL'> &
  Partial<Pick<Config, 'LLM_TIMEOUT_MS'>>;

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createAnalyzer(config: AnalyzerConfig, deps: AnalyzerDeps = {}): Analyzer {
  const local = createLocalAnalyzer(deps.weights ?? loadWeights());
  const rehearse = (inputs: readonly AnalysisInput[]) => {
    for (const input of inputs) local.analyze(input);
  };
  if (config.ANALYZER === 'local') {
    return {
      kind: 'local',
      rehearse,
      analyze: (input) => Promise.resolve(local.analyze(input)),
      problem: () => null,
      close: () => Promise.resolve(),
    };
  }
  if (!config.LLM_BASE_URL || !config.LLM_MODEL) {
    throw new Error(
      'ANALYZER=llm needs LLM_BASE_URL and LLM_MODEL (LLM_API_KEY when the endpoint asks for one)',
    );
  }
  const client = new LlmClient(
    {
      ...DEFAULT_LLM_OPTIONS,
      ...(config.LLM_TIMEOUT_MS === undefined ? {} : { timeoutMs: config.LLM_TIMEOUT_MS }),
      ...deps.llm,
      baseUrl: config.LLM_BASE_URL,
      apiKey: config.LLM_API_KEY,
      model: config.LLM_MODEL,
    },
    {
      fetch: deps.fetch ?? globalThis.fetch,
      sleep: deps.sleep ?? realSleep,
      random: deps.random ?? Math.random,
    },
  );
  // The last completed request's outcome: a failure stands until a later request succeeds.
  let problem: string | null = null;
  return {
    kind: 'llm',
    // The local analysis is the LLM's fallback and its second opinion: it runs on every item too.
    rehearse,
    problem: () => problem,
    async analyze(input) {
      const fallback = local.analyze(input);
      try {
        const llm = await analyzeWithLlm(client, input);
        problem = null;
        const disagreement = llm.sentiment !== fallback.sentiment || llm.asset !== fallback.asset;
        return { ...llm, engine: 'llm', engine_version: PROMPT_VERSION, disagreement };
      } catch (err) {
        const e = err instanceof LlmError ? err : null;
        problem = problemOf(e);
        deps.log?.warn(
          {
            status: e?.status ?? null,
            code: e?.code ?? null,
            err: err instanceof Error ? err.message : String(err),
          },
          'LLM analysis failed; using the local result',
        );
        return { ...fallback, engine: 'local-fallback' };
      }
    },
    close() {
      client.close();
      return Promise.resolve();
    },
  };
}

/** The health check's phrase for a failed LLM request. */
function problemOf(e: LlmError | null): string {
  if (e === null) return 'AI analyzer answered off-schema: local fallback';
  if (e.status === 429) return 'AI analyzer rate-limited: local fallback';
  if (e.status === 401 || e.status === 403) return 'AI analyzer refuses the API key: local fallback';
  if (e.status !== null) return `AI analyzer answering ${e.status}: local fallback`;
  return 'AI analyzer not answering: local fallback';
}
