import {
  KEY_TEXTS,
  KeyWarning,
  type ExchangeKey,
  type ExchangeKeyCreate,
  type KeyEnvironment,
} from '../../../src/contracts/exchanges';
import { appError } from '../../plugins/errors';
import type { Secrets } from '../../plugins/secrets';
import { ExchangeError } from '../trading/exchange-error';
import type { BinanceCredentials } from './binance-client';
import type { ExchangesRepo, KeyRow } from './exchanges.repo';
import { checkKey, type KeyCheck, type KeyCheckClients } from './key-check';

type ValidCreate = Required<Omit<ExchangeKeyCreate, 'exchangeName'>> & { exchangeName: 'binance' };

/** A key ready for signing: decrypted in memory only, for the one call that needs it. */
export interface UsableKey {
  id: string;
  environment: KeyEnvironment;
  credentials: BinanceCredentials;
}

/**
 * The key rules: a key is checked with Binance before it is stored (refused keys are not saved; an
 * unreachable exchange saves it `unverified`), a key that can withdraw needs the user's confirmation,
 * secrets are sealed under the master key and only ever decrypted for signing, and only the owner sees
 * or deletes a key.
 */
export class ExchangesService {
  constructor(
    private readonly repo: ExchangesRepo,
    private readonly secrets: Secrets,
    private readonly clients: KeyCheckClients,
  ) {}

  async list(userId: string): Promise<ExchangeKey[]> {
    return (await this.repo.list(userId)).map(toPublic);
  }

  async add(userId: string, body: ValidCreate): Promise<ExchangeKey> {
    const credentials = { apiKey: body.apiKey, secret: body.secretKey };
    const check = await this.check(body.environment, credentials);
    if (check.canWithdraw && !body.confirmWithdrawals) {
      throw appError('CONFLICT', KEY_TEXTS.withdrawalsRefused);
    }
    const row = await this.repo.insert({
      userId,
      exchangeName: body.exchangeName,
      environment: body.environment,
      keyHint: hintOf(body.apiKey),
      apiKeySealed: this.secrets.encrypt(body.apiKey),
      secretSealed: this.secrets.encrypt(body.secretKey),
      masterKeyId: this.secrets.keyId,
      status: check.status,
      permissions: check.permissions,
      warnings: check.warnings,
      checkedAt: check.status === 'verified' ? new Date() : null,
    });
    return toPublic(row);
  }

  async remove(userId: string, id: string): Promise<void> {
    if (!isUuid(id) || !(await this.repo.remove(userId, id))) {
      throw appError('NOT_FOUND', KEY_TEXTS.notFound);
    }
  }

  /**
   * The owner's key, decrypted for signing. An `unverified` key is checked first (and refused with
   * Binance's message when Binance refuses it).
   */
  async use(userId: string, id: string): Promise<UsableKey> {
    const row = isUuid(id) ? await this.repo.get(userId, id) : undefined;
    if (row === undefined) throw appError('NOT_FOUND', KEY_TEXTS.notFound);
    const usable = this.open(row);
    if (row.status !== 'verified') {
      const check = await this.check(usable.environment, usable.credentials);
      if (check.status === 'unverified') throw appError('SERVICE_UNAVAILABLE', KEY_TEXTS.unreachable);
      await this.repo.updateCheck(row.id, check);
    }
    return usable;
  }

  /** Re-reads every key's restrictions (run daily); keys Binance cannot answer for keep their state. */
  async recheckAll(): Promise<number> {
    let checked = 0;
    for (const { id, userId } of await this.repo.all()) {
      const row = await this.repo.get(userId, id);
      if (row === undefined) continue;
      const usable = this.open(row);
      const check = await checkKey(this.clients, usable.environment, usable.credentials).catch(() => null);
      if (check === null || check.status === 'unverified') continue;
      await this.repo.updateCheck(row.id, check);
      checked++;
    }
    return checked;
  }

  private open(row: KeyRow): UsableKey {
    return {
      id: row.id,
      environment: row.environment === 'demo' ? 'demo' : 'live',
      credentials: {
        apiKey: this.secrets.decrypt(row.apiKeySealed),
        secret: this.secrets.decrypt(row.secretSealed),
      },
    };
  }

  private async check(environment: KeyEnvironment, creds: BinanceCredentials): Promise<KeyCheck> {
    try {
      return await checkKey(this.clients, environment, creds);
    } catch (err) {
      // Binance's own words (never the key): "Invalid API-key, IP, or permissions for action."
      if (err instanceof ExchangeError) throw appError('BAD_REQUEST', `Binance refused the key: ${err.msg}`);
      throw err;
    }
  }
}

function hintOf(apiKey: string): string {
  return apiKey.length <= 8 ? '*'.repeat(apiKey.length) : `${apiKey.slice(0, 4)}…${apiKey.slice(-4)}`;
}

function isUuid(id: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
}

function toPublic(row: KeyRow): ExchangeKey {
  return {
    id: row.id,
    exchangeName: 'binance',
    environment: row.environment === 'demo' ? 'demo' : 'live',
    keyHint: row.keyHint,
    permissions: row.permissions,
    status: row.status === 'verified' ? 'verified' : 'unverified',
    warnings: row.warnings.flatMap((w) => {
      const parsed = KeyWarning.safeParse(w);
      return parsed.success ? [parsed.data] : [];
    }),
    created_at: row.createdAt.toISOString(),
  };
}
