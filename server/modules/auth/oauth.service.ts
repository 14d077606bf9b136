import { createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { z } from 'zod';
import { WEB3_DETAILS } from '../../../src/contracts/web3';
import { appError } from '../../plugins/errors';
import type { Secrets } from '../../plugins/secrets';
import type { ExternalProfile, IdentityService, IdentitySignIn } from './identity.service';

export type SocialProvider = 'google' | 'twitter';
export const PROVIDER_NAMES: Record<SocialProvider, string> = { google: 'Google', twitter: 'Twitter' };
/** How long a started sign-in may take at the provider. */
export const OAUTH_TTL_MS = 10 * 60 * 1000;
const TIMEOUT_MS = 10_000;

export interface OAuthSettings {
  publicUrl: string;
  google: { clientId: string; clientSecret: string; issuer: string } | null;
  twitter: { clientId: string; clientSecret: string; authorizeUrl: string; apiUrl: string } | null;
}

/** What the state cookie carries between the redirect and the callback (encrypted). */
const Pending = z.object({
  provider: z.enum(['google', 'twitter']),
  state: z.string(),
  verifier: z.string(),
  nonce: z.string(),
  remember: z.boolean(),
  expiresAt: z.number(),
});
type Pending = z.infer<typeof Pending>;

const Discovery = z.object({
  issuer: z.string(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
  jwks_uri: z.url(),
});
type Discovery = z.infer<typeof Discovery>;

const GoogleTokens = z.object({ id_token: z.string() });
const TwitterTokens = z.object({ access_token: z.string() });
const TwitterMe = z.object({ data: z.object({ id: z.string(), username: z.string() }) });

const b64url = (buf: Buffer) => buf.toString('base64url');

async function getJson(url: string, init: RequestInit): Promise<unknown> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!res.ok) throw appError('UNAUTHORIZED', WEB3_DETAILS.oauthFailed);
  return res.json();
}

/**
 * Google (OpenID Connect) and Twitter (OAuth 2.0) sign-in, both with PKCE (S256) and a state bound to the
 * browser by an encrypted cookie. Google's ID token is checked against the issuer's keys, audience and
 * nonce; a verified e-mail links the sign-in to the account that has it.
 */
export class OAuthService {
  private discovery: Discovery | null = null;
  private jwks: ReturnType<typeof createRemoteJWKSet> | null = null;

  constructor(
    private readonly settings: OAuthSettings,
    private readonly secrets: Secrets,
    private readonly identities: IdentityService,
    private readonly now: () => Date = () => new Date(),
  ) {}

  enabled(provider: SocialProvider): boolean {
    return this.settings[provider] !== null;
  }

  private need(provider: SocialProvider): void {
    if (!this.enabled(provider))
      throw appError('NOT_FOUND', WEB3_DETAILS.providerOff(PROVIDER_NAMES[provider]));
  }

  redirectUri(provider: SocialProvider): string {
    return `${this.settings.publicUrl}/api/auth/${provider}/callback`;
  }

