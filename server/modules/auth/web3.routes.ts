import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { LoginResponse, MessageResponse } from '../../../src/contracts/auth';
import { describeUserAgent } from '../../../src/contracts/userAgent';
import {
  LinkRequest,
  NonceRequest,
  NonceResponse,
  VerifyRequest,
  WEB3_MESSAGES,
  Wallet,
  WalletList,
  WalletParams,
} from '../../../src/contracts/web3';
import { AUTH_LIMIT, limiter } from '../../plugins/rate-limit';
import { fingerprintOf } from './device-info';
import { answerSession, currentSignIn, principalOf } from './http';
import type { AuthServices } from './services';

/** Wallet sign-in (SIWE) and the signed-in account's linked wallets. */
export default async function web3Routes(instance: FastifyInstance, s: AuthServices) {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  // Nonces and sign-ins are limited per client address only. A per-wallet request limit would let
  // anyone who knows an address (they are public) keep its owner from signing in by asking for its
  // nonces from a few machines; guessing gains nothing (a signature cannot be guessed), and what one
  // wallet may hold is bounded by the service instead (the oldest outstanding nonces give way).
  const perAddress = (name: string) =>
    limiter(app, name, { perIp: AUTH_LIMIT.perIp, windowMs: AUTH_LIMIT.windowMs });
  const limits = {
    nonce: perAddress('web3-nonce'),
    verify: perAddress('web3-verify'),
    // Linking is done signed in: counted per address and per account (the one signed in, not the wallet).
    link: limiter(app, 'web3-link', { ...AUTH_LIMIT, accountOf: (r) => principalOf(r).userId }),
  };

  const nonceSchema = {
    summary: 'A message for the wallet to sign',
    body: NonceRequest,
    response: { 200: NonceResponse },
  };
  app.post('/auth/web3/nonce', { preValidation: limits.nonce, schema: nonceSchema }, async (request) => {
    const body = request.body;
    return s.web3.nonce(body.address, body.chain_id);
  });

  const verifySchema = {
    summary: 'Sign in with a signed message (SIWE)',
    body: VerifyRequest,
    response: { 200: LoginResponse },
  };
  app.post(
    '/auth/web3/verify',
    { preValidation: limits.verify, schema: verifySchema },
    async (request, reply) => {
      const body = request.body;
      const userAgent = request.headers['user-agent'];
      const info = body.device_info ?? describeUserAgent(userAgent);
      const deviceInfo = { browser: info.browser, os: info.os };
      const device = { deviceInfo, fingerprint: fingerprintOf(deviceInfo, userAgent) };
      const { user, identity } = await s.web3.signIn(body);
      const via = { method: 'wallet' as const, identity };
      const outcome = await s.auth.finish(user, body.remember_me ? device : null, device, via);
      if (outcome.kind === 'two-factor')
        return { two_factor_required: true as const, user_id: outcome.challenge };
      return answerSession(reply, s, outcome.session);
    },
  );

  const walletsSchema = { summary: 'Your linked wallets', response: { 200: WalletList } };
  app.get(
    '/auth/web3/wallets',
    { preValidation: app.requireUser, schema: walletsSchema },
    async (request) => {
      return s.web3.list(principalOf(request).userId);
    },
  );

  const linkSchema = {
    summary: 'Link a wallet to your account',
    description:
      'A new way to sign in: needs a sign-in confirmed in the last minutes (403 `step_up_required` before the nonce is spent). The owner is mailed. For a day, signing in with the new wallet alone does not count as "Confirm it\'s you".',
    body: LinkRequest,
    response: { 201: Wallet.extend({ message: MessageResponse.shape.message }) },
  };
  app.post(
    '/auth/web3/wallets/link',
    { preValidation: [app.requireUser, limits.link, app.requireStepUp], schema: linkSchema },
    async (request, reply) => {
      const body = request.body;
      const wallet = await s.web3.link(principalOf(request).userId, body);
      reply.code(201);
      return { ...wallet, message: WEB3_MESSAGES.linked };
    },
  );

  const unlinkSchema = {
    summary: 'Unlink a wallet',
    description:
      'Needs a sign-in confirmed in the last minutes; ends the sign-ins the wallet started (but this one). The last way to sign in is refused (409).',
    params: WalletParams,
    response: { 200: MessageResponse },
  };
  app.delete(
    '/auth/web3/wallets/:id',
    { preValidation: app.requireUser, schema: unlinkSchema },
    async (request) => {
      const { id } = request.params;
      const { userId, familyId } = principalOf(request);
      // Asked here rather than in preValidation: the last way to sign in is a 409 however confirmed.
      const confirmed =
        familyId !== undefined && (await s.sessions.steppedUpUntil(userId, familyId)) !== null;
      await s.web3.unlink(userId, id, { confirmed, current: await currentSignIn(s, userId, familyId) });
      return { message: WEB3_MESSAGES.unlinked };
    },
  );
}
