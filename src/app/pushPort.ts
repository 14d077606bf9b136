import type { PushPort, PushSupport } from '../services/notifications';

/** The service worker that shows pushes (public/sw.js, served at /sw.js for the whole app's scope). */
const WORKER_URL = '/sw.js';

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(base64url.length / 4) * 4, '=');
  const raw = atob(base64);
  const out = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

async function registration(): Promise<ServiceWorkerRegistration> {
  const existing = await navigator.serviceWorker.getRegistration('/');
  if (existing !== undefined) return existing;
  await navigator.serviceWorker.register(WORKER_URL, { scope: '/' });
  return navigator.serviceWorker.ready;
}

/** The browser's service worker and PushManager behind the core's port. */
export function browserPush(): PushPort {
  const support = (): PushSupport => {
    if (typeof window === 'undefined' || !window.isSecureContext) return 'insecure';
    if (!('serviceWorker' in navigator)) return 'no-service-worker';
    if (!('PushManager' in window)) return 'no-push';
    if (typeof Notification === 'function' && Notification.permission === 'denied') return 'denied';
    return null;
  };
  return {
    support,
    async current() {
      if (support() !== null) return null;
      const reg = await navigator.serviceWorker.getRegistration('/');
      const sub = await reg?.pushManager.getSubscription();
      return sub?.endpoint ?? null;
    },
    async subscribe(publicKey) {
      if (typeof Notification === 'function' && Notification.permission === 'default') {
        await Notification.requestPermission();
      }
      const reg = await registration();
      const key = keyBytes(publicKey);
      let sub = await reg.pushManager.getSubscription();
      // A subscription made with another server key cannot take this server's pushes: make a new one.
      const old = sub?.options.applicationServerKey;
      if (sub !== null && old !== null && old !== undefined && !sameBytes(new Uint8Array(old), key)) {
        await sub.unsubscribe();
        sub = null;
      }
      sub ??= await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
      const json = sub.toJSON();
      const p256dh = json.keys?.p256dh;
      const auth = json.keys?.auth;
      if (json.endpoint === undefined || p256dh === undefined || auth === undefined) {
        throw new Error('The browser gave a subscription without keys.');
      }
      return { endpoint: json.endpoint, keys: { p256dh, auth } };
    },
    async unsubscribe() {
      if (support() !== null) return null;
      const reg = await navigator.serviceWorker.getRegistration('/');
      const sub = await reg?.pushManager.getSubscription();
      if (sub === undefined || sub === null) return null;
      await sub.unsubscribe();
      return sub.endpoint;
    },
  };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
