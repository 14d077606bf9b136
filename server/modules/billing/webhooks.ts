import { createHmac, timingSafeEqual } from 'node:crypto';
import type Stripe from 'stripe';
import { appError } from '../../plugins/errors';

/** Stripe's documented tolerance between the signed timestamp and now. */
export const STRIPE_TOLERANCE_S = 300;

const invalid = () => appError('BAD_REQUEST', 'Invalid signature.');

/** `Stripe-Signature` (t and v1 over the raw body) checked by the official package; 400 when it fails. */
export function verifyStripe(
  stripe: Stripe,
  raw: string,
  header: string | undefined,
  secret: string | undefined,
  nowMs: number,
): unknown {
  if (secret === undefined || header === undefined || header === '') throw invalid();
  try {
    stripe.webhooks.constructEvent(raw, header, secret, STRIPE_TOLERANCE_S, undefined, nowMs);
  } catch {
    throw invalid();
  }
  return parseJson(raw);
}

export function btcpaySignature(raw: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(raw, 'utf8').digest('hex')}`;
}

/** `BTCPay-Sig: sha256=<hex HMAC-SHA256 of the raw body>`; 400 when it fails. */
export function verifyBtcpay(raw: string, header: string | undefined, secret: string | undefined): unknown {
  if (secret === undefined || header === undefined) throw invalid();
  const expected = Buffer.from(btcpaySignature(raw, secret));
  const given = Buffer.from(header.trim().toLowerCase());
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  return parseJson(raw);
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw appError('BAD_REQUEST', 'Invalid JSON.');
  }
}
