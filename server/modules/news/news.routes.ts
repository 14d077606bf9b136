import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  IngestBody,
  IngestResponse,
  ingestForm,
  SignalList,
  SignalsQuery,
  SourceReceipts,
  type IngestOutcome,
  type StreamStatus,
} from '../../../src/contracts/signals';
import { appError } from '../../plugins/errors';
import { BEARER } from '../../plugins/openapi';
import { validatedInForm } from '../../plugins/schemas';
import type { NewsService } from './news.service';
import { rawItem } from './news.types';
import type { SignalStream } from './signal-stream';
import type { FeedFiltersService } from '../users/feed-filters.service';
import type { SourceLags } from './source-receipts';

export const INGEST_BODY_LIMIT = 256 * 1024;

const sha = (s: string) => createHash('sha256').update(s).digest();

export interface NewsRouteDeps {
  service: NewsService;
  lags: SourceLags;
  stream: SignalStream;
  status: (cursor: number, resumed: number) => StreamStatus;
  webhook: { enabled: boolean; token: string | undefined };
  /** Sources whose items reach Premium accounts only (`PREMIUM_NEWS_SOURCES`). */
  premiumSources: readonly string[];
  /** Whether the request carries the token of a Premium account (no token: no). */
  viewerIsPremium: (request: FastifyRequest) => Promise<boolean>;
  /** The account whose token the request carries (none: null): its feed filter applies. */
  viewerId: (request: FastifyRequest) => Promise<string | null>;
  feedFilters: Pick<FeedFiltersService, 'testFor' | 'hold'>;
}

const StreamQuery = z.object({
  lastEventId: z.string().optional().describe('For clients that cannot set the Last-Event-ID header.'),
});
const StreamHeaders = z.object({
  'last-event-id': z.string().optional().describe('Resume after this event id: what was missed is replayed.'),
});

/** `Last-Event-ID` (header, or `lastEventId` in the query for clients that cannot set headers). */
function resumeCursor(request: FastifyRequest): number | null {
  const header = request.headers['last-event-id'];
  const query = (request.query as Record<string, unknown>).lastEventId;
  const raw = typeof header === 'string' ? header : typeof query === 'string' ? query : null;
  if (raw === null || !/^[0-9]{1,15}$/.test(raw.trim())) return null;
  return Number(raw.trim());
}

/** HTTP routes of the news module: history, the webhook and the SSE stream. */
export function registerNewsRoutes(instance: FastifyInstance, deps: NewsRouteDeps): void {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  const { service, stream } = deps;

  // The history is public; the items of premium sources are in it only for a Premium account's token.
  const historySchema = {
    summary: 'Signals, newest first',
    description:
      "Public; the items of premium sources are in it only for a Premium account's token, and a " +
      "signed-in account's feed filter leaves out what it hides (up to 1,000 items are looked through " +
      'for a page, which may then hold fewer).',
    querystring: SignalsQuery,
    response: { 200: SignalList },
  };
  app.get('/signals', { schema: historySchema }, async (request) => {
    const query = request.query;
    const hidden =
      deps.premiumSources.length > 0 && !(await deps.viewerIsPremium(request)) ? deps.premiumSources : [];
    const userId = await deps.viewerId(request);
    return service.list(query, hidden, userId === null ? undefined : await deps.feedFilters.testFor(userId));
  });

  const sourcesSchema = {
    summary: "Each source's lag from publication to arrival, items per hour, newest item",
    description: 'Public: the sources are named in the stream status too.',
    response: { 200: SourceReceipts },
  };
  app.get('/signals/sources', { schema: sourcesSchema }, () => deps.lags.list());

  const expected = deps.webhook.token === undefined ? null : sha(deps.webhook.token);
  const checkToken = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!deps.webhook.enabled) throw appError('NOT_FOUND', 'The webhook source is off (NEWS_SOURCES).');
    const header = request.headers.authorization ?? '';
    const given = /^Bearer (.+)$/i.exec(header)?.[1]?.trim();
    if (expected === null || given === undefined || !timingSafeEqual(sha(given), expected)) {
      reply.header('www-authenticate', 'Bearer');
      throw appError('UNAUTHORIZED');
    }
  };

  app.post(
    '/signals/ingest',
    {
      bodyLimit: INGEST_BODY_LIMIT,
      onRequest: checkToken,
      schema: {
        summary: 'Push news items (the webhook source)',
        description: "Bearer: the `NEWS_WEBHOOK_TOKEN`, not a user's access token.",
        security: [{ [BEARER]: [] }],
        body: validatedInForm(IngestBody, ingestForm),
        response: { 202: IngestResponse },
      },
    },
    async (request, reply): Promise<IngestResponse> => {
      const body = request.body;
      const items = Array.isArray(body) ? body : 'items' in body ? body.items : [body];
      const results: IngestOutcome[] = [];
      for (const item of items) {
        results.push(
          await service.ingest(
            'webhook',
            rawItem({
              source_name: item.source_name,
              username: item.username ?? null,
              icon: item.icon ?? null,
              url: item.url ?? null,
              content: item.content,
              media_urls: item.media_urls,
              quote:
                item.quote === null || item.quote === undefined
                  ? null
                  : {
                      source_name: item.quote.source_name ?? null,
                      username: item.quote.username ?? null,
                      icon: item.quote.icon ?? null,
                      content: item.quote.content,
                      media_urls: item.quote.media_urls,
                    },
              published_at: item.published_at ?? null,
              external_id: item.external_id ?? null,
            }),
          ),
        );
      }
      reply.code(202);
      return {
        accepted: results.filter((r) => r.result !== 'duplicate' && r.result !== 'empty').length,
        results,
      };
    },
  );

  const streamSchema = {
    summary: 'Live signals (server-sent events)',
    description:
      '`event: status` first (a StreamStatus), then `event: signal` frames (a Signal each) with an `id:` ' +
      "to resume from, and `: heartbeat` comments. With an account's bearer token, only the signals its " +
      'feed filter passes (the filter as it is saved, followed while the stream is open).',
    querystring: StreamQuery,
    headers: StreamHeaders,
    response: {
      200: { description: 'An event stream', content: { 'text/event-stream': { schema: z.string() } } },
    },
  };
  app.get('/signals/stream', { schema: streamSchema }, async (request, reply) => {
    const cursor = resumeCursor(request);
    const userId = await deps.viewerId(request);
    const filter = userId === null ? null : await deps.feedFilters.hold(userId);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-content-type-options': 'nosniff',
    });
    let dispose: (() => void) | null = null;
    let closed = false;
    res.on('close', () => {
      closed = true;
      dispose?.();
      filter?.release();
    });
    try {
      // The stream is public: a resume replays what anyone may see, like the live frames.
      const premium = new Set(deps.premiumSources);
      const passes = filter === null ? null : filter.passes;
      dispose = await stream.connect(
        res,
        deps.status,
        cursor,
        async (rev) =>
          (await service.changedSince(rev, 50)).filter(
            (c) => !premium.has(c.signal.source) && (passes === null || passes(c.signal)),
          ),
        passes,
      );
    } catch (err) {
      request.log.warn({ err }, 'stream resume failed');
      res.destroy();
      return;
    }
    if (closed) dispose();
  });
}
