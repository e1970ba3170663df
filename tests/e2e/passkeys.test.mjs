// Passkeys: a player adds one on the account page (a virtual authenticator of Chromium's,
// through the DevTools protocol, plays the device), signs in with it without typing a
// name, and in a second browser holding the same credential signs in as the same player
// and finds the same games; removed on the account page, it is refused. Passkeys need the
// server's name, not its IP address: every page here is at `LOCAL` (localhost).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, LOCAL, freshBrowser, accountPage, virtualAuthenticator, player, createGame, apiPlayer, axeViolations } from './lib.mjs';

let pia; // signs up with a password, then adds a passkey
const opened = [];

/** A fresh browser (context) with its page at `base`, not signed in. */
async function browser(base = LOCAL) {
  const b = await freshBrowser({ base });
  opened.push(b.context);
  return b;
}

before(async () => {
  pia = await player('pia', undefined, { base: LOCAL });
  pia.page.on('dialog', (d) => d.accept());
});

after(async () => {
  await pia?.close();
  for (const c of opened) await c.close();
});

const who = (page) => page.textContent('#who');

test('a passkey added in one browser signs in there and in a second browser holding it, with no name typed; removed, it is refused', async () => {
  const { page, context } = pia;
  const game = await createGame(pia, 'hoofden', {});
  const auth = await virtualAuthenticator(context, page);

  // Added on the account page, with a name; listed, never used yet.
  await accountPage(page, LOCAL);
  await page.locator('#passkeys li', { hasText: 'No passkeys yet' }).waitFor();
  await page.fill('#passkey-name', 'my laptop');
  await page.click('#add-passkey');
  await page.locator('#passkey-form [role=status]', { hasText: /“my laptop” is added/ }).waitFor();
  const row = page.locator('#passkeys li[data-passkey]');
  await row.filter({ hasText: 'my laptop' }).waitFor();
  assert.equal(await row.count(), 1);
  assert.match(await row.textContent(), /my laptop.*added .*last used never/);
  const [made] = await auth.credentials();
  // (The DevTools protocol calls a resident key `isResidentCredential`.)
  assert.equal(made.isResidentCredential, true, 'a discoverable credential: signing in needs no name');
  assert.equal(made.rpId, 'localhost');
  // The user handle is the player's id (its 16 bytes).
  assert.equal(Buffer.from(made.userHandle, 'base64').toString('hex'), pia.id.replace(/-/g, ''));
  assert.equal(await row.getAttribute('data-passkey'), Buffer.from(made.credentialId, 'base64').toString('base64url'));
  assert.deepEqual(await axeViolations(page), [], 'the account page with a passkey listed');

  // The same authenticator cannot make a second passkey of the same player.
  await page.click('#add-passkey');
  await page.locator('#passkey-form [role=alert]', { hasText: /already holds a passkey of yours/ }).waitFor();
  assert.equal(await row.count(), 1);

  // Signed out, signed in again with the passkey: no name typed.
  await page.click('#sign-out');
  await page.waitForSelector('#sign-in-passkey');
  assert.equal(await page.inputValue('#signin-name'), '');
  await page.click('#sign-in-passkey');
  await page.waitForSelector('#inbox');
  assert.match(await who(page), new RegExp(`Signed in as ${pia.name}`));
  assert.ok((await context.cookies(LOCAL)).some((c) => c.name === '__Host-worp_session'));
  await accountPage(page, LOCAL);
  await page.waitForFunction(() => /last used just now/.test(document.querySelector('#passkeys li[data-passkey]')?.textContent || ''));
  // The session signed in with it is listed, this browser's.
  await page.locator('#sessions li[data-current="true"]').waitFor();

  // A second browser: no cookie, its own authenticator, holding the credential exported
  // from the first (its private key, relying party, user handle, counter).
  const [cred] = await auth.credentials();
  assert.ok(cred.privateKey && cred.signCount >= 1, JSON.stringify({ ...cred, privateKey: '…' }));
  const b = await browser();
  assert.deepEqual(await b.context.cookies(LOCAL), []);
  await b.page.waitForSelector('#sign-in-passkey');
  const bAuth = await virtualAuthenticator(b.context, b.page);
  await bAuth.cdp.send('WebAuthn.addCredential', { authenticatorId: bAuth.id, credential: cred });
  await b.page.click('#sign-in-passkey');
  await b.page.waitForSelector('#inbox');
  assert.match(await who(b.page), new RegExp(`Signed in as ${pia.name}`));
  await b.page.waitForSelector(`#my-games a[data-game="${game}"]`);
  // Signed out there (the credential is still on its authenticator).
  await b.page.click('#sign-out');
  await b.page.waitForSelector('#sign-in-passkey');
  const [bCred] = await bAuth.credentials();
  assert.ok(bCred.signCount > cred.signCount);

  // Removed in the first browser's account page: the second's next sign-in is refused.
  await accountPage(page, LOCAL);
  await row.locator('button[data-action="remove"]').click();
  await page.locator('#passkeys-section [role=status]', { hasText: /“my laptop” is removed/ }).waitFor();
  await page.locator('#passkeys li', { hasText: 'No passkeys yet' }).waitFor();
  const fresh = await b.context.newPage();
  fresh.on('pageerror', (e) => b.errors.push(String(e)));
  await fresh.goto(`${LOCAL}/`);
  await fresh.waitForSelector('#sign-in-passkey');
  const freshAuth = await virtualAuthenticator(b.context, fresh);
  await freshAuth.cdp.send('WebAuthn.addCredential', { authenticatorId: freshAuth.id, credential: bCred });
  await fresh.click('#sign-in-passkey');
  const refusal = fresh.locator('#sign-in-error');
  await refusal.filter({ hasText: /not accepted/ }).waitFor();
  assert.match(await refusal.textContent(), /This passkey is not accepted: it was removed from its account.*Sign in with your name and password/);
  assert.equal(await fresh.locator('#who-name').count(), 0);
  assert.ok(!(await b.context.cookies(LOCAL)).some((c) => c.name === '__Host-worp_session'));
  // The focus stays on the button, to try again.
  assert.equal(await fresh.evaluate(() => document.activeElement.id), 'sign-in-passkey');
  assert.deepEqual(b.errors, []);
  assert.deepEqual(pia.errors, []);
});

