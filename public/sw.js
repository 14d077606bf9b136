/* global self */
/*
 * The app's service worker: shows each Web Push the server sends (JSON {title, body, url, tag}) and, on a
 * click, focuses the open console or opens it. Served at /sw.js so that its scope is the whole app.
 */
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  let data;
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : '' };
  }
  const title = typeof data.title === 'string' && data.title !== '' ? data.title : 'Signal Console';
  event.waitUntil(
    self.registration.showNotification(title, {
      body: typeof data.body === 'string' ? data.body : '',
      tag: typeof data.tag === 'string' ? data.tag : undefined,
      // A note about the same thing (a proposal, then its answer) replaces the earlier one and alerts again.
      renotify: typeof data.tag === 'string',
      data: { url: typeof data.url === 'string' ? data.url : '/' },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const app = new URL('/', self.location.origin).href;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = windows.find((w) => w.url.startsWith(app));
      if (open) return open.focus();
      return self.clients.openWindow(app);
    })(),
  );
});
