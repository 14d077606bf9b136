import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOCS, ConfigError, loadConfig } from '../../server/config';

describe('loadConfig', () => {
  it('fills every documented default', () => {
    const cfg = loadConfig({}, '1.2.3');
    expect(cfg).toMatchObject({
      PORT: 8080,
      HOST: '127.0.0.1',
      DATA_DIR: path.resolve('./data'),
      MARKET_SOURCE: 'auto',
      NEWS_SOURCES: ['replay'],
      ANALYZER: 'local',
      LOG_LEVEL: 'info',
      PUBLIC_URL: 'http://127.0.0.1:8080',
      version: '1.2.3',
    });
    expect(cfg.DATABASE_URL).toBeUndefined();
    expect(cfg.REDIS_URL).toBeUndefined();
  });

  it('documents every variable ARCHITECTURE.md lists', () => {
    const listed = [
      'PORT',
      'HOST',
      'DATA_DIR',
      'DATABASE_URL',
      'REDIS_URL',
      'MARKET_SOURCE',
      'NEWS_SOURCES',
      'ANALYZER',
      'LLM_BASE_URL',
      'LLM_API_KEY',
      'LLM_MODEL',
      'SECRETS_KEY',
      'SMTP_URL',
      'PUBLIC_URL',
      'STRIPE_SECRET_KEY',
      'STRIPE_WEBHOOK_SECRET',
      'BTCPAY_URL',
      'BTCPAY_API_KEY',
      'BTCPAY_STORE_ID',
      'BTCPAY_WEBHOOK_SECRET',
      'GOOGLE_CLIENT_ID',
      'GOOGLE_CLIENT_SECRET',
      'TWITTER_CLIENT_ID',
      'TWITTER_CLIENT_SECRET',
      'INGEST_TOKEN',
      'LOG_LEVEL',
    ];
    for (const name of listed) expect(Object.keys(CONFIG_DOCS)).toContain(name);
  });

  it('parses given values and treats empty strings as unset', () => {
    const cfg = loadConfig({
      PORT: '9000',
      DATA_DIR: '/tmp/x',
      NEWS_SOURCES: 'replay, webhook',
      DATABASE_URL: '',
      REDIS_URL: 'redis://127.0.0.1:6379',
      PUBLIC_URL: 'https://console.example/',
    });
    expect(cfg.PORT).toBe(9000);
    expect(cfg.DATA_DIR).toBe('/tmp/x');
    expect(cfg.NEWS_SOURCES).toEqual(['replay', 'webhook']);
    expect(cfg.DATABASE_URL).toBeUndefined();
    expect(cfg.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(cfg.PUBLIC_URL).toBe('https://console.example');
  });

  it.each([
    [{ PORT: 'abc' }, 'Invalid PORT="abc": expected an integer from 1 to 65535'],
    [{ PORT: '70000' }, 'Invalid PORT="70000": expected an integer from 1 to 65535'],
    [{ MARKET_SOURCE: 'kraken' }, 'Invalid MARKET_SOURCE="kraken": expected auto, binance or sim'],
    [{ ANALYZER: 'gpt' }, 'Invalid ANALYZER="gpt": expected local or llm'],
    [
      { LOG_LEVEL: 'loud' },
      'Invalid LOG_LEVEL="loud": expected fatal, error, warn, info, debug, trace or silent',
    ],
    [{ DATABASE_URL: 'not a url' }, 'Invalid DATABASE_URL="not a url": expected a postgres:// URL'],
    [
      { NEWS_SOURCES: 'replay,fax' },
      'Invalid NEWS_SOURCES="replay,fax": expected a comma list of replay, rss, binance-announcements, webhook, x, telegram',
    ],
  ])('rejects %o with one line naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('refuses Postgres without SECRETS_KEY: servers sharing a database must share the key', () => {
    const url = { DATABASE_URL: 'postgres://127.0.0.1:5432/app' };
    expect(() => loadConfig(url)).toThrow(
      'SECRETS_KEY (or SECRETS_KEY_FILE) is required with DATABASE_URL: every server on one database must seal secrets with the same key',
    );
    expect(loadConfig({ ...url, SECRETS_KEY: 'ab'.repeat(32) }).DATABASE_URL).toBe(url.DATABASE_URL);
  });

  it('never echoes a secret value in the error', () => {
    let message = '';
    try {
      loadConfig({ SECRETS_KEY: 'my-very-secret-value' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe('Invalid SECRETS_KEY=(hidden): expected 64 hex characters (32 bytes)');
    expect(message).not.toContain('my-very-secret-value');
  });
});
