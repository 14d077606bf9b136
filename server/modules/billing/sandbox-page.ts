import { PLANS, trialThen } from '../../../src/contracts/billing';
import type { CheckoutRow } from './billing.repo';

const escape = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** A checkout that starts the free trial says what it costs today; the sandbox never charges after it. */
const trialLine = (row: CheckoutRow): string =>
  row.trial && row.status === 'open'
    ? `<p style="font-size: 1.2rem; color: #2ea043" data-testid="trial-today">${escape(trialThen(row.plan))} (this sandbox never charges).</p>`
    : '';

/** The built-in checkout: no money moves; Pay sends the same signed event a real provider would. */
export function sandboxPage(row: CheckoutRow): string {
  const plan = PLANS[row.plan];
  const what = `Premium ${row.plan}: $${plan.price} per ${plan.per} (${row.provider === 'card' ? 'card' : 'crypto'})`;
  const done = row.status !== 'open';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>TEST MODE checkout</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; background: #0b0e14; color: #e6e6e6; text-align: center; padding: 3rem 1rem">
<h1 style="font-size: 4rem; color: #f5a524; margin: 0 0 1rem" data-testid="test-mode">TEST MODE</h1>
<p>This is the built-in sandbox checkout: no payment provider is configured and no money moves.</p>
<p style="font-size: 1.4rem">${escape(what)}</p>
${trialLine(row)}
${
  done
    ? `<p>This checkout is ${escape(row.status)}.</p><p><a href="/" style="color: #7aa2f7">Back to Dashboard</a></p>`
    : `<form method="post" action="/api/subscriptions/sandbox/${escape(row.id)}/pay">
<button type="submit" style="font-size: 1.4rem; padding: .6rem 2.5rem; background: #2ea043; color: #fff; border: 0; border-radius: 6px; cursor: pointer">Pay</button>
</form>
<form method="post" action="/api/subscriptions/sandbox/${escape(row.id)}/cancel">
<button type="submit" style="background: none; border: 0; color: #7aa2f7; text-decoration: underline; cursor: pointer; font-size: 1rem; margin-top: 1rem">Cancel</button>
</form>`
}
</body></html>`;
}
