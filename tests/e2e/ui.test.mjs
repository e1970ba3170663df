// The rest of the client: static files, the inbox with deadlines, playing a bot, the
// replay slider, the live stream, keyboard use, board modules found by the game's name
// and the generic view of a game without one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, player, createGame, playToEnd, playTurn, takeSeat, apiAs, tokenOf, signIn, PASSWORD } from './lib.mjs';

let carol;
let dave;

before(async () => {
  carol = await player('carol');
  dave = await player('dave', { width: 360, height: 740 });
});

after(async () => {
  await carol?.close();
  await dave?.close();
});

test('the page and its files are served with types and cache headers, outside the API document', async () => {
  const page = await fetch(`${BASE}/`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type'), /^text\/html/);
  assert.ok(page.headers.get('cache-control'));
  const html = await page.text();
  assert.doesNotMatch(html, /https?:\/\//, 'no external resources');
  for (const [file, type] of [['app.js', /^text\/javascript/], ['style.css', /^text\/css/], ['boards/ludo.js', /^text\/javascript/]]) {
    const r = await fetch(`${BASE}/web/${file}`);
    assert.equal(r.status, 200, file);
    assert.match(r.headers.get('content-type'), type);
    assert.match(r.headers.get('cache-control'), /max-age/);
    const again = await fetch(`${BASE}/web/${file}`, { headers: { 'if-none-match': r.headers.get('etag') } });
    assert.equal(again.status, 304);
  }
  assert.equal((await fetch(`${BASE}/web/nope.js`)).status, 404);
  const doc = await (await fetch(`${BASE}/openapi.json`)).json();
  assert.ok(!Object.keys(doc.paths).some((p) => p === '/' || p.startsWith('/web')));
});

test('the inbox lists games awaiting my move, with their deadline', async () => {
  const { page } = carol;
  await page.goto(`${BASE}/#/new`);
  await page.selectOption('#variant', 'hoofden');
  await page.selectOption('#seat-1', 'open');
  await page.selectOption('#days-per-move', '3');
  await page.click('#create-game');
  await page.waitForURL(/#\/game\//);
  const id = page.url().split('#/game/')[1];
  await takeSeat(dave, await page.inputValue('#invite-1'));
  await dave.page.waitForSelector('main[data-status="active"]');
  // Blue (seat 0, carol) moves first.
  await page.goto(`${BASE}/#/`);
  const row = page.locator(`#inbox a[data-game="${id}"]`);
  await row.waitFor();
  const li = page.locator('#inbox li', { has: page.locator(`a[data-game="${id}"]`) });
  await li.locator('.deadline').waitFor();
  assert.match(await li.textContent(), /your turn/);
  await dave.page.goto(`${BASE}/#/`);
  await dave.page.waitForSelector('#inbox');
  assert.equal(await dave.page.locator(`#inbox a[data-game="${id}"]`).count(), 0);
  // From the inbox into the game; the deadline shows there too.
  await row.click();
  await page.waitForSelector('main[data-my-turn="true"]');
  assert.match(await page.textContent('#extra'), /Deadline/);
});

test('a game against a bot, played with the keyboard only, then the replay slider walks back through it', async () => {
  const { page } = carol;
  const id = await createGame(carol, 'ali_baba', { planks: 2 }, ['me', 'bot:greedy']);
  await page.waitForSelector('main[data-status="active"]');
  assert.match(await page.textContent('#seat-list'), /bot \(greedy\)/);
  await playToEnd([carol], { keyboard: true });
  const g = await (await fetch(`${BASE}/v1/games/${id}`)).json();
  assert.equal(g.status, 'finished');
  // Replay: step 1 is the creation, with every figure on the near bank.
  const slider = page.locator('#replay');
  assert.equal(await slider.getAttribute('max'), String(g.version));
  await slider.fill('1');
  await page.waitForFunction(() => /after step 1 of/.test((document.querySelector('#status')?.textContent || '')));
  const onStart = await page.locator('#board svg .figure').count();
  assert.equal(onStart, 6);
  await page.click('[aria-label="Next event"]');
  await page.waitForFunction(() => /after step 2 of/.test((document.querySelector('#status')?.textContent || '')));
  assert.equal(await page.textContent('#replay-live'), 'To the end');
  await page.click('#replay-live');
  await page.waitForFunction(() => /Game over/.test((document.querySelector('#status')?.textContent || '')));
  // A finished game's newest step is its end, not "now", and there is nothing to go back to.
  assert.match(await page.textContent('#replay-label'), /^the end \(step \d+\)$/);
  assert.equal(await page.isVisible('#replay-live'), false);
});

test('a move shows up live on the other player\'s page, and pieces work from the keyboard', async () => {
  const id = await createGame(carol, 'hoofden', {});
  await takeSeat(dave, await carol.page.inputValue('#invite-1'));
  await dave.page.waitForSelector('main[data-status="active"]');
  await carol.page.waitForSelector('main[data-my-turn="true"]');
  const before = Number(await dave.page.getAttribute('main', 'data-version'));
  // Tab to a movable pawn, Enter selects it, Enter on a target square plays.
  const page = carol.page;
  let guard = 0;
  while (!(await page.evaluate(() => document.activeElement?.classList?.contains('movable')))) {
    await page.keyboard.press('Tab');
    if (++guard > 200) throw new Error('no movable piece reachable with Tab');
  }
  await page.keyboard.press('Enter');
  await page.waitForSelector('#board .target[tabindex]');
  assert.ok(await page.evaluate(() => document.activeElement?.classList?.contains('target')), 'focus moves to a target');
  await page.keyboard.press('Enter');
  await dave.page.waitForFunction((v) => Number(document.querySelector('main').dataset.version) > v, before, { timeout: 5000 });
  await dave.page.waitForSelector('main[data-my-turn="true"]');
  const g = await (await fetch(`${BASE}/v1/games/${id}`)).json();
  assert.equal(g.to_move, 1);
  assert.deepEqual(carol.errors, []);
  assert.deepEqual(dave.errors, []);
});

test('a half-made backgammon move survives a message from the opponent', async () => {
  await createGame(carol, 'backgammon', {});
  const id = carol.page.url().split('#/game/')[1];
  await takeSeat(dave, await carol.page.inputValue('#invite-1'));
  await dave.page.waitForSelector('main[data-status="active"]');
  const players = [carol, dave];
  // Until a player stands with the first checker of a two-checker move moved: the
  // first hop of a turn leaves the move half-made unless it alone is a whole move.
  for (let turn = 0; turn < 40; turn++) {
    const mover = await Promise.any(players.map((p) => p.page.waitForSelector('main[data-my-turn="true"]', { timeout: 20000 }).then(() => p)));
    const other = mover === carol ? dave : carol;
    const page = mover.page;
    const version = await page.getAttribute('main', 'data-version');
    await page.locator('#board svg .movable[tabindex]').first().click();
    await page.locator('#board svg .target[tabindex]').first().click();
    const half = await page.locator('#cancel-move').count() > 0 && (await page.getAttribute('main', 'data-version')) === version;
    if (!half) {
      // The hop was a whole move (or a chooser showed): finish the turn and go on.
      await playTurn(page);
      await page.waitForFunction((v) => document.querySelector('main').dataset.version !== v, version);
      continue;
    }
    assert.match(await page.textContent('#hint'), /Go on/);
    assert.equal((await apiAs(other, 'POST', `/v1/games/${id}/messages`, { text: 'good luck' })).status, 201);
    // The message reaches the page (its version moves), and the half-made move stays.
    await page.waitForFunction((v) => Number(document.querySelector('main').dataset.version) > Number(v), version);
    assert.match(await page.textContent('#hint'), /Go on/);
    assert.equal(await page.locator('#cancel-move').count(), 1);
    // And the move is finished and accepted, its If-Match read before the message.
    assert.ok(await playTurn(page));
    await page.waitForFunction(() => document.querySelector('main').dataset.myTurn !== 'true');
    assert.deepEqual(mover.errors, []);
    return;
  }
  assert.fail('no half-made move in 40 turns');
});

/** Creates a game of `variant` through the API: carol in seat 0, random bots in the others. */
async function gameAgainstBots(variant, options = {}) {
  const v = (await (await fetch(`${BASE}/v1/variants`)).json()).find((x) => x.name === variant);
  const token = await tokenOf(carol);
  const seats = [carol.id, ...Array.from({ length: v.min_seats - 1 }, () => ({ bot: 'random' }))];
  const r = await fetch(`${BASE}/v1/games`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ variant, options, seats }),
  });
  assert.equal(r.status, 201, await r.clone().text());
  return (await r.json()).id;
}

