import path from 'node:path';
import { ConfigSchema, NEWS_SOURCE_NAMES, type Env } from './config-schema';

/**
 * Every environment variable the server reads, with its default. This list is the single source: the
 * docs/configuration.md is generated from `CONFIG_DOCS` (`npm run docs:config`). What each one accepts
 * is the schema of config-schema.ts.
 */

/**
 * The browsers' push services (Chrome and most Chromium browsers: FCM; Firefox: Mozilla's autopush;
 * Safari: Apple's, which asks servers to allow *.push.apple.com; Edge: Windows Push Notification Services).
 */
export const DEFAULT_PUSH_SERVICE_HOSTS = [
  'fcm.googleapis.com',
  'updates.push.services.mozilla.com',
  'push.services.mozilla.com',
  '*.push.apple.com',
  '*.notify.windows.com',
] as const;

/** Each variable's default (as the text a user would write) and one line of help for docs/configuration.md. */
export const CONFIG_DOCS: Record<keyof Env, { default: string; help: string }> = {
  NODE_ENV: { default: 'production', help: 'development gives pretty logs; test is used by the test suite' },
  PORT: { default: '8080', help: 'HTTP port' },
  HOST: { default: '127.0.0.1', help: 'address to listen on (0.0.0.0 to expose)' },
  TRUST_PROXY: {
    default: '',
    help: 'behind a reverse proxy: true, a hop count, or its addresses/CIDRs (then client addresses come from X-Forwarded-For)',
  },
  DATA_DIR: { default: './data', help: 'embedded database, generated secrets key, mail outbox, caches' },
  DATABASE_URL: { default: '', help: 'postgres://… to use PostgreSQL; unset uses PGlite in DATA_DIR' },
  REDIS_URL: {
    default: '',
    help: 'redis://… to share the event bus and every rate limit and login throttle between processes; unset is in-process',
  },
  REDIS_PREFIX: {
    default: '',
    help: 'put before every Redis key and channel, so several deployments can share one Redis (e.g. `prod:`)',
  },
  ROLE: {
    default: 'all',
    help: 'all serves and works; api serves HTTP, SSE and sockets only; worker runs news sources, analysis, rules, market feed and scorecard (api and worker need DATABASE_URL and REDIS_URL)',
  },
  MIGRATE_ON_START: {
    default: 'true',
    help: 'PostgreSQL: apply pending migrations at start, under a lock; false only checks them (run `npm run migrate` as a release step). PGlite always applies them',
  },
  MARKET_SOURCE: {
    default: 'auto',
    help: 'auto tries Binance public data for a few seconds at start, then falls back to the simulator',
  },
  BINANCE_FAPI_URL: { default: 'https://fapi.binance.com', help: 'Binance USD-M public REST base' },
  BINANCE_FSTREAM_URL: { default: 'wss://fstream.binance.com', help: 'Binance USD-M public stream base' },
  BINANCE_DEMO_FAPI_URL: {
    default: 'https://demo-fapi.binance.com',
    help: 'Binance USD-M REST base for keys of the demo environment',
  },
  BINANCE_API_URL: {
    default: 'https://api.binance.com',
    help: 'Binance spot REST base, read for an API key’s restrictions (withdrawals, IP whitelist)',
  },
  BINANCE_TIMEOUT_MS: {
    default: '10000',
    help: 'how long one signed Binance REST call may take before its outcome counts as unknown',
  },
  BINANCE_USER_STREAM_URL: {
    default: 'wss://fstream.binance.com/private/ws?listenKey={listenKey}',
    help: 'user-data stream of a live key (positions and balance as they change)',
  },
  BINANCE_DEMO_USER_STREAM_URL: {
    default: 'wss://demo-fstream.binance.com/ws/{listenKey}',
    help: 'user-data stream of a demo key',
  },
  BINANCE_LISTEN_KEY_KEEPALIVE_MS: {
    default: '1800000',
    help: 'how often a user-data stream’s listen key is extended (Binance drops it after 60 minutes)',
  },
  BYBIT_API_URL: { default: 'https://api.bybit.com', help: 'Bybit v5 REST base for live keys' },
  BYBIT_STREAM_URL: {
    default: 'wss://stream.bybit.com/v5/private',
    help: 'Bybit private stream of a live key (orders, executions, positions)',
  },
  BYBIT_DEMO_API_URL: {
    default: 'https://api-demo.bybit.com',
    help: 'Bybit v5 REST base for keys of the demo trading account',
  },
  BYBIT_DEMO_STREAM_URL: {
    default: 'wss://stream-demo.bybit.com/v5/private',
    help: 'Bybit private stream of a demo key',
  },
  OKX_API_URL: { default: 'https://www.okx.com', help: 'OKX v5 REST base for live keys' },
  OKX_STREAM_URL: {
    default: 'wss://ws.okx.com:8443/ws/v5/private',
    help: 'OKX private stream of a live key (orders, positions)',
  },
  OKX_DEMO_API_URL: {
    default: 'https://www.okx.com',
    help: 'OKX v5 REST base for demo keys (the same host; demo calls carry x-simulated-trading: 1)',
  },
  OKX_DEMO_STREAM_URL: {
    default: 'wss://wspap.okx.com:8443/ws/v5/private',
    help: 'OKX private stream of a demo key',
  },
  OKX_BUSINESS_STREAM_URL: {
    default: 'wss://ws.okx.com:8443/ws/v5/business',
    help: "OKX business stream of a live key (the stops', targets' and trailing stops' algo orders)",
  },
  OKX_DEMO_BUSINESS_STREAM_URL: {
    default: 'wss://wspap.okx.com:8443/ws/v5/business',
    help: 'OKX business stream of a demo key',
  },
  PROTECTION_RECONCILE_S: {
    default: '30',
    help: 'how often the stops, targets and trailing stops that should rest on each exchange are compared with what rests there (a vanished one is placed again)',
  },
  BINANCE_ORDER_SETTLE_MS: {
    default: '6000',
    help: 'after an order of unknown outcome, wait this long (recvWindow + slack) before looking it up again or re-sending',
  },
  MARKET_STALE_MS: {
    default: '15000',
    help: 'Binance feed watchdog: this long without a frame marks the market degraded and reconnects',
  },
  MARKET_SIM_SEED: { default: '1', help: 'seed of the price simulator (same seed, same prices)' },
  MARKET_SIM_TICK_MS: { default: '1000', help: 'milliseconds between simulated price ticks' },
  PRICE_MAX_AGE_MS: {
    default: '5000',
    help: 'the oldest last price that may size or fill an order, move an exit or price a signal’s arrival; older, the market is asked',
  },
  IMPACT_CALIBRATION_MIN_SAMPLES: {
    default: '50',
    help: 'recorded signals of an event type (on Binance prices) before its impact scores follow what the market did',
  },
  NEWS_SOURCES: { default: 'replay', help: `comma list of ${NEWS_SOURCE_NAMES.join(', ')}` },
  PREMIUM_NEWS_SOURCES: {
    default: '',
    help: 'comma list of NEWS_SOURCES whose items only Premium accounts receive (history and stream)',
  },
  RSS_FEEDS: { default: '', help: 'comma list of RSS/Atom feed URLs for the rss source' },
  REPLAY_INTERVAL_MS: {
    default: '8000',
    help: 'mean milliseconds between items of the replay source (each gap varies ±40%)',
  },
  NEWS_POLL_MS: {
    default: '60000',
    help: 'milliseconds between polls of the rss and binance-announcements sources',
  },
  SOURCE_LAG_DEGRADED_SECONDS: {
    default: '300',
    help: 'a source whose p95 lag from publication to arrival over the last hour passes this is named degraded in health',
  },
  BINANCE_ANNOUNCEMENTS_URL: {
    default: 'https://www.binance.com/bapi/composite/v1/public/cms/article/list/query',
    help: 'Binance announcement list endpoint for the binance-announcements source',
  },
  X_API_URL: { default: 'https://api.x.com', help: 'X API base for the x source (v2 filtered stream)' },
  X_BEARER_TOKEN: { default: '', help: 'X API app bearer token; the x source needs it' },
  TELEGRAM_API_URL: {
    default: 'https://api.telegram.org',
    help: 'Telegram Bot API base for the Telegram bot and the telegram source',
  },
  TELEGRAM_BOT_TOKEN: {
    default: '',
    help: 'Telegram bot token (from @BotFather): the notifications bot and the telegram source need it',
  },
  TELEGRAM_WEBHOOK_URL: {
    default: '',
    help: "the bot's updates by webhook at this public https URL (ending in /api/notifications/telegram/webhook); unset: long polling",
  },
  PROXY_CACHE_MB: { default: '100', help: 'size bound of the image proxy cache in DATA_DIR/image-cache' },
  ANALYZER: { default: 'local', help: 'local (in-process, offline) or llm (OpenAI-compatible endpoint)' },
  LLM_BASE_URL: { default: '', help: 'OpenAI-compatible base URL for ANALYZER=llm' },
  LLM_API_KEY: { default: '', help: 'API key for the LLM endpoint' },
  LLM_MODEL: { default: '', help: 'model name for the LLM endpoint' },
  LLM_TIMEOUT_MS: {
    default: '15000',
    help: 'how long one LLM request may take before it is retried (twice), then the local result is used',
  },
  SECRETS_KEY: {
    default: '',
    help: '64 hex chars; required with DATABASE_URL; unset (PGlite) → generated once into DATA_DIR/secrets.key (0600)',
  },
  SECRETS_KEY_FILE: {
    default: '',
    help: 'path of a file holding SECRETS_KEY (64 hex chars, readable by the server only), kept apart from DATA_DIR',
  },
  SMTP_URL: { default: '', help: 'smtp(s)://user:pass@host:port; unset writes mail to DATA_DIR/outbox' },
  PUBLIC_URL: { default: '', help: 'public address used in mailed links; unset → http://HOST:PORT' },
  VAPID_PUBLIC_KEY: {
    default: '',
    help: 'Web Push VAPID public key (base64url, with VAPID_PRIVATE_KEY); unset → a pair is made once and kept sealed in the database',
  },
  VAPID_PRIVATE_KEY: { default: '', help: 'Web Push VAPID private key (base64url) for VAPID_PUBLIC_KEY' },
  VAPID_SUBJECT: {
    default: '',
    help: 'mailto: or https:// contact the push services see in every push; unset → PUBLIC_URL when https, else mailto:admin@localhost',
  },
  PUSH_SERVICE_HOSTS: {
    default: DEFAULT_PUSH_SERVICE_HOSTS.join(','),
    help: 'the push services Web Push is sent to: a comma list of hosts (*.name for any host under name), or * for any public host; every endpoint is https on port 443 and every address it resolves to must be public',
  },
  STRIPE_SECRET_KEY: {
    default: '',
    help: 'card payments (Stripe Checkout); needs STRIPE_WEBHOOK_SECRET',
  },
  STRIPE_WEBHOOK_SECRET: { default: '', help: 'Stripe webhook signing secret (whsec_…)' },
  STRIPE_API_URL: {
    default: 'https://api.stripe.com',
    help: 'Stripe API base (the tests point it at a double)',
  },
  BTCPAY_URL: { default: '', help: 'crypto payments (BTCPay Server Greenfield)' },
  BTCPAY_API_KEY: { default: '', help: 'BTCPay Greenfield API key' },
  BTCPAY_STORE_ID: { default: '', help: 'BTCPay store id' },
  BTCPAY_WEBHOOK_SECRET: { default: '', help: 'BTCPay webhook secret' },
  PAYMENT_SANDBOX: {
    default: 'auto',
    help: 'the TEST MODE checkout that grants Premium without payment: auto offers it only when no payment provider is configured and NODE_ENV is not production; true also in production (named in the log and the header); false never. Off whenever Stripe or BTCPay is configured',
  },
  GOOGLE_CLIENT_ID: { default: '', help: 'Google sign-in link' },
  GOOGLE_CLIENT_SECRET: { default: '', help: 'Google sign-in link' },
  TWITTER_CLIENT_ID: { default: '', help: 'Twitter sign-in link' },
  TWITTER_CLIENT_SECRET: { default: '', help: 'Twitter sign-in link' },
  GOOGLE_ISSUER: {
    default: 'https://accounts.google.com',
    help: 'OpenID Connect issuer for Google sign-in (its discovery document is read from here)',
  },
  TWITTER_AUTHORIZE_URL: {
    default: 'https://twitter.com/i/oauth2/authorize',
    help: 'Twitter OAuth 2.0 authorization page',
  },
  TWITTER_API_URL: { default: 'https://api.twitter.com', help: 'Twitter API base (token and users/me)' },
  ETH_RPC_URL: {
    default: '',
    help: 'Ethereum mainnet JSON-RPC: contract-wallet (EIP-1271) signatures and ENS names; unset → EOA only',
  },
  INGEST_TOKEN: { default: '', help: 'bearer token for POST /api/signals/ingest (webhook source)' },
  ADMIN_EMAILS: { default: '', help: 'comma list of emails that get the admin role' },
  LOG_LEVEL: { default: 'info', help: 'fatal, error, warn, info, debug, trace or silent' },
  SHUTDOWN_TIMEOUT_MS: {
    default: '10000',
    help: 'after SIGTERM or Ctrl+C, what is still open after this long is logged and the process exits with 1',
  },
  SPEED_TUNING: {
    default: 'on',
    help: "off turns off every speed tuning of server/warm/ (the start-up rehearsals, the text paths kept compiled, PGlite's WebAssembly compiled optimised and its parser table): to measure without them, or to rule them out; answers stay the same",
  },
};

