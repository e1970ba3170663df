// Helpers for the end-to-end tests: a headless Chromium (Debian's, never a downloaded
// one), players in separate browser contexts, and a loop that plays a game to its end
// by clicking pieces and targets on the board.
import { chromium } from 'playwright-core';
import { mkdtempSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BASE = process.env.WORP_URL || 'http://127.0.0.1:8080';
/**
 * The same server by name (localhost, which resolves to 127.0.0.1): passkeys need it, for
 * browsers refuse an IP address as a relying party. Cookies are per host: a player signed
 * in at one is not at the other.
 */
export const LOCAL = BASE.replace('//127.0.0.1:', '//localhost:');
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SHOTS = path.join(ROOT, 'docs', 'screenshots');

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** A Chromium with a fresh profile (its own --user-data-dir): one browser context. */
export async function launch(viewport = { width: 1200, height: 900 }) {
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'worp-e2e-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ARGS,
    viewport,
  });
  // WORP_WEB_DIR=api/web: the client's files from that folder instead of the server's
  // built-in copy (to try a change to the page without rebuilding the server).
  const dir = process.env.WORP_WEB_DIR;
  if (dir) {
    await context.route((u) => u.pathname === '/' || u.pathname.startsWith('/web/'), (r) => {
      const file = new URL(r.request().url()).pathname.replace(/^\/(web\/)?/, '') || 'index.html';
      return r.fulfill({ path: path.resolve(ROOT, dir, file) });
    });
  }
  return context;
}

/**
 * A fresh browser (context) with its page at `base`, not signed in, its dialogs accepted:
 * `{ context, page, errors }` (the page's uncaught errors).
 */
export async function freshBrowser({ base = BASE, viewport } = {}) {
  const context = await launch(viewport);
  const page = context.pages()[0] || await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('dialog', (d) => d.accept());
  await page.goto(`${base}/`);
  return { context, page, errors };
}

/** Opens the account page afresh at `base` (a page already there is loaded again). */
export async function accountPage(page, base = BASE) {
  await page.goto(`${base}/#/account`);
  await page.reload();
  await page.waitForSelector('#password-form');
}

/**
 * A virtual authenticator (a platform one, with user verification, that holds discoverable
 * credentials and answers at once) for `page`, through the DevTools protocol: `{ cdp, id,
 * credentials() }`.
 */
export async function virtualAuthenticator(context, page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true,
      isUserVerified: true, automaticPresenceSimulation: true,
    },
  });
  return { cdp, id: authenticatorId, credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials };
}

/** The password of every player the tests sign up on the page. */
export const PASSWORD = 'gloomy otter paints the quay';

/**
 * A fresh player in its own browser context (its own cookies and localStorage), signed up
 * on the page with a name and a password: the browser is then signed in with a session.
 * The tests' own calls to the API use the first token the server answered the sign-up
 * with (the page does not keep it). `base`: the server's address the page is opened at
 * (`LOCAL` for passkeys).
 */
export async function player(name, viewport, { noStream = false, base = BASE } = {}) {
  const context = await launch(viewport);
  const page = context.pages()[0] || await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/stream|404|Failed to load resource/.test(m.text())) errors.push(m.text());
  });
  await page.goto(`${base}/`);
  await page.evaluate(([ms, poll]) => {
    localStorage.setItem('worp.pollMs', String(ms));
    if (poll) localStorage.setItem('worp.noStream', '1');
  }, [250, noStream]);
  // Names are unique on the server (look-alikes refused), and every test file signs up
  // its players on the same one: a name taken by an earlier file becomes `name 2`, ...
  let made = null;
  for (let n = 1; ; n++) {
    await page.fill('#acct-name', n === 1 ? name : `${name} ${n}`);
    await page.fill('#acct-password', PASSWORD);
    const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/players' && r.request().method() === 'POST');
    await page.click('#create-account');
    const r = await answer;
    if (r.status() === 201) {
      made = await r.json();
      await page.waitForSelector('#inbox');
      break;
    }
    await page.waitForFunction(() => /looks the same/.test(document.querySelector('#account-form p.error')?.textContent || ''));
    if (n >= 20) throw new Error(`no name like ${name} is free`);
  }
  return { page, context, base, name: made.name, id: made.id, token: made.token, errors, close: () => context.close() };
}

/** Signs in on `page` (at its current address) with a name and a password or a recovery code. */
export async function signIn(page, name, { password = PASSWORD, code = null } = {}) {
  await page.waitForSelector('#sign-in-form');
  await page.fill('#signin-name', name);
  if (code) {
    await page.check('#signin-use-code');
    await page.fill('#signin-code', code);
  } else await page.fill('#signin-password', password);
  await page.click('#sign-in');
}

