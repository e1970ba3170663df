// Accounts that last: signing up with a password and signing in on another browser,
// recovery codes, the sessions list, personal access tokens, OAuth's consent screen (with
// a tiny app of the test's own on a loopback port), CSRF, password strength, the token
// kept in the browser from before passwords, and revoking the first token.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { BASE, freshBrowser, accountPage, player, signIn, createGame, apiPlayer, PASSWORD } from './lib.mjs';

let uma; // signed up on the page, in her first browser
let other; // uma's second browser (its own cookies and localStorage)
const opened = [];

/** A fresh browser (context) with its page, not signed in. */
async function browser(viewport) {
  const b = await freshBrowser({ viewport });
  opened.push(b.context);
  return b;
}

before(async () => {
  uma = await player('uma');
  uma.page.on('dialog', (d) => d.accept());
  other = await browser();
});

after(async () => {
  await uma?.close();
  for (const c of opened) await c.close();
});

const status = (page, path, init) => page.evaluate(([p, i]) => fetch(p, i).then((r) => r.status), [path, init || {}]);
const bearer = (token, path, init = {}) => fetch(`${BASE}${path}`, { ...init, headers: { ...(init.headers || {}), authorization: `Bearer ${token}` } });

test('signed up with a password in one browser, the player signs in on another and finds the same games, by cookie alone', async () => {
  assert.equal(await uma.page.evaluate(() => localStorage.getItem('worp.account')), null, 'no token kept');
  const mine = await createGame(uma, 'hoofden', {});
  const { page } = other;
  const sentTokens = [];
  page.on('request', (r) => { if (r.headers().authorization) sentTokens.push(r.url()); });
  await signIn(page, uma.name);
  await page.waitForSelector(`#my-games a[data-game="${mine}"]`);
  assert.match(await page.textContent('#who'), new RegExp(`Signed in as ${uma.name}`));
  // The live stream of the player's notices works with the cookie too.
  await page.waitForSelector('body[data-player-stream="open"]');
  // A game made in the second browser (a POST with the CSRF token) shows in the first.
  const theirs = await createGame(other, 'ali_baba', { planks: 2 });
  await uma.page.goto(`${BASE}/#/`);
  await uma.page.waitForSelector(`#my-games a[data-game="${theirs}"]`);
  assert.deepEqual(sentTokens, [], 'no request carried a token');
  // The session outlives the page: opened again, the browser is still signed in.
  await page.goto(`${BASE}/#/`);
  await page.reload();
  await page.waitForSelector('#inbox');
  assert.match(await page.textContent('#who'), new RegExp(uma.name));
  assert.deepEqual(other.errors, []);
});

test('a wrong password is refused in words; a password too easy to guess is refused with the server\'s reason', async () => {
  const { page } = await browser();
  await signIn(page, uma.name, { password: 'not her password at all' });
  await page.waitForFunction(() => /Wrong name or password/.test(document.querySelector('#sign-in-error')?.textContent || ''));
  // Signing up with "password": the reason shows, the player is made; a better one finishes.
  await page.fill('#acct-name', 'wes');
  await page.fill('#acct-password', 'password');
  await page.click('#create-account');
  const alert = page.locator('#account-form [role=alert]');
  await alert.filter({ hasText: /too easy to guess/ }).waitFor();
  assert.match(await alert.textContent(), /Choose another password/);
  await page.fill('#acct-password', 'a rather quiet harbour at dawn');
  await page.click('#create-account');
  await page.waitForSelector('#inbox');
  assert.match(await page.textContent('#who'), /wes/);
  // On the account page too.
  await accountPage(uma.page);
  await uma.page.fill('#current-password', PASSWORD);
  await uma.page.fill('#new-password', 'password');
  await uma.page.click('#set-password');
  const refusal = uma.page.locator('#password-form [role=alert]');
  await refusal.filter({ hasText: /too easy to guess/ }).waitFor();
  await uma.page.fill('#current-password', 'wrong one');
  await uma.page.fill('#new-password', 'a rather quiet harbour at dawn');
  await uma.page.click('#set-password');
  await refusal.filter({ hasText: /current password is wrong/ }).waitFor();
});

