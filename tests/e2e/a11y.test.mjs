// Accessibility: axe-core (npm's axe-core, injected into the page) finds no serious or
// critical violation on any page, and the pages' actions work from the keyboard alone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, player, createGame, takeSeat, apiAs, axeViolations, playMoves, season, PASSWORD } from './lib.mjs';

let ann;
let ben;

before(async () => {
  ann = await player('ann');
  ben = await player('ben', { width: 390, height: 844 });
  for (const p of [ann, ben]) p.page.on('dialog', (d) => d.accept());
});

after(async () => {
  await ann?.close();
  await ben?.close();
});

async function clean(page, what) {
  const v = await axeViolations(page);
  assert.deepEqual(v, [], `${what}: ${v.join('\n')}`);
}

test('axe: the inbox, the new-game form of every game, the lobby, the leaderboard, a player page, not-found', async () => {
  for (const p of [ann, ben]) {
    const { page } = p;
    await page.goto(`${BASE}/#/`);
    await page.waitForSelector('#inbox li');
    await clean(page, `inbox (${p.name})`);
    await page.goto(`${BASE}/#/new`);
    await page.waitForSelector('#create-game');
    for (const v of await page.locator('#variant option').evaluateAll((os) => os.map((o) => o.value))) {
      await page.selectOption('#variant', v);
      const colours = page.locator('[id$="colours-usual"]');
      if (await colours.count()) await colours.uncheck();
      await clean(page, `new game: ${v} (${p.name})`);
    }
    await page.goto(`${BASE}/#/lobby`);
    await page.waitForSelector('#lobby li');
    await clean(page, `lobby (${p.name})`);
    await page.goto(`${BASE}/#/leaderboard`);
    await page.waitForSelector('#leaderboard p');
    await clean(page, `leaderboard (${p.name})`);
    await page.goto(`${BASE}/#/player/${p === ann ? ben.id : ann.id}`);
    await page.waitForSelector('#recent');
    await clean(page, `player page (${p.name})`);
    await page.goto(`${BASE}/#/game/00000000-0000-4000-8000-000000000000`);
    await page.waitForSelector('#not-found');
    await clean(page, `not found (${p.name})`);
  }
});

test('axe: a game page of every variant (against bots), the invitation page, a finished game with its ratings and messages', async () => {
  const variants = await (await fetch(`${BASE}/v1/variants`)).json();
  for (const v of variants) {
    const seats = [ann.id, ...Array.from({ length: v.min_seats - 1 }, () => ({ bot: 'random' }))];
    const r = await apiAs(ann, 'POST', '/v1/games', { variant: v.name, seats });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    for (const p of [ann, ben]) {
      await p.page.goto(`${BASE}/#/game/${r.body.id}`);
      await p.page.waitForSelector('#board > *');
      await p.page.waitForSelector('#chat');
      await clean(p.page, `${v.name} game (${p.name}${p === ann ? ', playing' : ', watching'})`);
    }
  }
  const id = await createGame(ann, 'backgammon', {}, ['me', `invite:${ben.id}`]);
  await ben.page.goto(`${BASE}/#/`);
  await ben.page.waitForSelector('#challenges li');
  await clean(ben.page, 'inbox with a challenge');
  await ben.page.goto(`${BASE}/#/join/${id}/1`);
  await ben.page.waitForSelector('#confirm-take');
  await clean(ben.page, 'invitation');
  await ben.page.click('#confirm-take');
  await ben.page.waitForSelector('main[data-status="active"]');
  await apiAs(ann, 'POST', `/v1/games/${id}/messages`, { text: 'Have fun' });
  // Each makes its first moves, so that the game counts (players who have played).
  await season(ann, ben);
  await playMoves([ann, ben], id, 2);
  await apiAs(ben, 'POST', `/v1/games/${id}/resign`, {});
  for (const p of [ann, ben]) {
    await p.page.goto(`${BASE}/#/game/${id}`);
    await p.page.waitForSelector('#rating-changes');
    await p.page.waitForSelector('#messages li');
    await clean(p.page, `finished game (${p.name})`);
  }
});

/** An OAuth authorisation request of a made-up app (its redirect is never followed here). */
function authorizeUrl() {
  const q = new URLSearchParams({
    response_type: 'code', client_id: 'a11y-app', redirect_uri: 'http://127.0.0.1:9/cb', scope: 'game:read game:play',
    state: 'st', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256',
  });
  return `${BASE}/oauth/authorize?${q}`;
}

