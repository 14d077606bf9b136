import { createHmac } from 'node:crypto';
import type { VenueName } from '../../../src/contracts/venues';
import { linkIdOf } from '../../../server/modules/trading/live/bybit/shapes';
import { okxIdOf } from '../../../server/modules/trading/live/okx/symbols';
import type { SignedDouble } from '../../fixtures/binance-signed-double';
import { startBinanceVenueDouble } from '../../fixtures/binance-venue-double';
import { startBybitDouble } from '../../fixtures/bybit-double';
import { startOkxDouble } from '../../fixtures/okx-double';
import type { VenueDouble } from '../../fixtures/venue-double';

/**
 * One order as the venue's double holds it, whatever it did: filled or not, in the product's words
 * (symbol `BTCUSDT`, side BUY or SELL, the executed quantity in the base asset).
 */
export interface PlacedOrder {
  apiKey: string;
  /** The client id as the venue holds it (Binance's clientOrderId, Bybit's orderLinkId, OKX's clOrdId). */
  clientId: string;
  orderId: string;
  symbol: string;
  side: 'BUY' | 'SELL';
  executed: number;
  /** When the venue took it (ms epoch). */
  time: number;
}

/** A venue's double through the contract's face, plus every order it took and its client-id mapping. */
export interface VenueUnderTest {
  double: VenueDouble;
  /** Every order the venue took (conditional legs not included), oldest first. */
  placed(): PlacedOrder[];
  /**
   * The venue's own position of a key on a symbol (`BTCUSDT`), signed in the base asset: from the
   * double's position book, never a sum of its orders.
   */
  position(key: { apiKey: string; secret: string }, symbol: string): Promise<number>;
  /** The client id the venue holds for one of the app's client ids. */
  venueClientId(appClientId: string): string;
  /** Extra fields of `DoubleKeySpec` the venue's keys need (OKX's passphrase). */
  keyExtras: { passphrase?: string };
  /** The settings of the venue's demo environment, pointed at the double too: nothing leaves loopback. */
  demoSettings: Record<string, string>;
}

export const VENUE_NAMES = ['binance', 'bybit', 'okx'] as const satisfies readonly VenueName[];

/** The pairs every venue's double lists. */
export const KILL_SYMBOLS = ['ETH/USDT', 'BTC/USDT'] as const;

/**
 * What a server runs with to trade on the Binance signed double: REST and user streams, live and demo
 * alike, all on the double.
 */
export function signedDoubleSettings(binance: SignedDouble): Record<string, string> {
  const streams = binance.url.replace('http://', 'ws://');
  return {
    BINANCE_FAPI_URL: binance.url,
    BINANCE_API_URL: binance.url,
    BINANCE_DEMO_FAPI_URL: binance.url,
    BINANCE_USER_STREAM_URL: `${streams}/private/ws?listenKey={listenKey}`,
    BINANCE_DEMO_USER_STREAM_URL: `${streams}/ws/{listenKey}`,
  };
}

/** Every order the Binance signed double took. */
export function binancePlaced(binance: SignedDouble): PlacedOrder[] {
  return binance.orders.map((o) => ({
    apiKey: o.apiKey,
    clientId: o.clientOrderId,
    orderId: String(o.orderId),
    symbol: o.symbol,
    side: o.side,
    executed: Number(o.executed),
    time: o.time,
  }));
}

/** The key's positions on the Binance signed double, by symbol: `GET /fapi/v3/positionRisk`, signed. */
export async function binancePositions(
  url: string,
  key: { apiKey: string; secret: string },
): Promise<Map<string, number>> {
  const query = `timestamp=${Date.now()}`;
  const signature = createHmac('sha256', key.secret).update(query).digest('hex');
  const res = await fetch(`${url}/fapi/v3/positionRisk?${query}&signature=${signature}`, {
    headers: { 'x-mbx-apikey': key.apiKey },
  });
  if (!res.ok) throw new Error(`positionRisk: ${res.status} ${await res.text()}`);
  const rows = (await res.json()) as { symbol: string; positionAmt: string }[];
  return new Map(rows.map((r) => [r.symbol, Number(r.positionAmt)]));
}

export async function startVenue(name: (typeof VENUE_NAMES)[number]): Promise<VenueUnderTest> {
  if (name === 'binance') {
    const double = await startBinanceVenueDouble();
    const streams = double.streamUrl;
    return {
      double,
      placed: () => binancePlaced(double.binance),
      // The face sums the double's fills; its own position book answers the signed positionRisk.
      position: async (key, symbol) => (await binancePositions(double.url, key)).get(symbol) ?? 0,
      venueClientId: (id) => id,
      keyExtras: {},
      demoSettings: {
        BINANCE_DEMO_FAPI_URL: double.url,
        BINANCE_DEMO_USER_STREAM_URL: `${streams}/ws/{listenKey}`,
      },
    };
  }
  if (name === 'bybit') {
    const double = await startBybitDouble();
    return {
      double,
      placed: () =>
        double.book.orders
          .filter((o) => o.stopOrderType === '')
          .map((o) => ({
            apiKey: o.apiKey,
            clientId: o.orderLinkId,
            orderId: o.orderId,
            symbol: o.symbol,
            side: o.side === 'Buy' ? ('BUY' as const) : ('SELL' as const),
            executed: o.cumExecQty.toNumber(),
            time: o.createdTime,
          })),
      position: async (key, symbol) => double.position(key.apiKey, symbol),
      venueClientId: linkIdOf,
      keyExtras: {},
      demoSettings: {
        BYBIT_DEMO_API_URL: double.settings.BYBIT_API_URL ?? double.url,
        BYBIT_DEMO_STREAM_URL: double.streamUrl,
      },
    };
  }
  const double = await startOkxDouble();
  return {
    double,
    placed: () =>
      double.book.orders
        .filter((o) => o.algoId === '')
        .map((o) => ({
          apiKey: o.apiKey,
          clientId: o.clOrdId,
          orderId: o.ordId,
          symbol: o.instId.replace('-USDT-SWAP', 'USDT'),
          side: o.side === 'buy' ? ('BUY' as const) : ('SELL' as const),
          executed: double.book.coins(o.instId, o.accFillSz).toNumber(),
          time: o.cTime,
        })),
    position: async (key, symbol) => double.position(key.apiKey, symbol),
    venueClientId: okxIdOf,
    keyExtras: { passphrase: 'Kill-nine-pass-1' },
    demoSettings: {
      OKX_DEMO_API_URL: double.url,
      OKX_DEMO_STREAM_URL: double.streamUrl,
    },
  };
}