test('each game\'s board module is found by the variant\'s name', async () => {
  const names = (await (await fetch(`${BASE}/v1/variants`)).json()).map((v) => v.name);
  assert.ok(names.length >= 1);
  for (const name of names) {
    const id = await gameAgainstBots(name);
    // A fresh page each time: a page imports each module once.
    const page = await carol.context.newPage();
    try {
      const boards = [];
      page.on('response', (r) => {
        const m = new URL(r.url()).pathname.match(/^\/web\/boards\/(.+)\.js$/);
        if (m) boards.push(`${m[1]}:${r.status()}`);
      });
      await page.goto(`${BASE}/#/game/${id}`);
      await page.waitForSelector('#board svg');
      assert.equal(await page.locator('#generic-board').count(), 0, name);
      assert.ok(boards.includes(`${name}:200`), `${name}: ${boards}`);
    } finally {
      await page.close();
    }
  }
});

test('a game without a board module shows its state, and its legal moves as buttons that play', async () => {
  const id = await gameAgainstBots('ali_baba', { planks: 2 });
  const page = await carol.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    // As if the game had no board module: the page falls back to the generic view.
    await page.route('**/web/boards/ali_baba.js', (r) => r.fulfill({ status: 404, body: 'no such web file' }));
    await page.goto(`${BASE}/#/game/${id}`);
    await page.waitForSelector('#generic-board pre');
    assert.equal(await page.locator('#board svg').count(), 0);
    assert.deepEqual(JSON.parse(await page.textContent('#generic-board pre')),
      (await (await fetch(`${BASE}/v1/games/${id}`)).json()).state);
    for (let i = 0; i < 2000; i++) {
      if ((await page.getAttribute('main', 'data-status')) === 'finished') break;
      const moves = page.locator('#moves button');
      if ((await page.getAttribute('main', 'data-my-turn')) === 'true' && await moves.count()) {
        const before = await page.getAttribute('main', 'data-version');
        await moves.nth(Math.floor(Math.random() * await moves.count())).click();
        await page.waitForFunction((v) => document.querySelector('main').dataset.version !== v, before);
      } else {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    assert.match(await page.textContent('#status'), /Game over/);
    const g = await (await fetch(`${BASE}/v1/games/${id}`)).json();
    assert.equal(g.status, 'finished');
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});

test('a newcomer opening an invite link names a player first, then sits down', async () => {
  const id = await createGame(carol, 'ali_baba', { planks: 3 });
  const link = await carol.page.inputValue('#invite-1');
  const context = await launch({ width: 390, height: 844 });
  try {
    const page = context.pages()[0] || await context.newPage();
    await page.goto(link);
    await page.fill('#acct-name', 'erin');
    await page.fill('#acct-password', PASSWORD);
    await page.click('#create-account');
    // Signed up, the page asks before taking the seat.
    await page.waitForSelector('#confirm-take');
    assert.match(await page.textContent('#join-invited-by'), /carol invites you to play as player 2/);
    await page.click('#confirm-take');
    await page.waitForURL(new RegExp(`#/game/${id}$`));
    await page.waitForSelector('main[data-status="active"]');
    assert.match(await page.textContent('#seat-list'), /Blue: you/);
    // Signed in with a session (a cookie the page cannot read): no token is kept.
    assert.equal(await page.evaluate(() => localStorage.getItem('worp.account')), null);
    assert.ok((await context.cookies()).some((c) => c.name === '__Host-worp_session' && c.httpOnly));
    // The same player signs in from another browser with the name and password.
    const other = await launch();
    try {
      const p2 = other.pages()[0] || await other.newPage();
      await p2.goto(`${BASE}/`);
      await signIn(p2, 'erin');
      await p2.waitForSelector('#inbox');
      assert.match(await p2.textContent('#who'), /erin/);
      await p2.waitForSelector(`#inbox a[data-game="${id}"], #my-games a[data-game="${id}"]`);
    } finally {
      await other.close();
    }
  } finally {
    await context.close();
  }
});