/**
 * Creates a game through the form; returns its id. `options` are the variant's options as
 * the API takes them (filled in through the form's widgets), `seats` one of 'me', 'open',
 * 'bot:random', 'bot:greedy' or 'invite:<player id>' per seat.
 */
export async function createGame(p, variant, options = {}, seats = ['me', 'open'], { rated, publicChat } = {}) {
  const { page } = p;
  await page.goto(`${p.base || BASE}/#/new${seats.some((s) => s.startsWith('invite:')) ? `?invite=${seats.find((s) => s.startsWith('invite:')).slice(7)}` : ''}`);
  await page.waitForSelector('#create-game');
  await page.selectOption('#variant', variant);
  await page.selectOption('#seat-count', String(seats.length));
  for (let i = 0; i < seats.length; i++) await page.selectOption(`#seat-${i}`, seats[i]);
  // Options the others depend on (the board's size for its colours) first.
  const entries = Object.entries(options).sort(([a], [b]) => (a === 'colours') - (b === 'colours'));
  for (const [k, v] of entries) {
    const input = page.locator(`#opt-${k}`);
    const tag = await input.evaluate((e) => `${e.tagName}:${e.type || ''}`);
    if (tag === 'SELECT:select-one') await input.selectOption(JSON.stringify(v));
    else if (tag.endsWith(':checkbox')) await input.setChecked(!!v);
    else if (tag.startsWith('FIELDSET')) await fillColours(page, `opt-${k}`, v);
    else await input.fill(typeof v === 'string' || typeof v === 'number' ? String(v) : JSON.stringify(v));
  }
  if (rated === false) await page.selectOption('#rated', 'false');
  if (publicChat) await page.check('#public-chat');
  await page.click('#create-game');
  await page.waitForURL(/#\/game\//);
  return page.url().split('#/game/')[1];
}

/** Colours per seat in the form's colour widget: `null` the usual ones. */
async function fillColours(page, id, value) {
  await page.setChecked(`#${id}-usual`, value === null);
  if (value === null) return;
  for (let seat = 0; seat < value.length; seat++) {
    const want = [].concat(value[seat]);
    const select = page.locator(`select#${id}-${seat}`);
    if (await select.count()) { await select.selectOption(String(want[0])); continue; }
    const boxes = page.locator(`input[id^="${id}-${seat}-"]`);
    for (let i = 0; i < await boxes.count(); i++) {
      const b = boxes.nth(i);
      await b.setChecked(want.includes(Number(await b.getAttribute('value'))));
    }
  }
}

/** Opens an invitation or join link and confirms taking the seat. */
export async function takeSeat(p, link) {
  await p.page.goto(link);
  await p.page.click('#confirm-take');
  await p.page.waitForURL(/#\/game\//);
}

/** The serious and critical violations axe-core finds on the page as it is now. */
let axeSource = null;
export async function axeViolations(page) {
  if (!axeSource) axeSource = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

/** A player registered through the API alone, without a page: `{ id, token, name }`. */
export async function apiPlayer(name) {
  const r = await fetch(`${BASE}/v1/players`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }),
  });
  const body = await r.json();
  if (r.status !== 201) throw new Error(`register ${name}: ${r.status} ${JSON.stringify(body)}`);
  return { id: body.id, token: body.token, name: body.name };
}

/** The bearer token of a player made with `player()` (or `apiPlayer()`). */
export async function tokenOf(p) {
  return p.token;
}

/**
 * Plays the first legal move of the seat to move of game `id` through the API until each
 * of `players` (by seat) has made `each` moves.
 */
export async function playMoves(players, id, each) {
  const made = players.map(() => 0);
  let g = (await apiAs(players[0], 'GET', `/v1/games/${id}`)).body;
  while (made.some((m) => m < each) && g.status === 'active') {
    const seat = g.to_move;
    const r = await apiAs(players[seat], 'POST', `/v1/games/${id}/moves`, { move: g.legal_moves[0] });
    if (r.status !== 200) throw new Error(`move: ${r.status} ${JSON.stringify(r.body)}`);
    g = r.body;
    made[seat] += 1;
  }
  return g;
}

/**
 * `a` and `b` play an unrated game of backgammon of ten moves each, which `b` resigns:
 * their rated games count from now on (docs/api.md, "Which games count").
 */
export async function season(a, b) {
  const r = await apiAs(a, 'POST', '/v1/games', { variant: 'backgammon', seats: [a.id, b.id], rated: false });
  if (r.status !== 201) throw new Error(`season: ${r.status} ${JSON.stringify(r.body)}`);
  const id = r.body.id;
  await apiAs(b, 'POST', `/v1/games/${id}/seats/1`);
  await playMoves([a, b], id, 10);
  await apiAs(b, 'POST', `/v1/games/${id}/resign`, {});
}

