import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { SocketTicketResponse } from '../../../src/contracts/auth';
import { sessionEnded } from '../../plugins/auth-guard';
import { limiter } from '../../plugins/rate-limit';
import { principalOf } from './http';
import { SocketTickets } from './socket-tickets';

/**
 * Tickets an account may take a minute: two a second on average. A socket per tab and reconnects fit
 * many times over, and so does a busy desk's dozen positions sockets each living a few seconds (the soak
 * run's shape); a loop asking for them (hundreds a second, each a row written) is cut at once. Per
 * address the bound is wider: many accounts behind one network.
 */
export const TICKET_LIMIT = { perIp: 1200, perAccount: 120, windowMs: 60_000 } as const;

declare module 'fastify' {
  interface FastifyInstance {
    /** Issues and redeems the single-use tickets that authenticate sockets. */
    socketTickets: SocketTickets;
  }
}

/**
 * `POST /ws/ticket` trades the caller's bearer token for a 30-second, single-use socket ticket, and
 * `app.socketTickets` lets a socket route redeem it (`?ticket=`), so no access token is put in a URL.
 */
export default fp(
  async function socketTicketsPlugin(app: FastifyInstance) {
    const tickets = new SocketTickets(app.database.db, undefined, (familyId) =>
      sessionEnded(app.accountGate, familyId),
    );
    app.decorate('socketTickets', tickets);
    const limited = limiter(app, 'ws-ticket', {
      ...TICKET_LIMIT,
      accountOf: (r) => r.principal?.userId ?? null,
    });
    app.post(
      '/ws/ticket',
      {
        preValidation: [app.requireUser, limited],
        schema: {
          summary: 'A one-use ticket to open a socket with (`?ticket=` on /api/ws/positions)',
          description: `At most ${TICKET_LIMIT.perAccount} a minute per account (429 with Retry-After beyond).`,
          response: { 200: SocketTicketResponse },
        },
      },
      async (request): Promise<SocketTicketResponse> => {
        return { ticket: await tickets.issue(principalOf(request)) };
      },
    );
  },
  { name: 'socket-tickets' },
);
