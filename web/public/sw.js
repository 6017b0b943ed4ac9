// fluxdesk service worker (served at /sw.js, scope /): takes over at once, shows pushed
// notifications and opens their page on click. A push payload is JSON:
//   { "title": "...", "body": "...", "tag": "<dedup key>", "url": "/inbox/<id>" }
// The tag is the delivery's dedup key, so a repeat replaces the shown notification rather than
// stacking another one (renotify: it still alerts).
self.addEventListener('install', () => {
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('push', (event) => {
  let payload = {};
  try {
    payload = event.data ? event.data.json() : {};
  } catch {
    payload = { body: event.data ? event.data.text() : '' };
  }
  const title = typeof payload.title === 'string' && payload.title ? payload.title : 'fluxdesk';
  const options = {
    body: typeof payload.body === 'string' ? payload.body : '',
    data: { url: typeof payload.url === 'string' && payload.url ? payload.url : '/' },
  };
  if (typeof payload.tag === 'string' && payload.tag) {
    options.tag = payload.tag;
    options.renotify = true;
  }
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = new URL(event.notification.data?.url || '/', self.location.origin);
  // Only pages of this origin.
  const url = target.origin === self.location.origin ? target.href : self.location.origin;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      for (const w of windows) {
        if (w.url === url && 'focus' in w) return w.focus();
      }
      for (const w of windows) {
        if ('navigate' in w && 'focus' in w) {
          await w.focus();
          return w.navigate(url);
        }
      }
      return self.clients.openWindow(url);
    })(),
  );
});