test('axe: signing in and up (with a refusal shown), the account page with a new token and codes shown, the consent screen', async () => {
  const context = await launch({ width: 390, height: 844 });
  try {
    const page = context.pages()[0] || await context.newPage();
    await page.goto(`${BASE}/#/`);
    await page.waitForSelector('#sign-in-form');
    await clean(page, 'signed out');
    await page.fill('#signin-name', 'nobody here');
    await page.check('#signin-use-code');
    await page.fill('#signin-code', 'aaaaa-bbbbb-ccccc');
    await page.click('#sign-in');
    await page.waitForFunction(() => document.querySelector('#sign-in-error').textContent !== '');
    await clean(page, 'a refused sign-in with a recovery code');
    // A passkey at an IP address: the browser refuses it, the page says why.
    await page.click('#sign-in-passkey');
    await page.waitForFunction(() => /IP address/.test(document.querySelector('#sign-in-error').textContent));
    await clean(page, 'a refused sign-in with a passkey');
    await page.goto(authorizeUrl());
    await page.waitForSelector('#consent-client');
    await page.waitForSelector('#sign-in-form');
    await clean(page, 'consent screen, signed out');
  } finally {
    await context.close();
  }
  for (const p of [ann, ben]) {
    const { page } = p;
    await page.goto(`${BASE}/#/account`);
    await page.waitForSelector('#sessions li');
    await clean(page, `account page (${p.name})`);
    await page.click('#new-codes');
    await page.waitForSelector('#recovery-codes li');
    await page.fill('#token-name', 'a11y');
    await page.check('#scope-game-read');
    await page.click('#create-token');
    await page.waitForSelector('#new-token-value');
    await page.fill('#current-password', PASSWORD);
    await page.fill('#new-password', 'password');
    await page.click('#set-password');
    await page.waitForFunction(() => /too easy/.test(document.querySelector('#password-form [role=alert]').textContent));
    // The new sections, each with its answer shown: a passkey refused (an IP address), the
    // data downloaded, a deletion refused (a wrong name).
    await page.click('#add-passkey');
    await page.waitForFunction(() => /IP address/.test(document.querySelector('#passkey-form [role=alert]').textContent));
    const download = page.waitForEvent('download');
    await page.click('#export-data');
    await download;
    await page.waitForFunction(() => /downloaded/.test(document.querySelector('#leave-section [role=status]').textContent));
    await page.fill('#delete-confirm-name', 'not my name');
    await page.click('#delete-account');
    await page.waitForFunction(() => /Nothing was deleted/.test(document.querySelector('#delete-form [role=alert]').textContent));
    for (const id of ['passkeys-section', 'first-token-section', 'leave-section']) assert.equal(await page.locator(`#${id} h2`).count(), 1);
    await clean(page, `account page with codes, a token and refusals shown (${p.name})`);
    await page.goto(authorizeUrl());
    await page.waitForSelector('#authorise');
    await clean(page, `consent screen (${p.name})`);
  }
});

test('keyboard only: signing in, then making a token on the account page', async () => {
  const context = await launch();
  try {
    const page = context.pages()[0] || await context.newPage();
    await page.goto(`${BASE}/#/`);
    await page.waitForSelector('#sign-in-form');
    await page.locator('body').focus();
    await tabTo(page, '#signin-name');
    await page.keyboard.type(ann.name);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#inbox');
    await page.locator('body').focus();
    await tabTo(page, '#account-link');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#token-form');
    await tabTo(page, '#token-name', 200);
    await page.keyboard.type('from the keyboard');
    await tabTo(page, '#scope-chat-write');
    await page.keyboard.press('Space');
    await tabTo(page, '#create-token');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#new-token-value');
    // The new token is where the focus goes, and read out as a group with its heading.
    assert.equal(await page.evaluate(() => document.activeElement.id), 'new-token-h');
    await page.locator('#tokens li', { hasText: /from the keyboard.*chat:write/ }).waitFor();
  } finally {
    await context.close();
  }
});

/** Presses Tab until `selector` has the focus; fails after `max` presses. */
async function tabTo(page, selector, max = 80) {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement && document.activeElement.matches(s), selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${selector} is not reachable with Tab`);
}

test('keyboard only: the menu, joining from the lobby, a message, and a visible focus', async () => {
  const id = await createGame(ann, 'ali_baba', { planks: 2 });
  const { page } = ben;
  await page.goto(`${BASE}/#/`);
  await page.waitForSelector('#inbox');
  await page.locator('body').focus();
  await tabTo(page, '.top nav a[href="#/lobby"]');
  // The focus is drawn (an outline), not only assumed.
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, 'none');
  await page.keyboard.press('Enter');
  await page.waitForSelector(`#lobby li[data-game="${id}"]`);
  await tabTo(page, `#lobby li[data-game="${id}"] a.join-link`);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#confirm-take');
  assert.ok(await page.evaluate(() => document.activeElement.id === 'confirm-take'), 'Take seat has the focus');
  await page.keyboard.press('Enter');
  await page.waitForURL(new RegExp(`#/game/${id}$`));
  await page.waitForSelector('#message-form:not([hidden])');
  await tabTo(page, '#message-text', 200);
  await page.keyboard.type('Hello from the keyboard');
  await page.keyboard.press('Enter');
  await ann.page.goto(`${BASE}/#/game/${id}`);
  await ann.page.waitForFunction(() => /Hello from the keyboard/.test((document.querySelector('#messages')?.textContent || '')));
  // Every control of the pages is a real control: no clickable div or span.
  for (const p of [page, ann.page]) {
    const fake = await p.evaluate(() => [...document.querySelectorAll('main div[onclick], main span[onclick], main [role=button]:not(button):not([tabindex])')].length);
    assert.equal(fake, 0);
  }
});

test('on a phone every control of the pages is at least 44 × 44 px (links in a sentence excepted)', async () => {
  const id = await createGame(ann, 'hoofden', {});
  const { page } = ben;
  const pages = ['#/', '#/lobby', '#/leaderboard?variant=ali_baba', '#/new', `#/player/${ann.id}`, `#/join/${id}/1`, `#/game/${id}`, '#/account'];
  for (const hash of pages) {
    await page.goto(`${BASE}/${hash}`);
    await page.waitForSelector('main h1');
    await page.waitForTimeout(300);
    const small = await page.evaluate(() => [...document.querySelectorAll('a, button, select, input:not([type=checkbox]), summary')]
      .filter((e) => e.offsetParent !== null && !e.closest('#board') && !e.closest('p, dd, .help'))
      .map((e) => { const r = e.getBoundingClientRect(); return `${e.tagName}#${e.id}.${e.className} "${e.textContent.trim().slice(0, 20)}" ${Math.round(r.width)}×${Math.round(r.height)}`; })
      .filter((s) => { const [w, h] = s.split(' ').pop().split('×').map(Number); return w < 44 || h < 44; }));
    assert.deepEqual(small, [], hash);
  }
});