export type Config = Omit<Env, 'DATA_DIR' | 'PUBLIC_URL'> & {
  /** Absolute path. */
  DATA_DIR: string;
  PUBLIC_URL: string;
  version: string;
};

/** Thrown by `loadConfig`; its message is the one line printed before the process exits. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Parses the environment. Empty strings count as unset. On a bad value it throws a `ConfigError` whose
 * message names the variable, the value and what is accepted.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, version = '0.0.0'): Config {
  const input: Record<string, string> = {};
  for (const key of Object.keys(CONFIG_DOCS) as (keyof Env)[]) {
    const raw = env[key];
    input[key] = raw === undefined || raw.trim() === '' ? CONFIG_DOCS[key].default : raw;
  }
  const parsed = ConfigSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = String(issue?.path[0] ?? 'configuration');
    const value = input[key] ?? '';
    const shown = /KEY|SECRET|TOKEN|PASSWORD/.test(key) ? '(hidden)' : JSON.stringify(value);
    throw new ConfigError(`Invalid ${key}=${shown}: expected ${issue?.message ?? 'a valid value'}`);
  }
  const cfg = parsed.data;
  if (cfg.DATABASE_URL !== undefined && cfg.SECRETS_KEY === undefined && cfg.SECRETS_KEY_FILE === undefined) {
    // Each process would generate its own key beside its own data: secrets sealed by one server could
    // not be opened by another sharing the database, and the key would live apart from its backups.
    throw new ConfigError(
      'SECRETS_KEY (or SECRETS_KEY_FILE) is required with DATABASE_URL: every server on one database must seal secrets with the same key',
    );
  }
  if (cfg.ROLE !== 'all' && (cfg.DATABASE_URL === undefined || cfg.REDIS_URL === undefined)) {
    // Api nodes and workers only meet through the shared database and bus: alone, either does half the job.
    throw new ConfigError(
      `ROLE=${cfg.ROLE} needs DATABASE_URL and REDIS_URL: api nodes and workers share their work through them`,
    );
  }
  if ((cfg.VAPID_PUBLIC_KEY === undefined) !== (cfg.VAPID_PRIVATE_KEY === undefined)) {
    // Half a pair cannot sign a push: the browsers would subscribe to a key nothing here can use.
    throw new ConfigError('VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY go together: set both, or neither');
  }
  if (cfg.STRIPE_SECRET_KEY !== undefined && cfg.STRIPE_WEBHOOK_SECRET === undefined) {
    // Every Stripe event would be refused as unsigned: customers would pay and never get Premium.
    throw new ConfigError(
      'STRIPE_WEBHOOK_SECRET is required with STRIPE_SECRET_KEY: without it no Stripe event can be verified and paying users would never be upgraded',
    );
  }
  const DATA_DIR = path.resolve(cfg.DATA_DIR);
  const PUBLIC_URL = (cfg.PUBLIC_URL ?? `http://${cfg.HOST}:${cfg.PORT}`).replace(/\/+$/, '');
  return { ...cfg, DATA_DIR, PUBLIC_URL, version };
}
