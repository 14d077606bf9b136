import type { FastifyInstance } from 'fastify';
import type { EngineLog } from './rule-orders';

/**
 * Says whether rules' take profit and stop loss on live and demo accounts act in the app now (Binance's
 * prices reach this process): in the health answer, and in the log once at each change. Answers the
 * function to call whenever it may have changed.
 */
export function liveTriggersShown(
  liveActive: () => boolean,
  health: Pick<FastifyInstance['health'], 'report'>,
  log: Pick<EngineLog, 'info'>,
): () => void {
  let triggersShown: boolean | undefined;
  return () => {
    const on = liveActive();
    if (on === triggersShown) return;
    triggersShown = on;
    health.report('livePriceTriggers', on);
    log.info(
      { livePriceTriggers: on },
      on
        ? "rules' take profit and stop loss on live and demo accounts act on Binance's prices"
        : "rules' take profit and stop loss on live and demo accounts wait: no Binance prices here",
    );
  };
}
