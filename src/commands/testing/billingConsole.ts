import { expect } from 'vitest';
import { formatDay } from '../../services/premium';
import { createFakeClock } from '../../services/testing/fakeClock';
import {
  RECORDED_AT,
  recordedPayload,
  recordedReply,
  type BillingAnswer,
} from '../../services/testing/billingAnswers';
import type { FakeReply, RecordedRequest } from '../../services/testing/fakeServer';
import { createTestConsole } from './scripted';

/** A day as the billing commands print it, or 'no date'. */
export const day = (iso: string | null) => formatDay(iso) ?? 'no date';

/** A logged-in console whose clock is at the moment the server's billing answers were recorded. */
export function billingSession(role: 'user' | 'admin' = 'user') {
  const s = createTestConsole({ token: 'tok', clock: createFakeClock(RECORDED_AT) });
  s.stores.session.setUser({ username: 'ann', role, subscriptionStatus: 'inactive', id: 'u-ann' });
  return s;
}

/** Replies with a recorded answer, once the request carries the body the server was sent for it. */
export const recorded =
  (name: BillingAnswer) =>
  (request: RecordedRequest): FakeReply => {
    expect(request.body === null ? undefined : JSON.parse(request.body), `the request of ${name}`).toEqual(
      recordedPayload(name),
    );
    return recordedReply(name);
  };
