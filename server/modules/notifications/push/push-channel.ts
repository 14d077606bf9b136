import webpush from 'web-push';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../../../src/contracts/clock';
import type { Note, NotificationChannel } from '../channels';
import type { NotificationsRepo, PushSubscriptionRow } from '../notifications.repo';
import { PushEndpointRefused } from './endpoint-policy';
import type { PushSend } from './push-send';
import type { VapidKeys } from './vapid';

/** What a browser's service worker receives (JSON): it shows `title`/`body`, and `tag` replaces an earlier one. */
export interface PushPayload {
  title: string;
  body: string;
  url: string;
  tag: string;
}

/** How long a push service keeps a push for a browser that is offline: news is stale after a day. */
export const PUSH_TTL_SECONDS = 24 * 60 * 60;
const ATTEMPTS = 4;
const BACKOFF_MS = [1_000, 4_000, 15_000];
const MAX_RETRY_AFTER_MS = 60_000;

/** The origin of an endpoint, the only part of it a log may carry (the path is the subscription's secret). */
export function endpointOrigin(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return '(not a URL)';
  }
}

export interface PushChannelDeps {
  repo: Pick<
    NotificationsRepo,
    'subscriptions' | 'subscriptionCount' | 'dropSubscription' | 'subscriptionOk'
  >;
  /** The VAPID pair, or null when the server has none (then nothing is sent). */
  keys(): Promise<VapidKeys | null>;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Where a note without a link of its own sends a click: the app. */
  appUrl: string;
  /** The requests to the push services: `pinnedSend` under the endpoint policy. */
  send: PushSend;
  /** A subscription was deleted because it can never take a push again (the activity log hears of it). */
  removed?(sub: PushSubscriptionRow, reason: 'gone' | 'refused'): void;
}

/**
 * Web Push: every note goes to each of the user's subscribed browsers, encrypted for it (RFC 8291,
 * aes128gcm) and signed with the server's VAPID key (RFC 8292). A subscription the push service calls
 * gone (404/410) is deleted; a busy or failing service (429/5xx) is tried again a few times with back-off.
 */
export class PushChannel implements NotificationChannel {
  readonly name = 'push' as const;

  constructor(private readonly deps: PushChannelDeps) {}

  async reaches(userId: string): Promise<boolean> {
    if ((await this.deps.keys()) === null) return false;
    return (await this.deps.repo.subscriptionCount(userId)) > 0;
  }

  async deliver(note: Note): Promise<void> {
    try {
      const keys = await this.deps.keys();
      if (keys === null) return;
      const subs = await this.deps.repo.subscriptions(note.userId);
      const payload: PushPayload = {
        title: note.title,
        body: note.body,
        url: note.url ?? this.deps.appUrl,
        tag: note.ref ?? note.kind,
      };
      await Promise.all(subs.map((sub) => this.toBrowser(sub, JSON.stringify(payload), keys)));
    } catch (err) {
      this.deps.log.warn({ err: errorText(err), kind: note.kind }, 'push not sent');
    }
  }

  private async toBrowser(sub: PushSubscriptionRow, payload: string, keys: VapidKeys): Promise<void> {
    const request = webpush.generateRequestDetails(
      { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } },
      payload,
      {
        TTL: PUSH_TTL_SECONDS,
        contentEncoding: 'aes128gcm',
        urgency: 'normal',
        vapidDetails: { subject: keys.subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
      },
    );
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([k, v]) => [k, String(v)]),
    ) as Record<string, string>;
    const where = endpointOrigin(sub.endpoint);
    for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
      let answer: { status: number; retryAfter: string | null };
      try {
        answer = await this.deps.send({
          endpoint: sub.endpoint,
          method: request.method,
          headers,
          body: request.body,
        });
      } catch (err) {
        // Refused before connecting: only a name that did not resolve is worth asking again.
        if (err instanceof PushEndpointRefused && (err.why !== 'unresolved' || attempt === ATTEMPTS)) {
          await this.refused(sub, err, where);
          return;
        }
        answer = { status: 0, retryAfter: null };
        this.deps.log.debug({ err: errorText(err), service: where, attempt }, 'push service not reached');
      }
      const { status } = answer;
      if (status >= 200 && status < 300) {
        await this.deps.repo.subscriptionOk(sub.id);
        return;
      }
      if (status === 404 || status === 410) {
        // The browser unsubscribed or the subscription expired: it will never take a push again.
        await this.deps.repo.dropSubscription(sub.id);
        this.deps.removed?.(sub, 'gone');
        this.deps.log.info({ service: where, status }, 'push subscription gone: removed');
        return;
      }
      if (status >= 300 && status < 400) {
        this.deps.log.warn({ service: where, status }, 'push service answered a redirect: not followed');
        return;
      }
      const retryable = status === 0 || status === 429 || status >= 500;
      if (!retryable || attempt === ATTEMPTS) {
        this.deps.log.warn({ service: where, status, attempts: attempt }, 'push refused');
        return;
      }
      await sleep(this.deps.clock, retryDelay(answer.retryAfter, attempt));
    }
  }

  /**
   * The endpoint policy refused to send (before any connection): an endpoint that can never be taken is
   * deleted; one whose host resolved to a private address now is kept, and tried again at the next note.
   */
  private async refused(sub: PushSubscriptionRow, err: PushEndpointRefused, where: string): Promise<void> {
    if (err.lasting) {
      await this.deps.repo.dropSubscription(sub.id);
      this.deps.removed?.(sub, 'refused');
    }
    this.deps.log.warn(
      { service: where, reason: err.detail, removed: err.lasting },
      'push endpoint refused: nothing sent',
    );
  }
}

/** Retry-After (seconds) when the service gave one, within bounds; else the next step of the back-off. */
export function retryDelay(retryAfter: string | null, attempt: number): number {
  const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  return BACKOFF_MS[Math.min(attempt - 1, BACKOFF_MS.length - 1)] ?? 15_000;
}

function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimer(resolve, ms));
}

/** An error's message only: web-push's errors carry the endpoint and headers, which stay out of logs. */
function errorText(err: unknown): string {
  return err instanceof Error ? err.message.replace(/https?:\/\/\S+/g, '(endpoint)') : String(err);
}
