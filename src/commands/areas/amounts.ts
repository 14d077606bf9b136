import { z } from 'zod';
import { formatQuickAmount, parseAmount } from '../../services/feed/quickAmounts';
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

export default [amounts, add, remove];