test('where passkeys cannot work the page says why: no authenticator answers, an IP address, a browser without WebAuthn', async () => {
  // An authenticator holding no passkey for Worp: the browser gives up.
  const none = await browser();
  await none.page.waitForSelector('#sign-in-passkey');
  await virtualAuthenticator(none.context, none.page);
  await none.page.click('#sign-in-passkey');
  await none.page.locator('#sign-in-error', { hasText: /cancelled, or took too long, or this device holds no passkey/ }).waitFor();

  // At 127.0.0.1 (an IP address), the browser refuses any relying party.
  const ip = await browser(BASE);
  await ip.page.waitForSelector('#sign-in-passkey');
  await virtualAuthenticator(ip.context, ip.page);
  await ip.page.click('#sign-in-passkey');
  await ip.page.locator('#sign-in-error', { hasText: /Passkeys do not work at an IP address \(127\.0\.0\.1\): open Worp by its name, e\.g\. localhost/ }).waitFor();

  // A browser without WebAuthn: the sign-in button says so; the account page too.
  const old = await browser();
  await old.context.addInitScript(() => { delete window.PublicKeyCredential; });
  await old.page.reload();
  await old.page.waitForSelector('#sign-in-passkey');
  await old.page.click('#sign-in-passkey');
  await old.page.locator('#sign-in-error', { hasText: /This browser cannot use passkeys: sign in with your name and password/ }).waitFor();
  const kept = await apiPlayer(`olaf ${Date.now() % 100000}`);
  await old.page.click('summary');
  await old.page.fill('#acct-token', kept.token);
  await old.page.click('#use-token');
  await old.page.waitForSelector('#inbox');
  await old.page.goto(`${LOCAL}/#/account`);
  await old.page.locator('#passkeys-unavailable', { hasText: /This browser cannot use passkeys: add one from a browser that can/ }).waitFor();
  assert.equal(await old.page.locator('#add-passkey').count(), 0);
  for (const b of [none, ip, old]) assert.deepEqual(b.errors, []);
});

test('a player with no password (a token kept in the browser) adds a passkey, revokes the first token, and signs in with the passkey', async () => {
  const kim = await apiPlayer(`kim ${Date.now() % 100000}`);
  const { page, context, errors } = await browser();
  const auth = await virtualAuthenticator(context, page);
  await page.click('summary');
  await page.fill('#acct-token', kim.token);
  await page.click('#use-token');
  await page.waitForSelector('#inbox');
  await page.goto(`${LOCAL}/#/account`);
  await page.waitForSelector('#passkey-form');
  // Unnamed, it is called after the browser.
  await page.click('#add-passkey');
  await page.locator('#passkeys li[data-passkey]', { hasText: /Chrom/ }).waitFor();
  assert.equal((await auth.credentials()).length, 1);
  // The first token was this browser's way in: revoked, the browser is signed out.
  await page.click('#revoke-first-token');
  await page.waitForSelector('#sign-in-passkey');
  assert.equal(await page.evaluate(() => localStorage.getItem('worp.account')), null);
  assert.equal((await fetch(`${BASE}/v1/players/me`, { headers: { authorization: `Bearer ${kim.token}` } })).status, 401);
  await page.click('#sign-in-passkey');
  await page.waitForSelector('#inbox');
  assert.match(await who(page), new RegExp(`Signed in as ${kim.name}`));
  // Her only way in now: removing it warns her so (answered No here).
  await accountPage(page, LOCAL);
  page.removeAllListeners('dialog');
  const asked = new Promise((resolve) => { page.once('dialog', (d) => { resolve(d.message()); d.dismiss(); }); });
  await page.locator('#passkeys li[data-passkey] button[data-action="remove"]').click();
  assert.match(await asked, /your only passkey and you have no password: set a password first/);
  assert.equal(await page.locator('#passkeys li[data-passkey]').count(), 1);
  assert.deepEqual(errors, []);
});
