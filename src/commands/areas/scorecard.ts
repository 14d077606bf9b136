import { z } from 'zod';
import { SCORECARD_DEFAULT_DAYS, SCORECARD_MAX_DAYS } from '../../contracts/scorecard';
import { loadScorecard } from '../../services/scorecard/scorecard';
import { scorecardLines } from '../../services/scorecard/table';
import { failure } from '../../services/terminal/output';
import { defineCommand } from '../types';

const DAYS_ERROR = `The days are a whole number from 1 to ${SCORECARD_MAX_DAYS}.`;

export const scorecard = defineCommand({
  name: 'scorecard',
  area: 'feed',
  summary:
    "How well the signals' sentiment called the price: hit rate and mean move 1, 5 and 30 minutes after arrival, by impact band, sentiment and source. Also opens the Scorecard window.",
  usage: 'scorecard',
  examples: ['scorecard', 'scorecard --days 30', 'scorecard --since 2026-01-01T00:00:00Z'],
  options: [
    {
      flags: '--days <n>',
      description: `look back this many days (1-${SCORECARD_MAX_DAYS}, default ${SCORECARD_DEFAULT_DAYS})`,
    },
    { flags: '--since <time>', description: 'start at this ISO time instead' },
  ],
  args: z.object({
    days: z.coerce
      .number({ error: DAYS_ERROR })
      .int({ error: DAYS_ERROR })
      .min(1, { error: DAYS_ERROR })
      .max(SCORECARD_MAX_DAYS, { error: DAYS_ERROR })
      .optional(),
    since: z.iso
      .datetime({ offset: true, error: 'Give the start as an ISO time, e.g. 2026-01-01T00:00:00Z.' })
      .optional(),
  }),
  async run(ctx, { days, since }) {
    if (days !== undefined && since !== undefined)
      return [failure('Choose --days or --since, not both.', 'invalid-args')];
    const store = ctx.stores.scorecard;
    store.openModal();
    const result = await loadScorecard(ctx.api.main, store, {
      ...(days === undefined ? {} : { days }),
      ...(since === undefined ? {} : { since }),
    });
    if (!result.ok) return [failure(result.message)];
    return { lines: scorecardLines(result.value), data: result.value };
  },
});

export default [scorecard];
