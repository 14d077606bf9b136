/**
 * The exchange adapter, in Binance USD-M's own shapes so that the live adapters (Binance, Bybit, OKX) drop
 * in beside the paper one: each venue's adapter reads its own answers at its edge and hands back these
 * shapes, symbols in Binance's spelling (`BTCUSDT`) and quantities in the base asset. One adapter
 * instance serves many accounts; `account` is the user id for the paper exchange and `userId:keyId` for
 * a live one.
 */

export * from './adapter';
export * from './conditionals';
export * from './events';
export * from './orders';
