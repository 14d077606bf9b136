import {
  KEY_TEXTS,
  KeyWarning,
  type ExchangeKey,
  type ExchangeKeyCreate,
  type KeyEnvironment,
} from '../../../src/contracts/exchanges';
import { VENUES, type VenueName } from '../../../src/contracts/venues';
import { appError } from '../../plugins/errors';
import type { Secrets } from '../../plugins/secrets';
import { ExchangeError, VenueAnswerUnreadable } from '../trading/exchange-error';
import type { KeyCheck, KeyChecker, VenueCredentials } from './credentials';
import type { ExchangesRepo, KeyRow } from './exchanges.repo';

type ValidCreate = Required<Omit<ExchangeKeyCreate, 'passphrase'>> & { passphrase?: string | undefined };

/** A key ready for signing: decrypted in memory only, for the one call that needs it. */
export interface UsableKey {
  id: string;
  venue: VenueName;
  environment: KeyEnvironment;
  credentials: VenueCredentials;
}

/**
 * The key rules: a key is checked with its venue before it is stored (refused keys are not saved; an
 * unreachable venue saves it `unverified`), a key that can withdraw needs the user's confirmation,
 * secrets (and OKX's passphrase) are sealed under the master key and only ever decrypted for signing, and
 * only the owner sees or deletes a key.
 */
export class ExchangesService {
  constructor(
    private readonly repo: ExchangesRepo,
    private readonly secrets: Secrets,
    /** Each venue's key check. */
    private readonly checkers: Record<VenueName, KeyChecker>,
  ) {}

  async list(userId: string): Promise<ExchangeKey[]> {
    return (await this.repo.list(userId)).map(toPublic);
  }

  async add(userId: string, body: ValidCreate): Promise<ExchangeKey> {
    const passphrase = body.exchangeName === 'okx' ? body.passphrase : undefined;
    const credentials: VenueCredentials = {
      apiKey: body.apiKey,
      secret: body.secretKey,
      ...(passphrase === undefined ? {} : { passphrase }),
    };
    const check = await this.check(body.exchangeName, body.environment, credentials);
    if (check.canWithdraw && !body.confirmWithdrawals) {
      throw appError('CONFLICT', KEY_TEXTS.withdrawalsRefused(body.exchangeName));
    }
    const row = await this.repo.insert({
      userId,
      exchangeName: body.exchangeName,
      environment: body.environment,
      keyHint: hintOf(body.apiKey),
      apiKeySealed: this.secrets.encrypt(body.apiKey),
      secretSealed: this.secrets.encrypt(body.secretKey),
      passphraseSealed: passphrase === undefined ? null : this.secrets.encrypt(passphrase),
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
   * the venue's message when the venue refuses it).
   */
  async use(userId: string, id: string): Promise<UsableKey> {
    const row = isUuid(id) ? await this.repo.get(userId, id) : undefined;
    if (row === undefined) throw appError('NOT_FOUND', KEY_TEXTS.notFound);
    const usable = this.open(row);
    if (row.status !== 'verified') {
      const check = await this.check(usable.venue, usable.environment, usable.credentials);
      if (check.status === 'unverified') {
        throw appError('SERVICE_UNAVAILABLE', KEY_TEXTS.unreachable(usable.venue));
      }
      await this.repo.updateCheck(row.id, check);
    }
    return usable;
  }

  /** Re-reads every key's restrictions (run daily); keys their venue cannot answer for keep their state. */
  async recheckAll(): Promise<number> {
    let checked = 0;
    for (const { id, userId } of await this.repo.all()) {
      const row = await this.repo.get(userId, id);
      if (row === undefined) continue;
      const usable = this.open(row);
      const check = await this.checkers[usable.venue](usable.environment, usable.credentials).catch(
        () => null,
      );
      if (check === null || check.status === 'unverified') continue;
      await this.repo.updateCheck(row.id, check);
      checked++;
    }
    return checked;
  }

  private open(row: KeyRow): UsableKey {
    return {
      id: row.id,
      venue: venueOf(row),
      environment: row.environment === 'demo' ? 'demo' : 'live',
      credentials: {
        apiKey: this.secrets.decrypt(row.apiKeySealed),
        secret: this.secrets.decrypt(row.secretSealed),
        ...(row.passphraseSealed === null ? {} : { passphrase: this.secrets.decrypt(row.passphraseSealed) }),
      },
    };
  }

  private async check(
    venue: VenueName,
    environment: KeyEnvironment,
    creds: VenueCredentials,
  ): Promise<KeyCheck> {
    try {
      return await this.checkers[venue](environment, creds);
    } catch (err) {
      // The venue's own words (never the key): "Invalid API-key, IP, or permissions for action."
      if (err instanceof ExchangeError) throw appError('BAD_REQUEST', KEY_TEXTS.refused(venue, err.msg));
      // An answer in a shape we do not read: a 502 naming the venue and what was asked; nothing saved.
      if (err instanceof VenueAnswerUnreadable) throw appError('BAD_GATEWAY', err.detail);
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

/** The venue a stored key trades on (rows from before there were three are Binance's). */
function venueOf(row: KeyRow): VenueName {
  return (VENUES as readonly string[]).includes(row.exchangeName)
    ? (row.exchangeName as VenueName)
    : 'binance';
}

function toPublic(row: KeyRow): ExchangeKey {
  return {
    id: row.id,
    exchangeName: venueOf(row),
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
