import { z } from 'zod';
import { decimal } from '../src/contracts/numbers';

/**
 * What each environment variable accepts: the zod parsers of the values and the schema that holds them
 * all. The defaults and the help of each are in config.ts (`CONFIG_DOCS`), which loads them.
 */

const port = decimal(
  z
    .number({ error: 'an integer from 1 to 65535' })
    .int({ error: 'an integer from 1 to 65535' })
    .min(1, { error: 'an integer from 1 to 65535' })
    .max(65535, { error: 'an integer from 1 to 65535' }),
);

const optionalUrl = (what: string) =>
  z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(z.url({ error: `a ${what} URL` }).optional())
    .optional();

const requiredUrl = (what: string) =>
  z
    .string()
    .trim()
    .pipe(z.url({ error: `a ${what} URL` }));

/** A ws(s) address with `{listenKey}` where the user-data stream's key goes. */
const streamTemplate = z
  .string()
  .trim()
  .refine((v) => /^wss?:\/\/[^\s]+$/.test(v) && v.includes('{listenKey}'), {
    error: 'a ws(s):// URL with {listenKey} where the key goes',
  });

/**
 * Which proxies may say who the client is (`X-Forwarded-For`, `-Proto`, `-Host`): off (''), `true` for
 * any, a hop count, or a comma list of addresses and CIDR ranges.
 */
const trustProxy = z
  .string()
  .trim()
  .refine(
    (v) =>
      v === '' || v === 'true' || /^\d{1,2}$/.test(v) || /^[0-9a-fA-F.:/]+(,\s*[0-9a-fA-F.:/]+)*$/.test(v),
    {
      error: "'', true, a hop count, or a comma list of addresses/CIDRs",
    },
  )
  .transform((v): boolean | number | string[] =>
    v === '' ? false : v === 'true' ? true : /^\d+$/.test(v) ? Number(v) : v.split(',').map((s) => s.trim()),
  );

const optionalText = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

export const NEWS_SOURCE_NAMES = [
  'replay',
  'rss',
  'binance-announcements',
  'webhook',
  'x',
  'telegram',
] as const;

const newsSources = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(
    z
      .array(z.enum(NEWS_SOURCE_NAMES, { error: `a comma list of ${NEWS_SOURCE_NAMES.join(', ')}` }))
      .min(1, { error: `a comma list of ${NEWS_SOURCE_NAMES.join(', ')}` }),
  );

const HOST_PATTERN = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** `*` (any public host), or a comma list of host names and `*.name` patterns. */
const pushServiceHosts = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(
    z
      .array(z.string())
      .min(1, { error: 'a comma list of host names (*.name for any under it), or *' })
      .refine(
        (hosts) => (hosts.length === 1 && hosts[0] === '*') || hosts.every((h) => HOST_PATTERN.test(h)),
        {
          error: 'a comma list of host names (*.name for any under it), or *',
        },
      ),
  );

/** Sources whose items reach Premium accounts only; may be empty. */
const premiumSources = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.enum(NEWS_SOURCE_NAMES, { error: `a comma list of ${NEWS_SOURCE_NAMES.join(', ')}` })));

const intBetween = (min: number, max: number) => {
  const error = `an integer from ${min} to ${max}`;
  return decimal(z.number({ error }).int({ error }).min(min, { error }).max(max, { error }));
};

const commaList = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

