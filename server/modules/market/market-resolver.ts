import type { Config } from '../../config';
import { SYMBOLS } from '../../../src/contracts/symbols';
import { BinanceSource } from './binance/binance-source';
import type { StreamLog } from './binance/stream';
import type { Clock } from './clock';
import { SimSource } from './sim/sim-source';
import type { MarketSource } from './source';

export type MarketConfig = Pick<
  Config,
  'MARKET_SOURCE' | 'BINANCE_FAPI_URL' | 'BINANCE_FSTREAM_URL' | 'MARKET_SIM_SEED' | 'MARKET_SIM_TICK_MS'
> &
  Partial<Pick<Config, 'MARKET_STALE_MS'>>;

export interface ResolveDeps {
  clock: Clock;
  log: StreamLog;
  /** How long auto mode waits for Binance's first frame. */
  probeMs?: number;
}

export function createSim(
  config: Pick<MarketConfig, 'MARKET_SIM_SEED' | 'MARKET_SIM_TICK_MS'>,
  clock: Clock,
): SimSource {
  return new SimSource({
    seed: config.MARKET_SIM_SEED,
    clock,
    tickMs: config.MARKET_SIM_TICK_MS,
    symbols: SYMBOLS.map((s) => s.symbol),
  });
}

/**
 * Picks the market source and starts Binance's (the simulator ticks only in the process that holds the
 * market feed: see `MarketService.lead`). `sim` and `binance` are taken as configured (a Binance that does
 * not answer keeps reconnecting, degraded); `auto` tries Binance for a few seconds, then falls back to
 * the simulator, and logs which it chose.
 */
export async function resolveMarketSource(config: MarketConfig, deps: ResolveDeps): Promise<MarketSource> {
  const { clock, log } = deps;
  if (config.MARKET_SOURCE === 'sim') {
    const sim = createSim(config, clock);
    log.info({ source: 'sim' }, 'market data: simulator (MARKET_SOURCE=sim)');
    return sim;
  }
  const binance = new BinanceSource({
    restUrl: config.BINANCE_FAPI_URL,
    streamUrl: config.BINANCE_FSTREAM_URL,
    clock,
    log,
    startTimeoutMs: deps.probeMs ?? 4_000,
    ...(config.MARKET_STALE_MS === undefined ? {} : { stream: { staleMs: config.MARKET_STALE_MS } }),
  });
  if (config.MARKET_SOURCE === 'binance') {
    binance.start().then(
      () => log.info({ source: 'binance' }, 'market data: Binance public feed'),
      (err: Error) => log.warn({ reason: err.message }, 'market data: Binance not answering yet; retrying'),
    );
    return binance;
  }
  try {
    await binance.start();
    log.info({ source: 'binance' }, 'market data: Binance public feed (MARKET_SOURCE=auto)');
    return binance;
  } catch (err) {
    await binance.stop();
    const sim = createSim(config, clock);
    log.warn(
      { source: 'sim', reason: (err as Error).message },
      'market data: Binance unreachable, using the simulator (MARKET_SOURCE=auto)',
    );
    return sim;
  }
}