  /** The provider's authorization URL and the sealed cookie that must come back with the callback. */
  async start(provider: SocialProvider, remember: boolean): Promise<{ url: string; cookie: string }> {
    this.need(provider);
    const pending: Pending = {
      provider,
      state: b64url(randomBytes(24)),
      verifier: b64url(randomBytes(48)),
      nonce: b64url(randomBytes(24)),
      remember,
      expiresAt: this.now().getTime() + OAUTH_TTL_MS,
    };
    const challenge = b64url(createHash('sha256').update(pending.verifier).digest());
    const params = new URLSearchParams({
      response_type: 'code',
      redirect_uri: this.redirectUri(provider),
      state: pending.state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    let base: string;
    if (provider === 'google') {
      const google = this.settings.google;
      if (google === null) throw appError('NOT_FOUND');
      base = (await this.google()).authorization_endpoint;
      params.set('client_id', google.clientId);
      params.set('scope', 'openid email profile');
      params.set('nonce', pending.nonce);
    } else {
      const twitter = this.settings.twitter;
      if (twitter === null) throw appError('NOT_FOUND');
      base = twitter.authorizeUrl;
      params.set('client_id', twitter.clientId);
      params.set('scope', 'users.read tweet.read');
    }
    return { url: `${base}?${params.toString()}`, cookie: this.secrets.encrypt(JSON.stringify(pending)) };
  }

  /** Checks state and expiry, swaps the code (with the PKCE verifier) and answers the account. */
  async finish(
    provider: SocialProvider,
    query: { code?: string | undefined; state?: string | undefined },
    cookie: string | undefined,
  ): Promise<IdentitySignIn & { remember: boolean }> {
    this.need(provider);
    const pending = this.open(cookie);
    if (
      pending === null ||
      pending.provider !== provider ||
      query.state === undefined ||
      query.state !== pending.state ||
      pending.expiresAt <= this.now().getTime() ||
      query.code === undefined ||
      query.code === ''
    ) {
      throw appError('BAD_REQUEST', WEB3_DETAILS.oauthState);
    }
    const profile =
      provider === 'google'
        ? await this.googleProfile(query.code, pending)
        : await this.twitterProfile(query.code, pending);
    return { ...(await this.identities.signIn(profile)), remember: pending.remember };
  }

  private open(cookie: string | undefined): Pending | null {
    if (cookie === undefined) return null;
    try {
      const parsed = Pending.safeParse(JSON.parse(this.secrets.decrypt(cookie)));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  private async google(): Promise<Discovery> {
    const google = this.settings.google;
    if (google === null) throw appError('NOT_FOUND');
    if (this.discovery === null) {
      const url = `${google.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
      const doc = Discovery.safeParse(await getJson(url, {}).catch(() => null));
      if (!doc.success) throw appError('SERVICE_UNAVAILABLE', WEB3_DETAILS.oauthFailed);
      this.discovery = doc.data;
      this.jwks = createRemoteJWKSet(new URL(doc.data.jwks_uri), { timeoutDuration: TIMEOUT_MS });
    }
    return this.discovery;
  }

  private async googleProfile(code: string, pending: Pending): Promise<ExternalProfile> {
    const google = this.settings.google;
    if (google === null) throw appError('NOT_FOUND');
    const doc = await this.google();
    const tokens = GoogleTokens.safeParse(
      await getJson(doc.token_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: this.redirectUri('google'),
          client_id: google.clientId,
          client_secret: google.clientSecret,
          code_verifier: pending.verifier,
        }),
      }),
    );
    if (!tokens.success || this.jwks === null) throw appError('UNAUTHORIZED', WEB3_DETAILS.oauthFailed);
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(tokens.data.id_token, this.jwks, {
        issuer: doc.issuer,
        audience: google.clientId,
        currentDate: this.now(),
      }));
    } catch {
      throw appError('UNAUTHORIZED', WEB3_DETAILS.oauthFailed);
    }
    if (claims.nonce !== pending.nonce || typeof claims.sub !== 'string') {
      throw appError('UNAUTHORIZED', WEB3_DETAILS.oauthFailed);
    }
    const email = typeof claims.email === 'string' && claims.email_verified === true ? claims.email : null;
    const name = typeof claims.name === 'string' ? claims.name : 'google-user';
    return {
      provider: 'google',
      subject: claims.sub,
      verifiedEmail: email,
      usernameHint: email?.split('@')[0] ?? name,
    };
  }

  private async twitterProfile(code: string, pending: Pending): Promise<ExternalProfile> {
    const twitter = this.settings.twitter;
    if (twitter === null) throw appError('NOT_FOUND');
    const api = twitter.apiUrl.replace(/\/+$/, '');
    const basic = Buffer.from(`${twitter.clientId}:${twitter.clientSecret}`).toString('base64');
    const tokens = TwitterTokens.safeParse(
      await getJson(`${api}/2/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: this.redirectUri('twitter'),
          client_id: twitter.clientId,
          code_verifier: pending.verifier,
        }),
      }),
    );
    if (!tokens.success) throw appError('UNAUTHORIZED', WEB3_DETAILS.oauthFailed);
    const me = TwitterMe.safeParse(
      await getJson(`${api}/2/users/me`, {
        headers: { authorization: `Bearer ${tokens.data.access_token}` },
      }),
    );
    if (!me.success) throw appError('UNAUTHORIZED', WEB3_DETAILS.oauthFailed);
    // Twitter does not vouch for an e-mail here: the account is found by its Twitter id alone.
    return {
      provider: 'twitter',
      subject: me.data.data.id,
      verifiedEmail: null,
      usernameHint: me.data.data.username,
    };
  }
}
