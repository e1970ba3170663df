// GNU Backgammon on the page: the bots the server offers on the new-game form, a game
// against gnubg-expert followed live, and its analysis on the finished game's page (the
// figures, the marked decisions, a decision replayed with the best move drawn, the jumps
// from blunder to blunder), checked with axe. Needs gnubg (installed by tests/run.sh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, player, apiAs, playSeatToEnd, axeViolations } from './lib.mjs';

/** gnubg's notation (from the mover's side) in White's count, as ana (White) reads it on her board. */
function inWhitesCount(text, seat) {
  return seat === 0 ? text : text.replace(/(^|[\s/])(\d+)/g, (m, pre, n) => `${pre}${25 - Number(n)}`);
}

let ana;
let gnubg = false;

before(async () => {
  ana = await player('ana');
  const list = await (await fetch(`${BASE}/v1/bots`)).json();
  gnubg = list.some((b) => b.name === 'gnubg-expert');
});

after(async () => {
  await ana?.close();
});

test('new game: the bots come from the server, gnubg-expert offered for backgammon and not for Ludo; the usual three where the list cannot be read', async (t) => {
  if (!gnubg) { t.skip('this server has no GNU Backgammon'); return; }
  const { page } = ana;
  await page.goto(`${BASE}/#/new`);
  await page.waitForSelector('#create-game');
  const bots = async () => page.locator('#seat-1 option[value^="bot:"]').evaluateAll((os) => os.map((o) => [o.value, o.textContent]));
  await page.selectOption('#variant', 'backgammon');
  const bg = await bots();
  assert.ok(bg.some(([v, text]) => v === 'bot:gnubg-expert' && text === 'Computer: GNU Backgammon, expert'), JSON.stringify(bg));
  assert.ok(bg.some(([v]) => v === 'bot:random'), JSON.stringify(bg));
  // A bot of backgammon chosen, then Ludo: the seat falls back to a choice Ludo has.
  await page.selectOption('#seat-1', 'bot:gnubg-expert');
  await page.selectOption('#variant', 'ludo');
  const ludo = await bots();
  assert.ok(!ludo.some(([v]) => v.startsWith('bot:gnubg')), JSON.stringify(ludo));
  assert.ok(ludo.some(([v]) => v === 'bot:greedy'), JSON.stringify(ludo));
  assert.notEqual(await page.inputValue('#seat-1'), '');
  // Chosen on the form, the bot sits in the game.
  await page.selectOption('#variant', 'backgammon');
  await page.selectOption('#seat-1', 'bot:gnubg-beginner');
  await page.click('#create-game');
  await page.waitForURL(/#\/game\//);
  const id = page.url().split('#/game/')[1];
  const g = await (await fetch(`${BASE}/v1/games/${id}`)).json();
  assert.equal(g.seats[1].bot, 'gnubg-beginner');
  // Where the list cannot be read, the bots every server has are offered.
  const other = await ana.context.newPage();
  try {
    await other.route('**/v1/bots', (r) => r.fulfill({ status: 503, json: { title: 'Service Unavailable', status: 503 } }));
    await other.goto(`${BASE}/#/new?variant=backgammon`);
    await other.waitForSelector('#create-game');
    const fallback = await other.locator('#seat-1 option[value^="bot:"]').evaluateAll((os) => os.map((o) => o.value));
    assert.deepEqual(fallback, ['bot:random', 'bot:greedy', 'bot:expectimax']);
  } finally {
    await other.close();
  }
  assert.deepEqual(ana.errors, []);
});

test('analysis: a one-point game against gnubg-expert, followed live, then analysed on its page: figures, marks, a decision replayed with the best move, next blunder, axe', async (t) => {
  if (!gnubg) { t.skip('this server has no GNU Backgammon'); return; }
  const { page } = ana;
  const made = await apiAs(ana, 'POST', '/v1/games', { variant: 'backgammon', options: { match_length: 1 }, seats: [ana.id, { bot: 'gnubg-expert' }] });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const id = made.body.id;
  await page.goto(`${BASE}/#/game/${id}`);
  await page.waitForSelector('#board svg');

  // The bot moves in the background; the page takes its moves from the stream (polling
  // only every 15 s): after each of ana's first moves, the page shows her turn again at
  // the version the server is at.
  for (let i = 0; i < 3; i++) {
    let g = (await apiAs(ana, 'GET', `/v1/games/${id}`)).body;
    const deadline = Date.now() + 60000;
    while (g.status === 'active' && g.to_move !== 0 && Date.now() < deadline) {
      await new Promise((r) => { setTimeout(r, 50); });
      g = (await apiAs(ana, 'GET', `/v1/games/${id}`)).body;
    }
    if (g.status !== 'active') break;
    assert.equal(g.to_move, 0, 'the bot did not move within a minute');
    await page.waitForFunction((v) => Number(document.querySelector('main').dataset.version) >= v
      && document.querySelector('main').dataset.myTurn === 'true', g.version, { timeout: 10000 });
    const r = await apiAs(ana, 'POST', `/v1/games/${id}/moves`, { move: g.legal_moves[0] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  await playSeatToEnd(ana, id, 0);
  await page.waitForSelector('main[data-status="finished"]', { timeout: 20000 });

  // Asked for with the button: "Analysing…" while the server answers 202, then the figures.
  await page.waitForSelector('#analysis:not([hidden]) #analyse');
  await page.click('#analyse');
  await page.waitForFunction(() => /Analysing…/.test(document.querySelector('#analysis-status').textContent)
    || document.querySelector('#analysis').dataset.state === 'ready');
  await page.waitForSelector('#analysis[data-state="ready"]', { timeout: 300000 });
  const view = await (await fetch(`${BASE}/v1/games/${id}/analysis`)).json();
  assert.equal(view.state, 'ready');
  const a = view.analysis;
  const decisions = a.games.flatMap((g) => g.decisions);

  for (const p of a.players) {
    const cell = async (key) => (await page.textContent(`#analysis-figures tr[data-figure="${key}"] td[data-seat="${p.seat}"]`)).trim();
    assert.equal(await cell('error_rate_memg'), p.error_rate_memg.toFixed(1));
    assert.equal(await cell('pr'), p.pr.toFixed(1));
    assert.equal(await cell('rating'), p.rating);
    assert.equal(await cell('doubtful'), String(p.doubtful));
    assert.equal(await cell('errors'), String(p.errors));
    assert.equal(await cell('blunders'), String(p.blunders));
  }
  assert.match(await page.textContent('#analysis-figures caption'), /Figures/);
  assert.match(await page.textContent('#analysis-figures thead'), /White \(you\)/);

  // Every decision listed; each mark shown as a symbol and a word.
  assert.equal(await page.locator('#analysis-moves button.decision').count(), decisions.length);
  const words = { blunder: '?? blunder', error: '? error', doubtful: '?! doubtful' };
  for (const [mark, text] of Object.entries(words)) {
    const listed = await page.locator(`#analysis-moves button.decision[data-mark="${mark}"]`).allTextContents();
    assert.equal(listed.length, decisions.filter((d) => d.mark === mark).length, mark);
    for (const l of listed) assert.ok(l.includes(text), `${mark}: ${l}`);
  }
  const marked = decisions.filter((d) => d.mark);
  assert.ok(marked.length > 0, 'first legal moves against gnubg-expert make no mistake?');

  // A marked checker play of ana's, chosen with the keyboard: the replay goes to the
  // position before it and the board draws the best move beside the played one.
  const pick = decisions.find((d) => d.mark && d.kind === 'checkers' && d.seat === 0 && d.version)
    || decisions.find((d) => d.mark && d.kind === 'checkers' && d.version);
  assert.ok(pick, 'no marked checker play');
  const index = decisions.indexOf(pick);
  await page.focus(`#analysis-moves button.decision[data-index="${index}"]`);
  await page.keyboard.press('Enter');
  await page.waitForFunction((v) => document.querySelector('#replay').value === String(v - 1)
    && document.querySelector('#board svg')?.dataset.review === 'ready', pick.version);
  assert.match(await page.textContent('#replay-label'), new RegExp(`step ${pick.version - 1} of`));
  assert.equal(await page.getAttribute(`#analysis-moves button.decision[data-index="${index}"]`, 'aria-current'), 'true');
  assert.ok(await page.locator('#board svg .best-move').count() > 0, 'the best move is drawn');
  assert.ok(await page.locator('#board svg .played-move').count() > 0, 'the played move is drawn');
  // The best move's steps are those of the analysis, from where the checkers stood.
  const bestFrom = await page.locator('#board svg .best-move').evaluateAll((gs) => gs.map((g) => g.dataset.bestFrom).sort());
  const mover = pick.seat === 0 ? 'white' : 'black';
  assert.deepEqual(bestFrom, pick.best_steps.map((s) => (s.from === 'bar' ? `bar-${mover}` : `p${s.from}`)).sort());
  const state = await (await fetch(`${BASE}/v1/games/${id}/state?at=${pick.version - 1}`)).json();
  assert.deepEqual(await page.locator('#board svg [data-point]').evaluateAll((ps) => ps.map((p) => Number(p.dataset.count))), state.state.board);
  // Said beside the board: the mark, the played move and the best ("best: 8/5 6/5").
  assert.match(await page.textContent('#review-mark'), new RegExp(words[pick.mark].replace(/[?]/g, '\\?')));
  assert.equal((await page.textContent('#review-played')).trim(), inWhitesCount(pick.played, pick.seat));
  assert.equal((await page.textContent('#review-best')).trim(), inWhitesCount(pick.best, pick.seat));
  assert.match(await page.textContent('#analysis-move .review-legend'), /best: \S/);
  assert.match(await page.textContent('#board svg desc.review-said'), /best/);

  // Next blunder: the first blunder after the chosen decision, if there is one.
  const nextBlunder = decisions.slice(index + 1).find((d) => d.mark === 'blunder' && d.version);
  if (nextBlunder) {
    await page.click('#next-blunder');
    await page.waitForFunction((v) => document.querySelector('#replay').value === String(v - 1), nextBlunder.version);
    assert.equal(await page.getAttribute(`#analysis-moves button.decision[data-index="${decisions.indexOf(nextBlunder)}"]`, 'aria-current'), 'true');
    await page.waitForSelector('#board svg[data-review="ready"] .best-move');
    await page.click('#prev-blunder');
    const before = decisions.slice(0, decisions.indexOf(nextBlunder)).reverse().find((d) => d.mark === 'blunder' && d.version);
    if (before) await page.waitForFunction((v) => document.querySelector('#replay').value === String(v - 1), before.version);
    else await page.waitForFunction(() => /No blunder before/.test(document.querySelector('#analysis-note').textContent));
  } else if (!decisions.some((d) => d.mark === 'blunder')) {
    assert.equal(await page.isDisabled('#next-blunder'), true);
  }

  const v = await axeViolations(page);
  assert.deepEqual(v, [], v.join('\n'));
  // Back to the end: nothing under review any more.
  await page.click('#replay-live');
  await page.waitForFunction(() => !document.querySelector('#review') && !document.querySelector('#board svg .best-move'));
  assert.deepEqual(ana.errors, []);
});