test('recovery codes: made and shown once, one signs in once, the same code again is refused', async () => {
  const { page } = uma;
  await accountPage(page);
  await page.click('#new-codes');
  await page.waitForSelector('#recovery-codes li');
  const codes = await page.locator('#recovery-codes li').allTextContents();
  assert.equal(codes.length, 10);
  assert.ok(await page.evaluate(() => document.activeElement.id === 'recovery-codes-h'), 'the focus goes to the codes');
  assert.match(await page.textContent('#codes-left'), /10 unused/);
  await page.click('#sign-out');
  await signIn(page, uma.name, { code: codes[3] });
  await page.waitForSelector('#inbox');
  await page.click('#sign-out');
  await signIn(page, uma.name, { code: codes[3] });
  await page.waitForFunction(() => /Wrong name or recovery code/.test(document.querySelector('#sign-in-error')?.textContent || ''));
  await page.uncheck('#signin-use-code');
  await page.fill('#signin-password', PASSWORD);
  await page.click('#sign-in');
  await page.waitForSelector('#inbox');
  await accountPage(page);
  await page.waitForFunction(() => /9 unused/.test(document.querySelector('#codes-left')?.textContent || ''));
  assert.equal(await page.locator('#recovery-codes').count(), 0, 'shown only once');
});

test('the sessions list shows both browsers, this one marked; signing the other out signs it out there', async () => {
  const { page } = uma;
  const theirs = (await other.page.evaluate(() => fetch('/v1/session').then((r) => r.json()))).session.id;
  const mine = (await page.evaluate(() => fetch('/v1/session').then((r) => r.json()))).session.id;
  await accountPage(page);
  const row = page.locator(`#sessions li[data-session="${theirs}"]`);
  await row.waitFor();
  await page.locator(`#sessions li[data-session="${mine}"]`).waitFor();
  assert.equal(await page.locator('#sessions li[data-current="true"]').count(), 1);
  assert.match(await page.textContent(`#sessions li[data-session="${mine}"]`), /this browser/);
  assert.match(await row.textContent(), /Chrome on Linux.*signed in.*last used/);
  await row.locator('button').click();
  await row.waitFor({ state: 'detached' });
  await page.locator('#sessions-section [role=status]', { hasText: /Signed out/ }).waitFor();
  // The other browser's next call fails, and its page shows it signed out.
  assert.equal(await status(other.page, '/v1/players/me'), 401);
  await other.page.click('#account-link');
  await other.page.waitForSelector('#sign-in-form');
  assert.equal(await other.page.locator('#who-name').count(), 0);
  // This browser is still signed in.
  assert.equal(await status(page, '/v1/players/me'), 200);
});

test('a personal access token with game:read only: shown once, reads, may not create a game, and revoked stops', async () => {
  const { page } = uma;
  await accountPage(page);
  await page.fill('#token-name', 'my reader');
  await page.check('#scope-game-read');
  await page.fill('#token-days', '30');
  await page.click('#create-token');
  await page.waitForSelector('#new-token-value');
  assert.ok(await page.evaluate(() => document.activeElement.id === 'new-token-h'), 'the focus goes to the new token');
  const token = await page.inputValue('#new-token-value');
  assert.ok(token.length > 20);
  const row = page.locator('#tokens li', { hasText: 'my reader' });
  await row.waitFor();
  assert.match(await row.textContent(), /game:read.*expires/);
  assert.doesNotMatch(await row.textContent(), /game:play/);
  assert.equal((await bearer(token, '/v1/players/me/games')).status, 200);
  const refused = await bearer(token, '/v1/games', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ variant: 'hoofden', seats: [uma.id, null] }),
  });
  assert.equal(refused.status, 403);
  assert.match(refused.headers.get('www-authenticate') || '', /insufficient_scope/);
  // Shown once: opened again, the page lists it without its secret.
  await page.reload();
  await row.waitFor();
  assert.equal(await page.locator('#new-token-value').count(), 0);
  assert.ok(!(await page.content()).includes(token));
  await row.locator('button[data-action="revoke"]').click();
  await row.waitFor({ state: 'detached' });
  assert.equal((await bearer(token, '/v1/players/me/games')).status, 401);
});

