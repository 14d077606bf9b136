import Decimal from 'decimal.js';
import { pairOf, type OrderPreview, type OrderRequest } from '../../../src/contracts/trading';
import { lotFiltersFor } from '../../../src/contracts/sizing';
import type { VenuePreview } from './exchange';
import type { PaperExchange } from './paper/paper-exchange';

type PaperPreview = Awaited<ReturnType<PaperExchange['previewMarketOrder']>>;

/** A live venue's dry run of `request`, as the trade panel shows it. */
export function venuePreviewAnswer(
  symbol: string,
  request: OrderRequest,
  side: 'BUY' | 'SELL',
  p: VenuePreview,
): OrderPreview {
  return {
    symbol: pairOf(symbol),
    side: side === 'BUY' ? 'buy' : 'sell',
    quantity: p.quantity.toNumber(),
    price: p.price.toNumber(),
    notional: p.price.mul(p.quantity).toNumber(),
    requested: request.amount,
    adjustment: p.sizing.adjustment,
    note: p.sizing.note,
    minNotional: p.minNotional.toNumber(),
    stepNotional: p.stepSize.mul(p.price).toNumber(),
    margin: p.marginAdded.toNumber(),
    fee: p.fee.toNumber(),
    leverage: p.leverage,
    liquidationPrice: p.liquidationPrice === null ? null : p.liquidationPrice.toNumber(),
  };
}

/** The paper engine's dry run of `request`, as the trade panel shows it; lot sizes from the symbol table. */
export function paperPreviewAnswer(
  symbol: string,
  request: OrderRequest,
  side: 'BUY' | 'SELL',
  p: PaperPreview,
): OrderPreview {
  const price = new Decimal(p.fill.price);
  const filters = lotFiltersFor(symbol, price);
  return {
    symbol: pairOf(symbol),
    side: side === 'BUY' ? 'buy' : 'sell',
    quantity: Number(p.fill.qty),
    price: price.toNumber(),
    notional: price.mul(p.fill.qty).toNumber(),
    requested: request.amount,
    adjustment: p.sizing?.adjustment ?? 'exact',
    note: p.sizing?.note ?? null,
    minNotional: filters?.minNotional.toNumber() ?? 0,
    stepNotional: filters ? filters.stepSize.mul(price).toNumber() : 0,
    margin: p.marginAdded.toNumber(),
    fee: Number(p.fill.fee),
    leverage: p.leverage,
    liquidationPrice: p.liquidationPrice === null ? null : p.liquidationPrice.toNumber(),
  };
}
