import { useEffect, useState } from 'react';
import type { SubscriptionView } from '../../contracts/billing';
import { AUTH_TEXT } from '../../services/auth/messages';
import { loadSubscription } from '../../services/billing';
import { rememberStatus } from '../../services/premium';
import { useServices } from '../AppContext';

export type SubscriptionRead =
  { state: 'loading' } | { state: 'ok'; view: SubscriptionView } | { state: 'error'; message: string };

/**
 * `GET /subscriptions/me` once the start-up refresh has answered (a page opened from the provider's
 * redirect has no access token before that), and again whenever the person signs in or `reads` changes.
 */
export function useSubscription(reads = 0): SubscriptionRead {
  const { api, stores } = useServices();
  const resumed = stores.session.resumed.value;
  const loggedIn = stores.session.isLoggedIn.value;
  const [read, setRead] = useState<SubscriptionRead>({ state: 'loading' });
  useEffect(() => {
    if (!resumed) return undefined;
    if (!loggedIn) {
      setRead({ state: 'error', message: AUTH_TEXT.mustLogIn });
      return undefined;
    }
    let live = true;
    void loadSubscription(api.main).then((loaded) => {
      if (!live) return;
      if (loaded.ok) rememberStatus(stores.session, loaded.value);
      setRead(loaded.ok ? { state: 'ok', view: loaded.value } : { state: 'error', message: loaded.message });
    });
    return () => {
      live = false;
    };
  }, [api.main, stores.session, resumed, loggedIn, reads]);
  return read;
}
