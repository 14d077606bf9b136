import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AccountChoice,
  AccountState,
  Balance,
  CancelOrdersResponse,
  CloseAllResponse,
  ClosePositionRequest,
  CloseResponse,
  ClosedTradesPage,
  ClosedTradesQuery,
  LeverageRequest,
  MessageResponse,
  OrderPreview,
  OrderRequest,
  OrderResponse,
  OpenOrder,
  PairSymbol,
  Position,
  TradesCsvQuery,
  TradesPage,
  TradesQuery,
} from '../../../src/contracts/trading';
import { PositionProtection, ProtectionInput, ProtectionReceipt } from '../../../src/contracts/protection';
import { appError } from '../../plugins/errors';
import { limiter } from '../../plugins/rate-limit';
import type { PositionsHub } from './positions-hub';
import { tradesCsv } from './trades-csv';
import type { TradingService } from './trading.service';

function userOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (!principal) throw appError('UNAUTHORIZED');
  return principal.userId;
}

const SocketQuery = z.object({ ticket: z.string().max(256).optional() });
const IdempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .describe('Sent again with the same key, an order is placed once and its first answer repeated.'),
});

/** HTTP and socket routes of trading; rules live in TradingService. */
export function registerTradingRoutes(
  instance: FastifyInstance,
  deps: { service: TradingService; hub: PositionsHub },
) {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  const { service, hub } = deps;
  const authed = { preValidation: app.requireUser };
  // Binance allows 300 orders per 10 s per account; the paper exchange keeps to the same pace.
  const orderLimit = limiter(app, 'orders', {
    perIp: 10_000,
    perAccount: 300,
    windowMs: 10_000,
    accountOf: (request) => request.principal?.userId ?? null,
  });

  const orderSchema = {
    summary: 'Place a market or limit order',
    headers: IdempotencyHeaders,
    body: OrderRequest,
    response: { 200: OrderResponse },
  };
  app.post(
    '/orders',
    { preValidation: [app.requireUser, orderLimit], schema: orderSchema },
    async (request) => {
      const key = request.headers['idempotency-key'];
      return service.placeOrder(userOf(request), request.body, typeof key === 'string' ? key : undefined);
    },
  );

  const previewSchema = {
    summary: 'What an order would be, without placing it',
    body: OrderRequest,
    response: { 200: OrderPreview },
  };
  // A preview does the work of an order short of sending it: it counts in the orders' limits.
  app.post(
    '/orders/preview',
    { preValidation: [app.requireUser, orderLimit], schema: previewSchema },
    async (request) => service.preview(userOf(request), request.body),
  );

  const openOrdersSchema = {
    summary: 'Limit orders resting on the chosen account',
    response: { 200: z.array(OpenOrder) },
  };
  app.get('/orders/open', { ...authed, schema: openOrdersSchema }, async (request) =>
    service.limits.open(userOf(request)),
  );
  const cancelOneSchema = {
    summary: 'Cancel one resting limit order, by its id or client id',
    params: z.object({ id: z.string().min(1).max(64) }),
    response: { 200: OpenOrder },
  };
  app.delete('/orders/open/:id', { ...authed, schema: cancelOneSchema }, async (request) =>
    service.limits.cancelOne(userOf(request), request.params.id),
  );
  const cancelAllSchema = {
    summary: "Cancel every resting limit order, or one symbol's",
    querystring: z.object({ symbol: PairSymbol.optional() }),
    response: { 200: CancelOrdersResponse },
  };
  app.delete('/orders/open', { ...authed, schema: cancelAllSchema }, async (request) =>
    service.limits.cancelAll(userOf(request), request.query.symbol),
  );

  const positionsSchema = { summary: 'Open positions', response: { 200: z.array(Position) } };
  app.get('/positions', { ...authed, schema: positionsSchema }, async (request) =>
    service.positions(userOf(request)),
  );

  const ProtectedSymbol = z.object({
    symbol: z
      .string()
      .regex(/^[A-Z0-9]{2,20}USDT$/, { error: 'Symbol must look like BTCUSDT.' })
      .describe('The exchange symbol, as BTCUSDT'),
  });
  const setProtectionSchema = {
    summary: "Set or replace an open position's stop-loss, take-profit, trailing stop and time exit",
    description:
      'The stop, target and trailing stop rest on the exchange as conditional orders (they outlive this server); ' +
      'the time exit is run by the server. Percentages are of price, from the entry.',
    params: ProtectedSymbol,
    body: ProtectionInput,
    response: { 200: MessageResponse.extend({ protection: ProtectionReceipt }) },
  };
  app.put('/positions/:symbol/protection', { ...authed, schema: setProtectionSchema }, async (request) =>
    service.setProtection(userOf(request), request.params.symbol, request.body),
  );
  const removeProtectionSchema = {
    summary: "Remove an open position's protection (its legs are cancelled on the exchange)",
    params: ProtectedSymbol,
    response: { 200: MessageResponse.extend({ protection: PositionProtection }) },
  };
  app.delete(
    '/positions/:symbol/protection',
    { ...authed, schema: removeProtectionSchema },
    async (request) => service.removeProtection(userOf(request), request.params.symbol),
  );
  const breakEvenSchema = {
    summary: "Move an open position's stop to its break-even price",
    params: ProtectedSymbol,
    response: { 200: MessageResponse.extend({ protection: ProtectionReceipt }) },
  };
  app.post(
    '/positions/:symbol/protection/break-even',
    { ...authed, schema: breakEvenSchema },
    async (request) => service.breakEven(userOf(request), request.params.symbol),
  );

  const closeSchema = {
    summary: 'Close one position at market, or a share of it',
    description:
      'With share, a reduce-only market order of that share, rounded down to the step (the venue caps it at ' +
      'what is open); with an Idempotency-Key, a retry answers the first fill.',
    headers: IdempotencyHeaders,
    body: ClosePositionRequest,
    response: { 200: CloseResponse },
  };
  app.post('/close_position', { ...authed, schema: closeSchema }, async (request) => {
    const { symbol, share } = request.body;
    if (share === undefined || share === 1) return service.closePosition(userOf(request), symbol);
    const key = request.headers['idempotency-key'];
    return service.closeShare(userOf(request), symbol, share, typeof key === 'string' ? key : undefined);
  });

  const closeAllSchema = { summary: 'Close every position at market', response: { 200: CloseAllResponse } };
  app.post('/close_all_positions', { ...authed, schema: closeAllSchema }, async (request) =>
    service.closeAll(userOf(request)),
  );

  const tradesSchema = {
    summary: 'Your fills, newest first',
    description: "A page at a time: pass the answer's nextCursor as cursor for older ones; account filters.",
    querystring: TradesQuery,
    response: { 200: TradesPage },
  };
  const closedSchema = {
    summary: 'The parts of positions your fills closed, newest first',
    description:
      'Worked out from the fills in order: a fill that flips a position closes the old one (a row) and ' +
      'opens the rest (no row). Each row has the entry, the exit, the realised PnL, the fee of that part and why.',
    querystring: ClosedTradesQuery,
    response: { 200: ClosedTradesPage },
  };
  app.get('/trades/closed', { ...authed, schema: closedSchema }, async (request) =>
    service.closedHistory(userOf(request), request.query),
  );

  app.get('/trades', { ...authed, schema: tradesSchema }, async (request) =>
    service.tradeHistory(userOf(request), request.query),
  );

  const tradesCsvSchema = {
    summary: 'Your fills as CSV, newest first',
    description:
      'One row per fill; the same cursor and account as /trades, pages up to 10,000 rows (all by default). ' +
      'When older fills remain, the X-Next-Cursor header gives the cursor of the next page.',
    querystring: TradesCsvQuery,
    response: { 200: { description: 'A CSV file', content: { 'text/csv': { schema: z.string() } } } },
  };
  app.get('/trades.csv', { ...authed, schema: tradesCsvSchema }, async (request, reply) => {
    const page = await service.tradeHistory(userOf(request), request.query);
    reply.header('content-type', 'text/csv; charset=utf-8');
    reply.header('content-disposition', 'attachment; filename="trades.csv"');
    if (page.nextCursor !== null) reply.header('x-next-cursor', page.nextCursor);
    return tradesCsv(page.trades);
  });

  const accountSchema = { summary: 'Which account orders go to', response: { 200: AccountState } };
  app.get('/account', { ...authed, schema: accountSchema }, async (request) =>
    service.account(userOf(request)),
  );

  const chooseSchema = {
    summary: 'Choose the account orders go to',
    description: 'Choosing a LIVE key needs a sign-in confirmed in the last minutes (403 step_up_required).',
    body: AccountChoice,
    response: { 200: AccountState },
  };
  app.put('/account', { ...authed, schema: chooseSchema }, async (request) => {
    const body = request.body;
    // Manual orders on real funds from now on: a sensitive change, confirmed like adding a key.
    if (body.account !== 'paper' && (await service.venueOf(userOf(request), body.account)).mode === 'live') {
      await app.requireStepUp(request);
    }
    const state = await service.chooseAccount(userOf(request), body.account);
    hub.accountChosen(userOf(request));
    return state;
  });

  const balanceSchema = { summary: 'Balance of the chosen account', response: { 200: Balance } };
  app.get('/account/balance', { ...authed, schema: balanceSchema }, async (request) =>
    service.balance(userOf(request)),
  );

  const leverageSchema = {
    summary: 'Set the leverage of a symbol',
    body: LeverageRequest,
    response: { 200: MessageResponse },
  };
  app.post('/account/leverage', { ...authed, schema: leverageSchema }, async (request) => {
    const body = request.body;
    return service.setLeverage(userOf(request), body.symbol, body.leverage);
  });

  const resetSchema = { summary: 'Reset the paper account', response: { 200: MessageResponse } };
  app.post('/account/paper/reset', { ...authed, schema: resetSchema }, async (request) => {
    await service.resetPaper(userOf(request));
    return { message: 'Paper account reset to 10,000 USDT with no positions.' };
  });

  app.get(
    '/ws/positions',
    {
      websocket: true,
      schema: { querystring: SocketQuery },
      preHandler: async (request) => {
        const { ticket } = request.query;
        const principal = ticket ? await app.socketTickets.redeem(ticket) : null;
        if (!principal) throw appError('UNAUTHORIZED', 'The socket ticket is missing, used or expired.');
        request.principal = principal;
      },
    },
    (socket, request) => {
      const dispose = hub.connect(userOf(request), socket);
      // The socket lives no longer than the sign-in it was opened with.
      const unwatch = request.principal
        ? app.sessionWatch.watch(request.principal, (code, reason) => socket.close(code, reason))
        : () => undefined;
      socket.on('close', () => {
        dispose();
        unwatch();
      });
      socket.on('error', () => {
        dispose();
        unwatch();
      });
    },
  );
}
