import webpush from 'web-push';
import type { Config } from '../../../config';
import type { Secrets } from '../../../plugins/secrets';
import type { NotificationsRepo } from '../notifications.repo';

/** The VAPID pair every push is signed with (RFC 8292), and the contact the push services see. */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  subject: string;
}

const KEY_NAME = 'vapid';

/** The contact in every push's JWT: VAPID_SUBJECT, else PUBLIC_URL when it is https, else a placeholder. */
export function vapidSubject(config: Pick<Config, 'VAPID_SUBJECT' | 'PUBLIC_URL'>): string {
  if (config.VAPID_SUBJECT !== undefined) return config.VAPID_SUBJECT;
  return config.PUBLIC_URL.startsWith('https://') ? config.PUBLIC_URL : 'mailto:admin@localhost';
}

/**
 * VAPID_PUBLIC_KEY/VAPID_PRIVATE_KEY when set; else the pair kept in `server_keys` (its private key sealed
 * with the server's secret), made on first start. Every process on one database signs with the same pair,
 * so a browser's subscription stays valid whichever process sends.
 */
export async function loadVapidKeys(
  config: Pick<Config, 'VAPID_PUBLIC_KEY' | 'VAPID_PRIVATE_KEY' | 'VAPID_SUBJECT' | 'PUBLIC_URL'>,
  repo: Pick<NotificationsRepo, 'serverKey' | 'saveServerKey'>,
  secrets: Pick<Secrets, 'encrypt' | 'decrypt'>,
): Promise<VapidKeys> {
  const subject = vapidSubject(config);
  if (config.VAPID_PUBLIC_KEY !== undefined && config.VAPID_PRIVATE_KEY !== undefined) {
    return { publicKey: config.VAPID_PUBLIC_KEY, privateKey: config.VAPID_PRIVATE_KEY, subject };
  }
  let row = await repo.serverKey(KEY_NAME);
  if (row === null) {
    const made = webpush.generateVAPIDKeys();
    await repo.saveServerKey(KEY_NAME, made.publicKey, secrets.encrypt(made.privateKey));
    row = await repo.serverKey(KEY_NAME);
    if (row === null) throw new Error('The VAPID key pair was not kept');
  }
  return { publicKey: row.publicKey, privateKey: secrets.decrypt(row.privateKeySealed), subject };
}
