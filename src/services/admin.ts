import { z } from 'zod';
import {
  AdminSources,
  AdminUser,
  AuditEntry,
  SubscriptionView,
  type AdminSources as AdminSourcesT,
  type AdminUser as AdminUserT,
  type AuditEntry as AuditEntryT,
} from '../contracts/billing';
import type { ApiClient } from './api/client';
import { errorMessage } from './api/errors';
import type { Outcome } from './billing';

const FALLBACK = 'An unexpected error occurred. Please try again.';

async function attempt<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, message: errorMessage(error, FALLBACK) };
  }
}

const Disabled = z.object({ id: z.string(), disabled: z.boolean() });

/** The admin panel's calls (`/api/admin/*`), shared by the panel and the `admin` commands. */
export function adminApi(main: ApiClient) {
  return {
    users: (): Promise<Outcome<AdminUserT[]>> => attempt(() => main.call(AdminUser.array(), '/admin/users')),
    setPremium: (id: string, premium: boolean, days?: number) =>
      attempt(() =>
        main.call(SubscriptionView, `/admin/users/${encodeURIComponent(id)}/premium`, {
          method: 'POST',
          body: premium ? { premium, ...(days === undefined ? {} : { days }) } : { premium },
        }),
      ),
    setDisabled: (id: string, disabled: boolean) =>
      attempt(() =>
        main.call(Disabled, `/admin/users/${encodeURIComponent(id)}/disable`, {
          method: 'POST',
          body: { disabled },
        }),
      ),
    sources: (): Promise<Outcome<AdminSourcesT>> => attempt(() => main.call(AdminSources, '/admin/sources')),
    audit: (): Promise<Outcome<AuditEntryT[]>> =>
      attempt(() => main.call(AuditEntry.array(), '/admin/audit')),
  };
}

export type AdminApi = ReturnType<typeof adminApi>;

/** A user as a person names one in a command: the username, the e-mail, or the id (or its start). */
export function findUser(users: readonly AdminUserT[], who: string): AdminUserT | undefined {
  const w = who.trim().toLowerCase();
  return (
    users.find((u) => u.username.toLowerCase() === w || u.email?.toLowerCase() === w || u.id === w) ??
    (w.length >= 6 ? users.find((u) => u.id.startsWith(w)) : undefined)
  );
}

/** `premium.grant` → "granted Premium", for the audit list. */
export function describeAudit(entry: AuditEntryT, names: ReadonlyMap<string, string>): string {
  const who = (id: string | null) => (id === null ? 'someone' : (names.get(id) ?? id.slice(0, 8)));
  const target = who(entry.target_user_id);
  const days = typeof entry.detail.days === 'number' ? ` for ${entry.detail.days} days` : '';
  const what: Record<string, string> = {
    'premium.grant': `granted Premium to ${target}${days}`,
    'premium.revoke': `revoked Premium of ${target}`,
    'user.disable': `disabled ${target}`,
    'user.enable': `enabled ${target}`,
  };
  return `${who(entry.actor_id)} ${what[entry.action] ?? `${entry.action} ${target}`}`;
}
