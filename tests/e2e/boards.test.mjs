// The boards as players of these games expect them (issue 25): backgammon's point
// numbers from each player's own side, the pip counts, the opening roll credited to the
// right player, the cube and the match on the board, the opponent's last move marked on
// every board, 44 px touch targets on a phone, and Hoofden's legend. Two players in two
// browser contexts; games are set up through the API so that these tests do not depend
// on the forms.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, player, playTurn, apiAs, tokenOf } from './lib.mjs';
import { notation, pointFor } from '../../api/web/boards/backgammon.js';

const PHONE = { width: 390, height: 844 };
/** The turns played on the phone per game, each checked. */
const TURNS = 4;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let ann;
let bob;
let pia;

before(async () => {
  ann = await player('nora');
  bob = await player('otto');
  pia = await player('pia', PHONE);
});

after(async () => {
  for (const p of [ann, bob, pia]) {
    if (p) assert.deepEqual(p.errors, [], `${p.name}'s page had errors`);
    await p?.close();
  }
});

/** A call to the API as player `p` (with the token the server gave at sign-up). */
async function call(p, method, path, body) {
  const r = await fetch(`${BASE}${path}`, {
    method,
    headers: { accept: 'application/json', authorization: `Bearer ${await tokenOf(p)}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A game of `variant` created by `a`, with `b` (a player or a bot name) in seat 1. */
async function newGame(a, variant, b, options = {}) {
  const second = typeof b === 'string' ? { bot: b } : null;
  const g = await call(a, 'POST', '/v1/games', { variant, options, seats: [a.id, second] });
  if (!second) await call(b, 'POST', `/v1/games/${g.id}/seats/1`, {});
  return g.id;
}

async function open(p, id) {
  await p.page.goto(`${BASE}/#/game/${id}`);
  await p.page.waitForSelector('#board svg');
}

/** Waits until the board shows the last moves (it is drawn again once they are read). */
async function settled(page) {
  await page.waitForSelector('#board svg[data-last="ready"]');
}

async function game(id) {
  return (await fetch(`${BASE}/v1/games/${id}`)).json();
}

/** Waits until one of `players` has the move; returns [mover, the other]. */
async function whoMoves(players, ms = 30000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    for (const p of players) {
      if ((await p.page.getAttribute('main', 'data-my-turn')) === 'true') return [p, players.find((q) => q !== p)];
    }
    await sleep(50);
  }
  throw new Error('nobody got the move');
}

/** The newest `move_played` event of a game. */
async function lastMovePlayed(id) {
  const r = await (await fetch(`${BASE}/v1/games/${id}/events?limit=1000`)).json();
  return r.events.filter((e) => e.type === 'move_played').pop();
}

/** The box of the first match of `sel`; the board is drawn again now and then, so retry. */
async function box(page, sel) {
  for (let i = 0; i < 40; i++) {
    const b = await page.locator(sel).first().boundingBox({ timeout: 2000 }).catch(() => null);
    if (b) return b;
    await sleep(50);
  }
  throw new Error(`no box for ${sel}`);
}

test('backgammon: each player counts from his own home board, both pip counts show, the opening roll is credited', async () => {
  const id = await newGame(ann, 'backgammon', bob);
  await open(ann, id);
  await open(bob, id);
  // White (ann) sees the engine's point 24 as her 1-point, bottom right; Black (bob)
  // sees point 1 as his 1-point, bottom right. Spectators count as White.
  for (const [p, view, one, twelve] of [[ann, 'white', 'p24', 'p13'], [bob, 'black', 'p1', 'p12']]) {
    const { page } = p;
    assert.equal(await page.getAttribute('#board svg', 'data-view'), view);
    assert.equal(await page.getAttribute(`#board svg > g[data-piece="${one}"]`, 'data-point'), '1');
    assert.equal(await page.getAttribute(`#board svg > g[data-piece="${twelve}"]`, 'data-point'), '12');
    assert.equal(await page.locator(`#board svg > g[data-piece="${one}"] .point-number`).textContent(), '1');
    const svg = await box(page, '#board svg');
    const b1 = await box(page, `#board svg > g[data-piece="${one}"]`);
    const b12 = await box(page, `#board svg > g[data-piece="${twelve}"]`);
    assert.ok(b1.y > svg.y + svg.height / 3, `${view}: the 1-point is in the lower half`);
    assert.ok(b1.x > svg.x + svg.width / 2 && b12.x < svg.x + svg.width / 3, `${view}: 1 on the right, 12 on the left`);
    assert.match(await page.locator(`#board svg > g[data-piece="${one}"] title`).textContent(), /^Point 1: 2 (white|black)$/);
    // Both pip counts, on the board and beside it.
    assert.match(await page.textContent('#pip-count'), /White 167, Black 167/);
    assert.equal(await page.getAttribute('#board .pips-white', 'data-pips'), '167');
    assert.equal(await page.getAttribute('#board .pips-black', 'data-pips'), '167');
  }
  // The opening roll: White rolled one die, Black the other.
  const g = await game(id);
  const { white, black } = g.state.opening_roll;
  const starter = white > black ? 'White' : 'Black';
  for (const { page } of [ann, bob]) {
    await page.waitForFunction(() => /Opening roll/.test(document.querySelector('#dice-caption')?.textContent || ''));
    const caption = await page.textContent('#dice-caption');
    assert.match(caption, new RegExp(`White rolled ${white}, Black rolled ${black}: ${starter} starts`));
    const dice = await page.locator('#dice svg.die').evaluateAll((es) => es.map((e) => e.getAttribute('aria-label')));
    assert.deepEqual(dice, [`White's die showing ${white}`, `Black's die showing ${black}`]);
  }
  // The keyboard labels speak the mover's own count.
  const [mover] = await whoMoves([ann, bob]);
  const side = mover === ann ? 'white' : 'black';
  const labels = await mover.page.locator('#board [data-key^="piece:p"]').evaluateAll((es) => es.map((e) => [e.getAttribute('data-piece'), e.getAttribute('aria-label')]));
  assert.ok(labels.length);
  for (const [key, l] of labels) {
    assert.match(l, new RegExp(`^point ${pointFor(side, Number(key.slice(1)))} \\(\\d+ ${side}\\)`), `${side}: ${key}`);
  }
});

test('the opponent\'s last move is marked on the board, for the players and a spectator', async () => {
  const id = await newGame(ann, 'backgammon', bob);
  await open(ann, id);
  await open(bob, id);
  for (let turn = 0; turn < 2; turn++) {
    const [mover, other] = await whoMoves([ann, bob]);
    const before = Number(await other.page.getAttribute('main', 'data-version'));
    assert.ok(await playTurn(mover.page));
    await other.page.waitForFunction((v) => Number(document.querySelector('main').getAttribute('data-version')) > v, before);
    const ev = await lastMovePlayed(id);
    const side = ev.payload.seat === 0 ? 'white' : 'black';
    const key = (v, end) => (v === 'bar' ? `bar-${side}` : v === 'off' ? `off-${side}` : `p${v}`) + (end ? '' : '');
    const want = ev.payload.move.steps.map((s) => [key(s.from), key(s.to)]).sort();
    await other.page.waitForSelector('#board .last-move');
    const marks = await other.page.locator('#board .last-move').evaluateAll((es) => es.map((e) => [e.getAttribute('data-last-from'), e.getAttribute('data-last-to')]));
    assert.deepEqual(marks.sort(), want, 'every checker step of the opponent is marked');
    // And said in words, in the count of the one who reads it.
    const reader = other === ann ? 'white' : 'black';
    const name = side === 'white' ? 'White' : 'Black';
    assert.equal(await other.page.textContent('#board svg desc.last-said'), `Last move: ${name} played ${notation(reader, ev.payload.move)}.`);
    // The mover sees no mark of his own move.
    await sleep(300);
    assert.equal(await mover.page.locator('#board .last-move').count(), 0);
  }
  // A spectator (no account) sees the newest move, in White's count.
  const ctx = await launch();
  try {
    const page = ctx.pages()[0] || await ctx.newPage();
    await page.goto(`${BASE}/#/game/${id}`);
    await page.waitForSelector('#board .last-move');
    assert.equal(await page.getAttribute('#board svg', 'data-view'), 'white');
    const ev = await lastMovePlayed(id);
    assert.equal(await page.locator('#board .last-move').count(), ev.payload.move.steps.length);
  } finally {
    await ctx.close();
  }
});

test('the last move is marked on the other boards too', async () => {
  for (const variant of ['hoofden', 'ali_baba', 'ludo', 'mens_erger_je_niet']) {
    const id = await newGame(ann, variant, bob);
    await open(ann, id);
    await open(bob, id);
    let marked = false;
    for (let turn = 0; turn < 60 && !marked; turn++) {
      const [mover, other] = await whoMoves([ann, bob]);
      const before = Number(await other.page.getAttribute('main', 'data-version'));
      assert.ok(await playTurn(mover.page), `${variant}: ${mover.name} could play`);
      await other.page.waitForFunction((v) => Number(document.querySelector('main').getAttribute('data-version')) > v, before);
      const ev = await lastMovePlayed(id);
      if (ev.payload.seat === (other === ann ? 0 : 1)) continue;
      // The mark appears once the log has been read.
      await other.page.waitForSelector('#board .last-move', { timeout: 5000 });
      const n = await other.page.locator('#board .last-move').count();
      assert.ok(n >= 1, `${variant}: the move is marked`);
      const to = await other.page.locator('#board .last-move').last().getAttribute('data-last-to');
      assert.ok(to, `${variant}: the mark names where the piece went`);
      marked = true;
    }
    assert.ok(marked, `${variant}: a move of the opponent was seen`);
  }
});

/** Checks that every active piece or place on pia's board takes taps over at least 44 × 44 px. */
async function checkTouch(page, variant, kind, t) {
  // The page gives each active key one focusable element, named by data-key.
  const role = kind === 'movable' ? 'piece' : 'target';
  const keys = await page.locator(`#board svg [data-key^="${role}:"]`).evaluateAll((es) => es.map((e) => e.getAttribute('data-key').replace(/^\w+:/, '')));
  assert.ok(keys.length, `${variant}: something is ${kind}`);
  const attr = kind === 'movable' ? 'data-piece' : 'data-target';
  await page.waitForFunction(() => document.querySelector('#board svg .hits rect'));
  // A passing notice (the toast at the bottom) covers whatever is under it.
  await page.waitForFunction(() => !document.querySelector('#toast.show'), null, { timeout: 10000 });
  let least = Infinity;
  for (const k of keys) {
    const sel = `#board svg .hits > [${attr}="${k}"]`;
    const hit = await page.locator(sel).first().boundingBox({ timeout: 2000 }).catch(() => null);
    const shown = await box(page, `#board svg [data-key="${kind === 'movable' ? 'piece' : 'target'}:${k}"]`);
    const w = Math.max(hit ? hit.width : 0, shown.width);
    const h = Math.max(hit ? hit.height : 0, shown.height);
    assert.ok(w >= 44 - 0.5 && h >= 44 - 0.5, `${variant}: ${k} takes ${w.toFixed(1)} × ${h.toFixed(1)} px`);
    least = Math.min(least, w, h);
  }
  t.diagnostic(`${variant}: ${keys.length} ${kind}, the smallest takes ${least.toFixed(1)} px`);
  // A tap 20 px from the centre of each (inside its 44 px area) reaches it, unless another
  // active piece or place is nearer to where the finger is.
  for (const k of keys) {
    const shown = page.locator(`#board svg [data-key="${kind === 'movable' ? 'piece' : 'target'}:${k}"]`);
    await shown.scrollIntoViewIfNeeded();
    const wrong = await shown.evaluate((e, a) => {
      const at = (g) => { const r = g.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; };
      const active = [...document.querySelectorAll('#board svg .movable[tabindex], #board svg .target[tabindex]')];
      const [cx, cy] = at(e);
      const k2 = e.getAttribute(a);
      const out = [];
      for (const [x, y] of [[cx, cy - 20], [cx, cy + 20], [cx - 20, cy], [cx + 20, cy]]) {
        const t = document.elementFromPoint(x, y);
        const g = t && t.closest(`[${a}]`);
        const got = g ? g.getAttribute(a) : null;
        if (got === k2) continue;
        const nearer = active.some((o) => (o.getAttribute('data-piece') === got || o.getAttribute('data-target') === got)
          && Math.hypot(at(o)[0] - x, at(o)[1] - y) < 20);
        if (!nearer) out.push(`${x.toFixed(0)},${y.toFixed(0)} -> ${got}`);
      }
      return out;
    }, attr);
    assert.deepEqual(wrong, [], `${variant}: taps 20 px from the centre of ${k} reach it`);
  }
  return keys;
}

test('a hit area takes taps everywhere inside it, its middle lines too, wherever it stands', async () => {
  // Pieces at many sub-pixel places on a phone-sized board: every point of each piece's
  // 44 px area up to 20 px from its centre, along the middle lines, reaches that piece.
  const { page } = pia;
  await page.goto(`${BASE}/`);
  const misses = await page.evaluate(async () => {
    const { el, root, touchTargets } = await import('/web/boards/common.js');
    const svg = root(-16.2, -16.2, 572.4, 572.4, 'hit areas');
    const wrap = document.createElement('div');
    wrap.className = 'board-wrap';
    wrap.append(svg);
    document.body.prepend(wrap);
    // Inside the board and far enough apart (75 and 130 units, about 47 and 82 px) that
    // no two areas overlap.
    for (let i = 0; i < 28; i++) {
      const g = el('g', { 'data-target': `t${i}`, class: 'target' });
      const [x, y] = [40 + (i % 7) * 75 + (i * 0.37) % 1, 40 + Math.floor(i / 7) * 130 + (i * 0.61) % 1];
      g.append(el('rect', { x, y, width: 20 + (i % 5), height: 20 + (i % 3) * 30, fill: '#ddd' }));
      svg.append(g);
    }
    touchTargets(svg);
    const out = [];
    // Boards of several widths, as phones draw them.
    for (const width of [359.21875, 341.7, 350.9, 377.3]) {
      svg.style.width = `${width}px`;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      for (const r of svg.querySelectorAll('.hits > rect')) {
        const b = r.getBoundingClientRect();
        const [cx, cy] = [b.x + b.width / 2, b.y + b.height / 2];
        const k = r.getAttribute('data-target');
        for (let d = 0.5; d <= 20; d += 0.5) {
          for (const e of [-0.5, -0.25, 0, 0.25, 0.5]) {
            for (const [x, y] of [[cx + d, cy + e], [cx - d, cy + e], [cx + e, cy + d], [cx + e, cy - d]]) {
              const got = document.elementFromPoint(x, y)?.closest('[data-target]')?.getAttribute('data-target');
              if (got !== k && out.length < 5) out.push(`${width} px wide, ${k}: ${x.toFixed(2)},${y.toFixed(2)} -> ${got}`);
            }
          }
        }
      }
    }
    wrap.remove();
    return out;
  });
  assert.deepEqual(misses, []);
});

test('on a phone every movable piece and every target takes taps over at least 44 × 44 px', async (t) => {
  const { page } = pia;
  for (const [variant, options] of [['backgammon'], ['hoofden'], ['ali_baba'], ['ludo'], ['mens_erger_je_niet'], ['mens_erger_je_niet', { board: 6 }]]) {
    const id = await newGame(pia, variant, 'random', options);
    await open(pia, id);
    await page.waitForSelector('main[data-my-turn="true"]', { timeout: 60000 });
    await page.waitForSelector('#board svg .movable[tabindex]');
    await settled(page);
    if (variant === 'backgammon') {
      // The board turns a quarter: every point is at least 44 px wide.
      assert.equal(await page.getAttribute('#board svg', 'data-turned'), 'true');
      for (const p of [1, 7, 12, 13, 19, 24]) {
        const b = await box(page, `#board svg > [data-piece="p${p}"]`);
        assert.ok(b.width >= 44 && b.height >= 44, `point ${p}: ${b.width.toFixed(1)} × ${b.height.toFixed(1)} px`);
      }
    }
    // Several turns, so that pieces come to stand side by side.
    for (let turn = 0; turn < TURNS; turn++) {
      if (turn) {
        const on = await page.waitForSelector('main[data-my-turn="true"], main[data-status="finished"]', { timeout: 60000 });
        if ((await on.getAttribute('data-status')) === 'finished') break;
        await page.waitForSelector('#board svg .movable[tabindex]');
        await settled(page);
      }
      const version = await page.getAttribute('main', 'data-version');
      const pieces = await checkTouch(page, variant, 'movable', t);
      // playTurn may have left a stray click on the board as the game moved on: start afresh.
      if (await page.locator('#cancel-move').count()) await page.click('#cancel-move');
      await page.locator(`#board svg [data-key="piece:${pieces[0]}"]`).click();
      try {
        await page.waitForSelector('#board svg .target[tabindex]', { timeout: 5000 });
      } catch {
        // The game moved on under the click (a roll arriving late): look again.
        assert.notEqual(await page.getAttribute('main', 'data-version'), version, `${variant}: a tap on ${pieces[0]} selects it`);
        turn -= 1;
        continue;
      }
      await settled(page);
      const targets = await checkTouch(page, variant, 'target', t);
      // Tapping the target 18 px off its centre plays it: the hit area, not the drawing.
      const tb = await box(page, `#board svg [data-key="target:${targets[0]}"]`);
      await page.mouse.click(tb.x + tb.width / 2 + 18, tb.y + tb.height / 2);
      // The move is played, or (backgammon) the next checker is to be moved, or a chooser shows.
      await page.waitForFunction((v) => document.querySelector('main').getAttribute('data-version') !== v
        || document.querySelector('#cancel-move, #chooser'), version);
      if ((await page.getAttribute('main', 'data-version')) === version) await playTurn(page);
      await page.waitForFunction((v) => document.querySelector('main').getAttribute('data-version') !== v, version);
    }
  }
  // The desktop board is not turned.
  const id = await newGame(ann, 'backgammon', 'random');
  await open(ann, id);
  assert.equal(await ann.page.getAttribute('#board svg', 'data-turned'), null);
});

test('backgammon match: the cube on the board with its owner, the score, double, take, pass, the Crawford game, resignation offers', async () => {
  const id = await newGame(ann, 'backgammon', bob, { match_length: 3 });
  await open(ann, id);
  await open(bob, id);
  for (const { page } of [ann, bob]) {
    await page.waitForSelector('#board .cube[data-cube="1"][data-owner="centre"]');
    assert.match(await page.textContent('#match-score'), /Match to 3: White 0, Black 0\. Game 1\./);
  }
  const decide = async (p, re) => {
    const b = p.page.locator('#decisions button', { hasText: re });
    await b.waitFor({ state: 'attached' });
    // Offers to resign sit behind the "Offer to resign…" toggle.
    if (!(await b.isVisible())) await p.page.click('#decisions details.more-decisions > summary');
    await b.click();
  };
  // The opening roll's winner plays; then the other may double.
  let [starter, doubler] = await whoMoves([ann, bob]);
  assert.ok(await playTurn(starter.page));
  await whoMoves([doubler]);
  const names = await doubler.page.locator('#decisions button').allTextContents();
  assert.ok(names.includes('Roll the dice') && names.includes('Double: offer the cube at 2'), names.join('; '));
  await decide(doubler, /^Double/);
  const taker = starter;
  await whoMoves([taker]);
  assert.match(await taker.page.textContent('#offer'), /doubles to 2/);
  // The offer is also said right above the buttons that answer it.
  assert.match(await taker.page.textContent('#hint'), /doubles to 2\. Your answer\?/);
  const answers = await taker.page.locator('#decisions button').allTextContents();
  assert.ok(answers.some((t) => /^Take/.test(t)) && answers.some((t) => /^Pass/.test(t)), answers.join('; '));
  await decide(taker, /^Take/);
  // The cube, at 2, goes to the taker's side: the bottom of his board, the top of the doubler's.
  const takerSide = taker === ann ? 'white' : 'black';
  for (const [p, lower] of [[taker, true], [doubler, false]]) {
    await p.page.waitForSelector(`#board .cube[data-cube="2"][data-owner="${takerSide}"]`);
    const svg = await box(p.page, '#board svg');
    const cube = await box(p.page, '#board .cube');
    assert.equal(cube.y + cube.height / 2 > svg.y + svg.height / 2, lower, `${p.name} sees the cube on the ${takerSide} side`);
    assert.match(await p.page.textContent('#extra'), new RegExp(`Cube: 2, ${takerSide === 'white' ? 'White' : 'Black'}'s`));
  }
  // The doubler rolls and plays; the taker redoubles; the doubler passes: the taker wins
  // 2 points, one short of 3: the next game is the Crawford game.
  await whoMoves([doubler]);
  assert.ok(await playTurn(doubler.page));
  await whoMoves([taker]);
  await decide(taker, /^Double: offer the cube at 4/);
  await whoMoves([doubler]);
  await decide(doubler, /^Pass/);
  const score = takerSide === 'white' ? /White 2, Black 0\. Game 2\./ : /White 0, Black 2\. Game 2\./;
  for (const { page } of [ann, bob]) {
    await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('#match-score')?.textContent || ''), score.source);
    // The score is on the board too, beside each side's tray.
    assert.equal(await page.getAttribute(`#board .score-${takerSide}`, 'data-score'), '2');
    assert.equal(await page.getAttribute(`#board .score-${takerSide === 'white' ? 'black' : 'white'}`, 'data-score'), '0');
    assert.match(await page.textContent('#crawford'), /Crawford game/);
    await page.waitForSelector('#board .cube[data-cube="1"][data-owner="centre"]');
    assert.equal(await page.locator('#board .cube text').textContent(), 'CR');
  }
  // In the Crawford game nobody doubles, but a player may offer to resign; declined, play goes on.
  [starter] = await whoMoves([ann, bob]);
  const other = starter === ann ? bob : ann;
  const offers = await starter.page.locator('#decisions button').allTextContents();
  assert.ok(!offers.some((t) => /^Double/.test(t)), offers.join('; '));
  assert.ok(offers.includes('Offer to resign a single (1 point)'), offers.join('; '));
  // The offers wait behind a toggle, out of the way of the turn's own buttons.
  assert.equal(await starter.page.locator('#decisions button', { hasText: /^Offer to resign a single/ }).isVisible(), false);
  await decide(starter, /^Offer to resign a single/);
  await whoMoves([other]);
  assert.match(await other.page.textContent('#offer'), /offers to resign a single \(1 point\)/);
  assert.ok((await other.page.locator('#decisions button').allTextContents()).includes('Accept the resignation (win 1 point)'));
  await decide(other, /^Decline/);
  await whoMoves([starter]);
  assert.equal((await game(id)).status, 'active');
  // The player without a point resigns: the match is over, and the page says so as a
  // match, lists how each game ended, and shows no Crawford badge any more.
  assert.equal((await apiAs(doubler, 'POST', `/v1/games/${id}/resign`, {})).status, 200);
  const winner = takerSide === 'white' ? 'White' : 'Black';
  for (const { page } of [ann, bob]) {
    await page.waitForSelector('main[data-status="finished"]');
    assert.match(await page.textContent('#finished-h'), /Match over/);
    // Resigned, the match is lost at the most the winner could still make of the game.
    assert.match(await page.textContent('#result'), /won the match [3-5]–0/);
    assert.match(await page.textContent('#status'), /Match over: .* won the match [3-5]–0\./);
    assert.match(await page.textContent('#match-score'), /Match to 3, over: .* in 2 games\./);
    const games = await page.locator('#match-games li').allTextContents();
    assert.equal(games.length, 2, games.join('; '));
    assert.match(games[0], new RegExp(`^${winner} won, 2 points \\(cube at 2\\)$`));
    assert.match(games[1], new RegExp(`^${winner} won, [1-3] points?, the Crawford game$`));
    assert.equal(await page.locator('#crawford').count(), 0);
  }
});

