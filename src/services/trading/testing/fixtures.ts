import { NO_PROTECTION } from '../../../contracts/protection';
import type { Position } from '../../../contracts/trading';

/** A 10x BTC long with a small gain, as `GET /positions` answers it. */
export const BTC_LONG: Position = {
  symbol: 'BTC/USDT',
  side: 'long',
  size: 0.052,
  entryPrice: 96_150.5,
  markPrice: 96_400.25,
  liquidationPrice: 87_010.1234,
  margin: 499.98,
  unrealizedPnl: 12.987,
  leverage: 10,
  roe: 0.02598,
  notional: 5_012.81,
  protection: NO_PROTECTION,
};

/** A 5x ETH short with a loss. */
export const ETH_SHORT: Position = {
  symbol: 'ETH/USDT',
  side: 'short',
  size: 1.5,
  entryPrice: 3_400,
  markPrice: 3_412.5,
  liquidationPrice: 4_060.75,
  margin: 1_020,
  unrealizedPnl: -18.75,
  leverage: 5,
  roe: -0.01838,
  notional: 5_118.75,
  protection: NO_PROTECTION,
};