export const ConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test'], { error: 'development, production or test' }),
  PORT: port,
  HOST: z.string().min(1, { error: 'a host name or address' }),
  TRUST_PROXY: trustProxy,
  DATA_DIR: z.string().min(1, { error: 'a folder path' }),
  DATABASE_URL: optionalUrl('postgres://'),
  REDIS_URL: optionalUrl('redis://'),
  REDIS_PREFIX: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9:._-]{0,64}$/, {
      error: 'up to 64 letters, digits, colons, dots, dashes or underscores',
    }),
  ROLE: z.enum(['all', 'api', 'worker'], { error: 'all, api or worker' }),
  MIGRATE_ON_START: z.enum(['true', 'false'], { error: 'true or false' }).transform((v) => v === 'true'),
  MARKET_SOURCE: z.enum(['auto', 'binance', 'sim'], { error: 'auto, binance or sim' }),
  BINANCE_FAPI_URL: requiredUrl('http(s)://'),
  BINANCE_FSTREAM_URL: requiredUrl('ws(s)://'),
  BINANCE_DEMO_FAPI_URL: requiredUrl('http(s)://'),
  BINANCE_API_URL: requiredUrl('http(s)://'),
  BINANCE_TIMEOUT_MS: intBetween(100, 60_000),
  BINANCE_ORDER_SETTLE_MS: intBetween(0, 60_000),
  PROTECTION_RECONCILE_S: intBetween(1, 3_600),
  BINANCE_USER_STREAM_URL: streamTemplate,
  BINANCE_DEMO_USER_STREAM_URL: streamTemplate,
  BINANCE_LISTEN_KEY_KEEPALIVE_MS: intBetween(100, 3_540_000),
  BYBIT_API_URL: requiredUrl('http(s)://'),
  BYBIT_STREAM_URL: requiredUrl('ws(s)://'),
  BYBIT_DEMO_API_URL: requiredUrl('http(s)://'),
  BYBIT_DEMO_STREAM_URL: requiredUrl('ws(s)://'),
  OKX_API_URL: requiredUrl('http(s)://'),
  OKX_STREAM_URL: requiredUrl('ws(s)://'),
  OKX_DEMO_API_URL: requiredUrl('http(s)://'),
  OKX_DEMO_STREAM_URL: requiredUrl('ws(s)://'),
  OKX_BUSINESS_STREAM_URL: requiredUrl('ws(s)://'),
  OKX_DEMO_BUSINESS_STREAM_URL: requiredUrl('ws(s)://'),
  MARKET_STALE_MS: intBetween(500, 600_000),
  MARKET_SIM_SEED: decimal(z.number({ error: 'an integer' }).int({ error: 'an integer' })),
  MARKET_SIM_TICK_MS: intBetween(20, 60_000),
  PRICE_MAX_AGE_MS: intBetween(250, 60_000),
  IMPACT_CALIBRATION_MIN_SAMPLES: intBetween(1, 1_000_000),
  NEWS_SOURCES: newsSources,
  PREMIUM_NEWS_SOURCES: premiumSources,
  RSS_FEEDS: commaList,
  REPLAY_INTERVAL_MS: intBetween(10, 3_600_000),
  NEWS_POLL_MS: intBetween(50, 86_400_000),
  SOURCE_LAG_DEGRADED_SECONDS: intBetween(1, 86_400),
  BINANCE_ANNOUNCEMENTS_URL: requiredUrl('http(s)://'),
  X_API_URL: requiredUrl('http(s)://'),
  X_BEARER_TOKEN: optionalText,
  TELEGRAM_API_URL: requiredUrl('http(s)://'),
  TELEGRAM_BOT_TOKEN: optionalText,
  TELEGRAM_WEBHOOK_URL: optionalUrl('https://'),
  PROXY_CACHE_MB: intBetween(1, 100_000),
  ANALYZER: z.enum(['local', 'llm'], { error: 'local or llm' }),
  LLM_BASE_URL: optionalUrl('http(s)://'),
  LLM_API_KEY: optionalText,
  LLM_MODEL: optionalText,
  LLM_TIMEOUT_MS: intBetween(100, 600_000),
  SECRETS_KEY: optionalText.pipe(
    z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, { error: '64 hex characters (32 bytes)' })
      .optional(),
  ),
  SECRETS_KEY_FILE: optionalText,
  SMTP_URL: optionalUrl('smtp(s)://'),
  PUBLIC_URL: optionalUrl('http(s)://'),
  VAPID_PUBLIC_KEY: optionalText,
  VAPID_PRIVATE_KEY: optionalText,
  VAPID_SUBJECT: optionalText.pipe(
    z
      .string()
      .regex(/^(mailto:|https:\/\/)\S+$/, { error: 'a mailto: or https:// address' })
      .optional(),
  ),
  PUSH_SERVICE_HOSTS: pushServiceHosts,
  STRIPE_SECRET_KEY: optionalText,
  STRIPE_WEBHOOK_SECRET: optionalText,
  STRIPE_API_URL: requiredUrl('http(s)://'),
  BTCPAY_URL: optionalUrl('http(s)://'),
  BTCPAY_API_KEY: optionalText,
  BTCPAY_STORE_ID: optionalText,
  BTCPAY_WEBHOOK_SECRET: optionalText,
  PAYMENT_SANDBOX: z.enum(['auto', 'true', 'false'], { error: 'auto, true or false' }),
  GOOGLE_CLIENT_ID: optionalText,
  GOOGLE_CLIENT_SECRET: optionalText,
  TWITTER_CLIENT_ID: optionalText,
  TWITTER_CLIENT_SECRET: optionalText,
  GOOGLE_ISSUER: requiredUrl('http(s)://'),
  TWITTER_AUTHORIZE_URL: requiredUrl('http(s)://'),
  TWITTER_API_URL: requiredUrl('http(s)://'),
  ETH_RPC_URL: optionalUrl('http(s)://'),
  INGEST_TOKEN: optionalText,
  ADMIN_EMAILS: commaList,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    error: 'fatal, error, warn, info, debug, trace or silent',
  }),
  SHUTDOWN_TIMEOUT_MS: intBetween(1_000, 600_000),
  // The one switch of server/warm/: read here once, at start.
  SPEED_TUNING: z.enum(['on', 'off'], { error: 'on or off' }),
});

export type Env = z.infer<typeof ConfigSchema>;
