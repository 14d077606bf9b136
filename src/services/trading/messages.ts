/** Spec §5 and §8 texts for trading, word for word (ours are marked). */
export const TRADING_TEXT = {
  loginToTrade: 'Please log in to trade.',
  totalNotPositive: 'Total must be greater than zero.',
  orderFailed: 'Failed to place order.',
  orderSucceeded: (id: string) => `Success! Order ID: ${id}`,
  fetchPositionsFailed: 'Failed to fetch positions.',
  confirmClose: (symbol: string) => `Are you sure you want to close the ${symbol} position?`,
  closeFailed: (detail: string) => `Failed to close position: ${detail}`,
  unknownError: 'Unknown error',
  nothingToClose: 'There are no open positions to close.',
  confirmCloseAll: (n: number) =>
    `Are you sure you want to close all ${n} open positions? This action cannot be undone.`,
  closeAllFailed: (detail: string) => `Failed to close all positions: ${detail}`,
  closeAllSent: 'Successfully sent requests to close all positions.',
  loginToViewPositions: 'Please log in to view positions.',
  noPositions: 'No open positions.',
  /** Ours: the badge wherever orders are placed while they go to the paper exchange. */
  paperBadge: 'PAPER',
  /** Ours: what the positions socket's liquidation message turns into. */
  liquidated: (pair: string, price: string) => `Position ${pair} was liquidated at ${price}.`,
} as const;
