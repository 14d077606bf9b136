import { z } from 'zod';
import { formatQuickAmount, parseAmount } from '../../services/feed/quickAmounts';
import { bracketText } from '../../services/feed/quickBracket';
import { failure, info, success } from '../../services/terminal/output';
import { savedAmounts } from '../providers';
import { defineCommand } from '../types';

const AREA = 'amounts';

export const amounts = defineCommand({
  name: 'amounts',
  area: AREA,
  summary: "List the quick-trade amounts (the buttons of a signal's quick-trade popover).",
  usage: 'amounts',
  examples: ['amounts', 'amounts add 2.5k', 'amounts rm 250'],
  args: z.object({}),
  run(ctx) {
    const list = ctx.stores.quickAmounts.amounts.peek();
    return {
      lines: [info(`Quick-trade amounts (USDT): ${list.map(formatQuickAmount).join(', ')}`)],
      data: list,
    };
  },
});

export const add = defineCommand({
  name: 'amounts add',
  area: AREA,
  summary: 'Add a quick-trade amount in USDT (k = thousands).',
  usage: 'amounts add <amount>',
  examples: ['amounts add 50', 'amounts add 2.5k'],
  args: z.object({ amount: z.string().describe('USDT above 0, k = thousands') }),
  run(ctx, { amount }) {
    const added = ctx.stores.quickAmounts.add(amount);
    if (!added.ok) return [failure(added.message)];
    return {
      lines: [success(`Quick-trade amounts (USDT): ${added.amounts.map(formatQuickAmount).join(', ')}`)],
      data: added.amounts,
    };
  },
});

export const remove = defineCommand({
  name: 'amounts rm',
  area: AREA,
  summary: 'Remove a quick-trade amount.',
  usage: 'amounts rm <amount>',
  examples: ['amounts rm 250', 'amounts rm 5k'],
  args: z.object({ amount: z.string().describe('one of the saved amounts') }),
  complete: { amount: savedAmounts },
  run(ctx, { amount }) {
    const value = parseAmount(amount);
    if (value === null || !ctx.stores.quickAmounts.remove(value)) {
      return [failure(`${amount} is not one of the quick-trade amounts.`)];
    }
    const list = ctx.stores.quickAmounts.amounts.peek();
    return {
      lines: [success(`Quick-trade amounts (USDT): ${list.map(formatQuickAmount).join(', ') || 'none'}`)],
      data: list,
    };
  },
});

const BRACKET_USAGE = 'Use on, off, sl <%> and tp <%>, e.g. amounts bracket on sl 2% tp 5%.';

export const bracket = defineCommand({
  name: 'amounts bracket',
  area: AREA,
  summary:
    'Show or set the default bracket of card and quick trades (off at first): a stop loss and a take ' +
    'profit in % of the entry, sent with each such trade while on.',
  usage: 'amounts bracket [words...]',
  examples: [
    'amounts bracket',
    'amounts bracket on sl 2% tp 5%',
    'amounts bracket sl 1.5%',
    'amounts bracket off',
  ],
  args: z.object({
    words: z
      .array(z.string())
      .default([])
      .describe('on, off, sl <%>, tp <%>; sl and tp given together replace both'),
  }),
  complete: { words: () => ['on', 'off', 'sl', 'tp'] },
  run(ctx, { words }) {
    const store = ctx.stores.quickBracket;
    let on: boolean | undefined;
    const legs: { sl?: string; tp?: string } = {};
    for (let i = 0; i < words.length; i += 1) {
      const word = (words[i] ?? '').toLowerCase();
      if (word === 'on' || word === 'off') on = word === 'on';
      else if ((word === 'sl' || word === 'tp') && words[i + 1] !== undefined) {
        legs[word] = words[i + 1] ?? '';
        i += 1;
      } else return [failure(`Invalid bracket word: '${words[i] ?? ''}'. ${BRACKET_USAGE}`, 'invalid-args')];
    }
    if (legs.sl !== undefined || legs.tp !== undefined) {
      const set = store.setLegs(legs.sl ?? '', legs.tp ?? '');
      if (!set.ok) return [failure(set.message, 'invalid-args')];
    }
    if (on !== undefined) {
      const turned = store.setOn(on);
      if (!turned.ok) return [failure(turned.message)];
    }
    const now = store.bracket.peek();
    const line = `Quick-trade bracket: ${bracketText(now)}`;
    return { lines: [words.length === 0 ? info(line) : success(line)], data: now };
  },
});

export default [amounts, add, remove, bracket];