/** A tiny app on a loopback port: it records the query of each request to /cb. */
async function tinyApp() {
  const got = [];
  let wake = () => {};
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    // Only the redirects count (not the browser's look for a /favicon.ico).
    if (url.pathname !== '/cb') { res.writeHead(404, { connection: 'close' }); res.end(); return; }
    got.push(url.searchParams);
    wake();
    res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
    res.end('back at the app');
  });
  await new Promise((r) => { server.listen(0, '127.0.0.1', r); });
  const port = server.address().port;
  return {
    origin: `http://127.0.0.1:${port}`,
    redirect: `http://127.0.0.1:${port}/cb`,
    /** The query of the next request (waits for it). */
    next: (n) => (got.length > n ? Promise.resolve(got[n]) : new Promise((r) => { wake = () => { if (got.length > n) r(got[n]); }; })),
    // The browser keeps its connection open: closed here, not waited for.
    close: () => new Promise((r) => { server.close(r); server.closeAllConnections(); }),
  };
}

function pkce() {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(app, { state, challenge, scope = 'game:read account:read' }) {
  const q = new URLSearchParams({
    response_type: 'code', client_id: 'e2e-tiny-app', redirect_uri: app.redirect, scope, state,
    code_challenge: challenge, code_challenge_method: 'S256',
  });
  return `${BASE}/oauth/authorize?${q}`;
}

test('OAuth: sign in on the consent screen, authorise, the app exchanges its code; the app is listed and revoked; Deny says access_denied', async () => {
  const app = await tinyApp();
  try {
    const { page, errors } = await browser();
    const { verifier, challenge } = pkce();
    const state = randomBytes(12).toString('hex');
    await page.goto(authorizeUrl(app, { state, challenge }));
    // Not signed in: who asks shows at once, then the sign-in form.
    await page.waitForSelector('#sign-in-form');
    assert.equal(await page.textContent('#consent-client'), 'e2e-tiny-app');
    assert.equal(await page.textContent('#consent-origin'), app.origin);
    await signIn(page, uma.name);
    await page.waitForSelector('#authorise');
    assert.equal(await page.textContent('#consent-client'), 'e2e-tiny-app');
    assert.equal(await page.textContent('#consent-origin'), app.origin);
    assert.equal(await page.textContent('#consent-player'), uma.name);
    const scopes = await page.locator('#consent-scopes li').allTextContents();
    assert.equal(scopes.length, 2);
    assert.match(scopes.join('|'), /Read your private games.*game:read/);
    assert.match(scopes.join('|'), /Read your account.*account:read/);
    const back = app.next(0);
    await page.click('#authorise');
    const q = await back;
    assert.equal(q.get('state'), state);
    assert.ok(q.get('code'));
    const r = await fetch(`${BASE}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: q.get('code'), redirect_uri: app.redirect, client_id: 'e2e-tiny-app', code_verifier: verifier }),
    });
    const tokens = await r.json();
    assert.equal(r.status, 200, JSON.stringify(tokens));
    const me = await bearer(tokens.access_token, '/v1/players/me');
    assert.equal(me.status, 200);
    assert.equal((await me.json()).name, uma.name);

    // The app on the account page; revoked there, its token stops working.
    await accountPage(uma.page);
    const row = uma.page.locator('#apps li', { hasText: 'e2e-tiny-app' });
    await row.waitFor();
    assert.match(await row.textContent(), new RegExp(`returns to ${app.origin}.*game:read`));
    await row.locator('button[data-action="revoke"]').click();
    await row.waitFor({ state: 'detached' });
    assert.equal((await bearer(tokens.access_token, '/v1/players/me')).status, 401);

    // Deny: back to the app with access_denied and the same state.
    const denied = randomBytes(12).toString('hex');
    await page.goto(authorizeUrl(app, { state: denied, challenge: pkce().challenge }));
    await page.waitForSelector('#deny');
    const back2 = app.next(1);
    await page.click('#deny');
    const q2 = await back2;
    assert.equal(q2.get('error'), 'access_denied');
    assert.equal(q2.get('state'), denied);
    assert.equal(q2.get('code'), null);
    assert.deepEqual(errors, []);
  } finally {
    await app.close();
  }
});

test('OAuth: a request the server refuses is explained on the page, and a bad redirect is never followed', async () => {
  const app = await tinyApp();
  try {
    // A redirect to a plain-http site is refused by the server itself: no page, no redirect.
    const bad = await fetch(authorizeUrl({ redirect: 'http://example.org/cb' }, { state: 's', challenge: pkce().challenge }), { redirect: 'manual' });
    assert.equal(bad.status, 400);
    // Where the API refuses what the page shows (here made to), the page says why.
    const { page } = await browser();
    await page.route('**/v1/oauth/authorize?*', (r) => r.fulfill({
      status: 400, contentType: 'application/problem+json',
      body: JSON.stringify({ type: 'about:blank', title: 'Bad Request', status: 400, detail: 'invalid_scope: no such scope' }),
    }));
    await page.goto(authorizeUrl(app, { state: 's', challenge: pkce().challenge }));
    await page.waitForSelector('#consent-refused [role=alert]');
    assert.match(await page.textContent('#consent-refused'), /invalid_scope: no such scope/);
    assert.equal(await page.locator('#authorise').count(), 0);
  } finally { await app.close(); }
});

test('a request with the session cookie that changes anything needs the CSRF token', async () => {
  const body = { variant: 'hoofden', seats: [uma.id, null] };
  const csrf = (await uma.page.evaluate(() => fetch('/v1/session').then((r) => r.json()))).csrf_token;
  // The context's request shares the browser's cookies: the session cookie goes along.
  const without = await uma.context.request.post(`${BASE}/v1/games`, { data: body });
  assert.equal(without.status(), 403);
  const crossSite = await uma.context.request.post(`${BASE}/v1/games`, { data: body, headers: { 'x-csrf-token': csrf, 'sec-fetch-site': 'cross-site' } });
  assert.equal(crossSite.status(), 403);
  const withToken = await uma.context.request.post(`${BASE}/v1/games`, { data: body, headers: { 'x-csrf-token': csrf } });
  assert.equal(withToken.status(), 201);
  // From the page itself, a fetch without the header is refused too.
  assert.equal(await status(uma.page, '/v1/games', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }), 403);
});

test('two tabs of one browser: signed out and in again in one, the other carries on with the new session', async () => {
  const tab = await uma.context.newPage();
  try {
    await tab.goto(`${BASE}/#/new`);
    await tab.waitForSelector('#create-game');
    await uma.page.bringToFront();
    await uma.page.goto(`${BASE}/#/`);
    await uma.page.click('#sign-out');
    await signIn(uma.page, uma.name);
    await uma.page.waitForSelector('#inbox');
    await tab.bringToFront();
    // The tab still holds the old session's CSRF token: its next change is made anyway.
    await tab.selectOption('#variant', 'hoofden');
    await tab.click('#create-game');
    await tab.waitForURL(/#\/game\//);
    // Signed out in one tab, the other shows it at its next call. (A tab behind is slowed
    // down by the browser: the one acted in comes to the front.)
    await uma.page.bringToFront();
    await uma.page.click('#sign-out');
    await uma.page.waitForSelector('#sign-in-form');
    await tab.bringToFront();
    await tab.goto(`${BASE}/#/account`);
    await tab.waitForSelector('#sign-in-form');
    assert.equal(await tab.locator('#who-name').count(), 0);
    await uma.page.bringToFront();
    await signIn(uma.page, uma.name);
    await uma.page.waitForSelector('#inbox');
  } finally {
    await tab.close();
    await uma.page.bringToFront();
  }
});

test('a token kept from before passwords still signs in; it cannot consent; a password set turns it into a session', async () => {
  const vic = await apiPlayer('vic');
  const { page, context, errors } = await browser();
  await page.click('summary');
  await page.fill('#acct-token', vic.token);
  await page.click('#use-token');
  await page.waitForSelector('#inbox');
  assert.match(await page.textContent('#who'), /vic/);
  await page.waitForSelector('body[data-player-stream="open"]');
  assert.equal(await page.inputValue('input[aria-label="Your token"]'), vic.token);
  const id = await createGame({ page }, 'hoofden', {});
  assert.ok(id);
  // The consent screen asks for a password's session.
  const app = await tinyApp();
  try {
    await page.goto(authorizeUrl(app, { state: 'x', challenge: pkce().challenge }));
    await page.waitForSelector('#consent-sign-in');
    assert.match(await page.textContent('#consent-sign-in'), /cannot authorise apps: sign in with your name and password/);
    assert.equal(await page.locator('#authorise').count(), 0);
  } finally { await app.close(); }
  // The account page: no password yet; setting one signs in with a session.
  await accountPage(page);
  assert.equal(await page.locator('#current-password').count(), 0);
  assert.match(await page.textContent('#signed-in-with'), /keeps your token/);
  await page.fill('#new-password', 'violet kites over the dunes');
  await page.click('#set-password');
  await page.waitForFunction(() => /session/.test(document.querySelector('#signed-in-with')?.textContent || ''));
  assert.equal(await page.evaluate(() => localStorage.getItem('worp.account')), null);
  assert.ok((await context.cookies()).some((c) => c.name === '__Host-worp_session'));
  // Sign out everywhere: this browser too.
  await page.click('#sign-out-everywhere');
  await page.waitForSelector('#sign-in-form');
  assert.equal(await status(page, '/v1/session'), 401);
  // The first token still works (it is the player's, not the browser's).
  assert.equal((await bearer(vic.token, '/v1/players/me')).status, 200);
  assert.deepEqual(errors, []);
});

test('the first token, revoked on the account page, works no more; without a password or a passkey the page says why it cannot be', async () => {
  const rue = await player('rue');
  try {
    const { page } = rue;
    page.on('dialog', (d) => d.accept());
    assert.equal((await bearer(rue.token, '/v1/players/me')).status, 200);
    await accountPage(page);
    assert.match(await page.textContent('#first-token-section'), /first token.*sign in with your password or a passkey only/);
    await page.click('#revoke-first-token');
    await page.locator('#first-token-section [role=status]', { hasText: /Your first token is revoked/ }).waitFor();
    assert.equal((await bearer(rue.token, '/v1/players/me')).status, 401);
    // Signed in with a session, this browser carries on.
    await page.reload();
    await page.waitForSelector('#password-form');
    assert.equal(await status(page, '/v1/players/me'), 200);
    assert.match(await page.textContent('#who'), new RegExp(rue.name));
    assert.deepEqual(rue.errors, []);
  } finally { await rue.close(); }

  // A player with neither a password nor a passkey: the first token is their only way in.
  const sol = await apiPlayer('sol');
  const { page, errors } = await browser();
  await page.click('summary');
  await page.fill('#acct-token', sol.token);
  await page.click('#use-token');
  await page.waitForSelector('#inbox');
  await accountPage(page);
  assert.match(await page.textContent('#first-token-section'), /This browser keeps it/);
  await page.click('#revoke-first-token');
  const refusal = page.locator('#first-token-section [role=alert]');
  await refusal.filter({ hasText: /Not revoked/ }).waitFor();
  assert.match(await refusal.textContent(), /Not revoked: set a password or register a passkey first/);
  assert.equal((await bearer(sol.token, '/v1/players/me')).status, 200);
  assert.match(await page.textContent('#who'), /sol/);
  assert.deepEqual(errors, []);
});