/**
 * Plays seat `seat` of game `id` as player `p` through the API (its first legal move each
 * time) until the game is finished, waiting for the other seats (bots that think move a
 * moment later) by polling. Each wait is bounded: `stallMs` without a new version fails.
 * Returns the finished game.
 */
export async function playSeatToEnd(p, id, seat, { stallMs = 120000 } = {}) {
  let seen = -1;
  let since = Date.now();
  for (;;) {
    const { status, body: g } = await apiAs(p, 'GET', `/v1/games/${id}`);
    if (status !== 200) throw new Error(`game: ${status} ${JSON.stringify(g)}`);
    if (g.status === 'finished') return g;
    if (g.version !== seen) { seen = g.version; since = Date.now(); }
    if (Date.now() - since > stallMs) throw new Error(`game ${id} stalled at version ${g.version}`);
    if (g.status === 'active' && g.to_move === seat && g.legal_moves.length) {
      const r = await apiAs(p, 'POST', `/v1/games/${id}/moves`, { move: g.legal_moves[0] });
      // 409/412: the game moved on meanwhile (a bot, a roll): look again.
      if (r.status !== 200 && r.status !== 409 && r.status !== 412) throw new Error(`move: ${r.status} ${JSON.stringify(r.body)}`);
    } else await sleep(50);
  }
}

/** A call to the API as player `p`. */
export async function apiAs(p, method, url, body) {
  const r = await fetch(`${BASE}${url}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await tokenOf(p)}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** How long a move sent may keep the board busy before a turn counts as stuck. */
const BUSY_MS = 30000;

async function pick(locator) {
  const n = await locator.count();
  return n ? locator.nth(Math.floor(Math.random() * n)) : null;
}

async function press(page, target, keyboard) {
  if (keyboard) {
    await target.focus();
    await page.keyboard.press(Math.random() < 0.5 ? 'Enter' : 'Space');
  } else {
    try {
      await target.click({ timeout: 1500 });
    } catch {
      await target.click({ force: true, timeout: 1500 });
    }
  }
}

/** Plays one turn on `page` by clicking: pieces, then targets, then a chooser if one shows. */
export async function playTurn(page, { keyboard = false } = {}) {
  const start = await page.getAttribute('main', 'data-version');
  // Forty looks at the board, however long the server takes to answer a move sent: the
  // time the board is busy is bounded by the clock, not by the count.
  const end = Date.now() + BUSY_MS;
  for (let i = 0; i < 40;) {
    if ((await page.getAttribute('main', 'data-version')) !== start) return true;
    if ((await page.getAttribute('main', 'data-my-turn')) !== 'true') return true;
    if (await page.locator('#board[data-busy]').count()) {
      if (Date.now() > end) return false;
      await sleep(20);
      continue;
    }
    i += 1;
    const choice = await pick(page.locator('#chooser button'));
    if (choice) { await press(page, choice, keyboard); continue; }
    const target = await pick(page.locator('#board svg .target[tabindex]'));
    if (target) { await press(page, target, keyboard); continue; }
    const piece = await pick(page.locator('#board svg .movable[tabindex]'));
    if (piece) { await press(page, piece, keyboard); continue; }
    await sleep(50);
  }
  return false;
}

/**
 * Plays the game open in every page to its end: whichever page shows "your move" plays.
 * Calls `onMove(n)` after each move (for screenshots). Returns the finished status text.
 */
export async function playToEnd(players, { maxMoves = 5000, keyboard = false, onMove } = {}) {
  let moves = 0;
  let idle = 0;
  let stuck = 0;
  while (moves < maxMoves) {
    let acted = false;
    for (const p of players) {
      const status = await p.page.getAttribute('main', 'data-status');
      if (status === 'finished') return p.page.textContent('#status');
      if ((await p.page.getAttribute('main', 'data-my-turn')) === 'true') {
        if (!(await playTurn(p.page, { keyboard }))) {
          stuck += 1;
          if (stuck > 20) throw new Error(`${p.name} has the move but nothing to click`);
          continue;
        }
        stuck = 0;
        moves += 1;
        acted = true;
        if (onMove) await onMove(moves, p);
      }
    }
    if (!acted) {
      idle += 1;
      if (idle > 400) throw new Error('nobody could move for 40 s');
      await sleep(100);
    } else idle = 0;
  }
  throw new Error(`no finish after ${maxMoves} moves`);
}

export function shotPath(name) {
  mkdirSync(SHOTS, { recursive: true });
  return path.join(SHOTS, `${name}.png`);
}
