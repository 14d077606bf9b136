import type { OrderResult } from '../exchange';
import { CloseAllIncomplete, OrderOutcomeUnknown, type CloseLeft } from '../exchange-error';

/**
 * Closes each open position in turn, each under `prefix-i` as its client id. One close whose outcome is
 * unknown, or that is refused, does not stop the others: when any did not simply fill,
 * {@link CloseAllIncomplete} carries the fills, the unknown closes (to be looked up by their client ids)
 * and the refused ones. Nothing closed and nothing in doubt: the one refusal is the answer, as for one close.
 */
export async function closeEach(
  open: readonly { symbol: string }[],
  clientOrderIdPrefix: string,
  close: (symbol: string, clientOrderId: string) => Promise<OrderResult | null>,
): Promise<OrderResult[]> {
  const results: OrderResult[] = [];
  const unknown: (CloseLeft & { reason: string })[] = [];
  const refused: (CloseLeft & { error: unknown })[] = [];
  for (const [i, p] of open.entries()) {
    const clientOrderId = `${clientOrderIdPrefix}-${i}`.slice(0, 36);
    try {
      const closed = await close(p.symbol, clientOrderId);
      if (closed) results.push(closed);
    } catch (err) {
      if (err instanceof OrderOutcomeUnknown)
        unknown.push({ symbol: p.symbol, clientOrderId, reason: err.reason });
      else refused.push({ symbol: p.symbol, clientOrderId, error: err });
    }
  }
  const [first] = refused;
  if (results.length === 0 && unknown.length === 0 && refused.length === 1 && first) throw first.error;
  if (unknown.length > 0 || refused.length > 0) throw new CloseAllIncomplete(results, unknown, refused);
  return results;
}
