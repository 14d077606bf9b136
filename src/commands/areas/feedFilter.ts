import { z } from 'zod';
import { splitTerms } from '../../contracts/keywords';
import { describeFilter, saveFeedFilter } from '../../services/feed/feedFilter';
import { failure, info, success } from '../../services/terminal/output';
import { defineCommand, type CommandContext } from '../types';

const AREA = 'feed';

/** `N hidden` of the signals held now, or nothing. */
function hiddenNote(ctx: CommandContext): string {
  const hidden = ctx.stores.feedView.hiddenByWords.peek();
  return hidden === 0 ? '' : ` (${hidden} of the feed's signals hidden)`;
}

const save = async (ctx: CommandContext, include: string[], exclude: string[]) =>
  saveFeedFilter(
    { main: ctx.api.main, store: ctx.stores.feedFilter, loggedIn: ctx.stores.session.isLoggedIn.peek() },
    { include, exclude },
  );

export const feedFilter = defineCommand({
  name: 'feed filter',
  area: AREA,
  summary:
    'Show or set the feed filter: words a signal must have (one of) or must not have. Alerts and their sounds follow it.',
  usage: 'feed filter [action]',
  examples: [
    'feed filter',
    'feed filter --include listing,hack --exclude perpetual',
    'feed filter --include "spot etf, list*"',
    'feed filter --exclude ""',
    'feed filter clear',
  ],
  options: [
    {
      flags: '--include <words>',
      description:
        'comma-separated words or phrases, one of which must be in a signal; whole words ("list" is not "listing"; list* is both)',
    },
    {
      flags: '--exclude <words>',
      description: 'comma-separated words or phrases none of which may be in it',
    },
  ],
  args: z.object({
    action: z
      .enum(['clear'], {
        error: 'Type feed filter clear to remove the filter, or give --include or --exclude.',
      })
      .optional()
      .describe('clear: remove the filter, every signal shows (and alerts) again'),
    include: z.string().optional(),
    exclude: z.string().optional(),
  }),
  complete: { action: () => ['clear'] },
  async run(ctx, a) {
    if (a.action === 'clear') {
      const done = await save(ctx, [], []);
      if (!done.ok) return [failure(done.message)];
      return { lines: [success('Feed filter cleared: every signal shows.')], data: done.filter };
    }
    const current = ctx.stores.feedFilter.filter.peek();
    if (a.include === undefined && a.exclude === undefined) {
      const where = ctx.stores.session.isLoggedIn.peek() ? '' : ' (kept in this browser)';
      return {
        lines: [info(`Feed filter${where}: ${describeFilter(current)}${hiddenNote(ctx)}.`)],
        data: current,
      };
    }
    // A list not given stays as it is; an empty one ("") clears that list.
    const include = a.include === undefined ? current.include : splitTerms(a.include);
    const exclude = a.exclude === undefined ? current.exclude : splitTerms(a.exclude);
    const done = await save(ctx, include, exclude);
    if (!done.ok) return [failure(done.message)];
    return {
      lines: [success(`Feed filter saved: ${describeFilter(done.filter)}${hiddenNote(ctx)}.`)],
      data: done.filter,
    };
  },
});

export default [feedFilter];
