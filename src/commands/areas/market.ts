import { z } from 'zod';
import { success } from '../../services/terminal/output';
import { defineCommand } from '../types';

/** A ticker as typed: letters and digits, 1 to 12 characters; stored upper-case. */
export const Ticker = z
  .string()
  .regex(/^[A-Za-z0-9]{1,12}$/, 'A ticker is 1 to 12 letters or digits, e.g. BTC.')
  .transform((t) => t.toUpperCase());

export const symbol = defineCommand({
  name: 'symbol',
  aliases: ['sym'],
  area: 'market',
  summary: 'Choose the symbol for the chart and trades.',
  usage: 'symbol <ticker>',
  examples: ['symbol eth', 'symbol SOL'],
  args: z.object({ ticker: Ticker }),
  run({ stores }, { ticker }) {
    return [success(`Symbol set to ${stores.ui.chooseTicker(ticker)}.`)];
  },
});

export default [symbol];
