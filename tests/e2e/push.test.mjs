// Web Push in Chromium: the page registers the service worker (/sw.js); on the account
// page a player turns notifications on (the permission granted through the browser
// context), the subscription reaches the server and is listed among their devices; a push
// message delivered through the DevTools protocol (`ServiceWorker.deliverPushMessage`,
// as a push service would) is shown by the worker as a notification with its title, body
// and tag; the device is removed on the account page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, accountPage, player, apiAs, axeViolations } from './lib.mjs';

let pax;

before(async () => {
  pax = await player('pax');
  pax.page.on('dialog', (d) => d.accept());
});

after(async () => {
  await pax?.close();
});

/** The service worker's registration id for this site, through the DevTools protocol. */
async function registrationOf(cdp) {
  const found = new Promise((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const r = registrations.find((x) => x.scopeURL === `${BASE}/` && !x.isDeleted);
      if (r) resolve(r.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  return found;
}

/** The notifications the service worker shows now. */
function notifications(page) {
  return page.evaluate(async () => {
    const r = await navigator.serviceWorker.getRegistration('/');
    const all = r ? await r.getNotifications() : [];
    return all.map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: n.data && n.data.url }));
  });
}

/**
 * Delivers `data` to the service worker as a push service would, through the DevTools
 * protocol, until `ok(notifications)` holds: again every 5 s (a worker that the browser
 * stopped meanwhile may miss one), 30 s at most. The notifications then shown.
 */
async function deliverUntil(page, cdp, registrationId, data, ok) {
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  const deadline = Date.now() + 30000;
  for (;;) {
    await cdp.send('ServiceWorker.deliverPushMessage', { origin: BASE, registrationId, data: JSON.stringify(data) });
    const until = Math.min(deadline, Date.now() + 5000);
    while (Date.now() < until) {
      const shown = await notifications(page);
      if (ok(shown)) return shown;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (Date.now() >= deadline) return notifications(page);
  }
}

const devices = (page) => page.locator('#devices li[data-device]');

test('notifications turned on reach the server; a push message is shown by the service worker; the device is removed', async (t) => {
  const { page, context } = pax;
  await context.grantPermissions(['notifications'], { origin: BASE });
  await accountPage(page);
  await page.locator('#devices li', { hasText: 'No device gets notifications yet' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.serviceWorker.getRegistration('/').then((r) => !!r)), true,
    'the client registered /sw.js');

  // Turned on: the browser subscribes with the server's key. Debian's Chromium has no
  // push service to subscribe at (Google's is not built in): then the page says so, and
  // the subscription goes to the server as a browser would send it.
  await page.click('#turn-on-push');
  const said = page.locator('#devices-section p.ok, #devices-section p.error').filter({ hasText: /./ });
  await said.first().waitFor();
  const text = await said.first().textContent();
  t.diagnostic(`turning notifications on: ${text}`);
  if (await said.first().getAttribute('class') === 'ok') {
    assert.match(text, /Notifications are on for Chrome on Linux/);
  } else {
    assert.match(text, /could not subscribe/, text);
    const key = (await (await fetch(`${BASE}/v1/push/key`)).json()).public_key;
    assert.equal(Buffer.from(key, 'base64url').length, 65);
    // A subscription of the shape PushSubscription.toJSON() gives (RFC 8291's example keys).
    const sub = {
      endpoint: 'https://push.example/send/e2e', expirationTime: null,
      keys: { p256dh: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4', auth: 'BTBZMqHH6r4Tts7J_aSIgg' },
      device: 'Chrome on Linux',
    };
    const made = await apiAs(pax, 'POST', '/v1/players/me/push-subscriptions', sub);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    await accountPage(page);
  }
  await devices(page).first().waitFor();
  assert.equal(await devices(page).count(), 1);
  assert.match(await devices(page).first().textContent(), /Chrome on Linux.*added .*last notified never/);
  const listed = await apiAs(pax, 'GET', '/v1/players/me/push-subscriptions');
  assert.equal(listed.body.length, 1);
  assert.deepEqual(await axeViolations(page), [], 'the account page with a device listed');

  // A push message, delivered to the worker as a push service would.
  const cdp = await context.newCDPSession(page);
  const registrationId = await registrationOf(cdp);
  const notice = {
    title: 'Your turn against Bob (Backgammon)', body: 'Bob played 8/5 6/5.',
    url: '/#/game/0190f6d4-7c1e-7000-8000-000000000001', tag: 'game:e2e', kind: 'your_turn',
  };
  const shown = await deliverUntil(page, cdp, registrationId, notice, (all) => all.length > 0);
  assert.deepEqual(shown, [{
    title: notice.title, body: notice.body, tag: notice.tag, url: `${BASE}${notice.url}`,
  }]);
  // Another notice of the same game replaces it; one that names another site opens home.
  const replaced = await deliverUntil(page, cdp, registrationId,
    { ...notice, title: 'Bob resigned', url: 'https://elsewhere.example/' },
    (all) => all.some((n) => n.title === 'Bob resigned'));
  assert.deepEqual(replaced, [{ title: 'Bob resigned', body: notice.body, tag: notice.tag, url: `${BASE}/` }]);

  // Removed on the account page: the server holds no subscription of it.
  await devices(page).first().locator('button[data-action=remove]').click();
  await page.locator('#devices-section [role=status]', { hasText: /gets no more notifications/ }).waitFor();
  await page.locator('#devices li', { hasText: 'No device gets notifications yet' }).waitFor();
  assert.deepEqual((await apiAs(pax, 'GET', '/v1/players/me/push-subscriptions')).body, []);
  assert.deepEqual(pax.errors, []);
});
