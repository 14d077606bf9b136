import type { Trade } from '../../../src/contracts/trading';

/** The columns of `GET /api/trades.csv`, in order: one row per fill, newest first. */
export const TRADE_CSV_COLUMNS = [
  'time',
  'symbol',
  'side',
  'quantity',
  'price',
  'realized_pnl',
  'fee',
  'source',
  'rule_name',
  'rule_id',
  'account',
  'account_mode',
  'key_hint',
  'order_id',
  'venue',
] as const;

/** RFC 4180 quoting; a text cell starting with = + - @ gets a leading ' so a spreadsheet never runs it. */
function cell(v: string | number | null): string {
  if (v === null) return '';
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

function row(t: Trade): (string | number | null)[] {
  return [
    new Date(t.time).toISOString(),
    t.symbol,
    t.side,
    t.quantity,
    t.price,
    t.realizedPnl,
    t.fee,
    t.source,
    t.ruleName,
    t.ruleId,
    t.accountId,
    t.account.mode,
    t.account.keyHint,
    t.orderId,
    t.account.venue,
  ];
}

export function tradesCsv(trades: readonly Trade[]): string {
  const lines = [TRADE_CSV_COLUMNS.join(',')];
  for (const t of trades) lines.push(row(t).map(cell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