test('Hoofden: a legend of the head letters beside the board', async () => {
  const id = await newGame(ann, 'hoofden', bob);
  await open(ann, id);
  const items = await ann.page.locator('#head-legend li').allTextContents();
  assert.equal(items.length, 4);
  for (const [i, head] of ['blue', 'green', 'red', 'yellow'].entries()) {
    assert.match(items[i], new RegExp(`${head[0]} = ${head}: fights with a \\d-\\d die`));
  }
  // Every letter drawn on a pawn is one the legend explains.
  const letters = new Set(await ann.page.locator('#board .pawn text').allTextContents());
  for (const l of letters) assert.ok(['b', 'g', 'r', 'y'].includes(l), l);
});

test('a read of the game answered late does not take the page back to an older state', async () => {
  const id = await newGame(ann, 'backgammon', bob);
  await open(ann, id);
  const page = ann.page;
  const version = async () => Number(await page.getAttribute('main', 'data-version'));
  const moveNow = async () => {
    const g = await game(id);
    await call(g.to_move === 0 ? ann : bob, 'POST', `/v1/games/${id}/moves`, { move: g.legal_moves[0] });
    return (await game(id)).version;
  };
  // The page's next read of the game is answered only once a newer state is shown.
  let release;
  const held = new Promise((r) => { release = r; });
  let heldRead;
  const reading = new Promise((r) => { heldRead = r; });
  let armed = true;
  const path = `/v1/games/${id}`;
  const thisGame = (u) => u.pathname === path;
  await page.route(thisGame, async (route) => {
    if (!armed || route.request().method() !== 'GET') return route.continue();
    armed = false;
    const response = await route.fetch();
    heldRead();
    await held;
    await route.fulfill({ response });
  });
  await moveNow();
  await reading;
  const newest = await moveNow();
  await page.waitForFunction((v) => Number(document.querySelector('main')?.getAttribute('data-version')) === v, newest);
  release();
  await sleep(500);
  assert.equal(await version(), newest, 'the late answer, older than what is shown, is not shown');
  await page.unroute(thisGame);
});
