// Worp's service worker, served at /sw.js (its scope is the whole site). It shows the
// Web Push notices the server sends (their JSON: title, body, url, tag, kind), and a click
// on one brings up the game: a tab already showing it, else a tab of Worp sent there,
// else a new window. Nothing is cached: the client always comes from the server.
'use strict';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

/** `url` if it is a page of this site, else the home page: a notice never opens another site. */
function sameSite(url) {
  try {
    const u = new URL(url || '/', self.location.origin);
    return u.origin === self.location.origin ? u.href : `${self.location.origin}/`;
  } catch {
    return `${self.location.origin}/`;
  }
}

/** What a push message says, read as leniently as it can be. */
function noticeOf(data) {
  if (!data) return {};
  try {
    const m = data.json();
    return m && typeof m === 'object' ? m : {};
  } catch {
    return { body: data.text() };
  }
}

self.addEventListener('push', (event) => {
  const m = noticeOf(event.data);
  const title = typeof m.title === 'string' && m.title ? m.title : 'Worp';
  const options = {
    body: typeof m.body === 'string' ? m.body : '',
    data: { url: sameSite(m.url), kind: m.kind || null },
    lang: 'en',
  };
  if (typeof m.tag === 'string' && m.tag) {
    // A newer notice about the same thing replaces the older one, and is heard again.
    options.tag = m.tag;
    options.renotify = true;
  }
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = sameSite(event.notification.data && event.notification.data.url);
  event.waitUntil((async () => {
    const tabs = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const showing = tabs.find((c) => c.url === url);
    if (showing) return showing.focus();
    for (const tab of tabs) {
      if (new URL(tab.url).origin !== self.location.origin) continue;
      try {
        const focused = await tab.focus();
        return await focused.navigate(url);
      } catch {
        // Not controlled by this worker (opened before it): a new window instead.
      }
    }
    return self.clients.openWindow(url);
  })());
});
