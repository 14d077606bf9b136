import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  AccountChoice,
  ClosePositionRequest,
  LeverageRequest,
  OrderRequest,
} from '../../../src/contracts/trading';
import { appError, parseRequest } from '../../plugins/errors';
import { limiter } from '../../plugins/rate-limit';
import type { PositionsHub } from './positions-hub';
import type { TradingService } from './trading.service';
import type { PaperExchange } from './paper/paper-exchange';

function userOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (!principal) throw appError('UNAUTHORIZED');
  return principal.userId;
}

const SocketQuery = z.object({ ticket: z.string().max(256).optional() });

/** HTTP and socket routes of trading; rules live in TradingService. */
export function registerTradingRoutes(
  app: FastifyInstance,
  deps: { service: TradingService; hub: PositionsHub; paper: PaperExchange },
) {
  const { service, hub, paper } = deps;
  const authed = { preHandler: app.requireUser };
  // Binance allows 300 orders per 10 s per account; the paper exchange keeps to the same pace.
  const orderLimit = limiter(app, 'orders', {
    perIp: 10_000,
    perAccount: 300,
    windowMs: 10_000,
    accountOf: (request) => request.principal?.userId ?? null,
  });

  app.post('/orders', { preHandler: [app.requireUser, orderLimit] }, async (request) => {
    const body = parseRequest(OrderRequest, request.body);
    const key = request.headers['idempotency-key'];
    return service.placeOrder(userOf(request), body, typeof key === 'string' ? key : undefined);
  });

  app.post('/orders/preview', authed, async (request) =>
    service.preview(userOf(request), parseRequest(OrderRequest, request.body)),
  );

  app.get('/positions', authed, async (request) => service.positions(userOf(request)));

  app.post('/close_position', authed, async (request) => {
    const body = parseRequest(ClosePositionRequest, request.body);
    return service.closePosition(userOf(request), body.symbol);
  });

  app.post('/close_all_positions', authed, async (request) => service.closeAll(userOf(request)));

  app.get('/account', authed, async (request) => service.account(userOf(request)));

  app.put('/account', authed, async (request) => {
    const body = parseRequest(AccountChoice, request.body);
    const state = await service.chooseAccount(userOf(request), body.account);
    hub.accountChosen(userOf(request));
    return state;
  });

  app.get('/account/balance', authed, async (request) => service.balance(userOf(request)));

  app.post('/account/leverage', authed, async (request) => {
    const body = parseRequest(LeverageRequest, request.body);
    return service.setLeverage(userOf(request), body.symbol, body.leverage);
  });

  app.post('/account/paper/reset', authed, async (request) => {
    await paper.reset(userOf(request));
    return { message: 'Paper account reset to 10,000 USDT with no positions.' };
  });

  app.get(
    '/ws/positions',
    {
      websocket: true,
      preValidation: async (request) => {
        const { ticket } = parseRequest(SocketQuery, request.query, 'query');
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
