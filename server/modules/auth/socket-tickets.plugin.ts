import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { SocketTicketResponse } from '../../../src/contracts/auth';
import { sessionEnded } from '../../plugins/auth-guard';
import { principalOf } from './http';
import { SocketTickets } from './socket-tickets';

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
    app.post(
      '/ws/ticket',
      {
        preValidation: app.requireUser,
        schema: {
          summary: 'A one-use ticket to open a socket with (`?ticket=` on /api/ws/positions)',
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
