// The pages around the boards, two players in two browsers: names instead of ids, the
// confirmation before taking a seat, challenges accepted and declined, the lobby, the
// not-found and finished-game pages, player pages and the leaderboard, messages, and the
// new-game form in plain words.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, player, createGame, takeSeat, apiAs, apiPlayer, playMoves, season } from './lib.mjs';

let alice;
let bob;

before(async () => {
  alice = await player('alice');
  bob = await player('bob', { width: 390, height: 844 });
  for (const p of [alice, bob]) p.page.on('dialog', (d) => d.accept());
});

after(async () => {
  await alice?.close();
  await bob?.close();
});

const HEX_ID = /player [0-9a-f]{8}\b/;

test('an invite link asks first: Cancel leaves the seat open, Take seat sits down; both pages name both players', async () => {
  const id = await createGame(alice, 'hoofden', { movement: 'by_head' });
  const link = await alice.page.inputValue('#invite-1');
  await bob.page.goto(link);
  await bob.page.waitForSelector('#confirm-take');
  assert.match(await bob.page.textContent('#join-invited-by'), /alice invites you to play as player 2/);
  assert.match(await bob.page.textContent('#join-options'), /How pawns move: steps by the head's colour/);
  assert.equal(await bob.page.locator('#decline').count(), 0, 'an open seat has nothing to decline');
  await bob.page.click('#cancel-join');
  await bob.page.waitForSelector('#inbox');
  const g = await (await fetch(`${BASE}/v1/games/${id}`)).json();
  assert.equal(g.status, 'waiting');
  assert.equal(g.seats[1].player_id ?? null, null);

  await takeSeat(bob, link);
  await bob.page.waitForSelector('main[data-status="active"]');
  await alice.page.waitForSelector('main[data-status="active"]');
  for (const [p, other] of [[alice, 'bob'], [bob, 'alice']]) {
    const seats = await p.page.textContent('#seat-list');
    assert.match(seats, new RegExp(other));
    assert.doesNotMatch(seats, HEX_ID);
    assert.match(await p.page.textContent('#game-title'), /alice vs bob/);
    // Every name links to the player's page.
    assert.equal(await p.page.locator(`#seat-list a.player-link[href="#/player/${p === alice ? bob.id : alice.id}"]`).count(), 1);
  }
  // The inbox and the list of games name the players too.
  await bob.page.goto(`${BASE}/#/`);
  // Listed once: under "Your turn" while it awaits bob, else under "Your other games".
  const row = bob.page.locator('#inbox li, #my-games li', { has: bob.page.locator(`a[data-game="${id}"]`) });
  await row.waitFor();
  assert.equal(await row.count(), 1);
  assert.match(await row.textContent(), /alice/);
  assert.doesNotMatch(await row.textContent(), HEX_ID);
});

test('a challenge from a player page: declined from the inbox, then another one accepted', async () => {
  await alice.page.goto(`${BASE}/#/player/${bob.id}`);
  await alice.page.click('#challenge');
  await alice.page.waitForSelector('#create-game');
  assert.equal(await alice.page.inputValue('#seat-1'), `invite:${bob.id}`);
  const first = await createGame(alice, 'ali_baba', { planks: 4 }, ['me', `invite:${bob.id}`]);
  await alice.page.waitForFunction(() => /bob \(invited\)/.test(document.querySelector('#seat-list')?.textContent || ''));
  await bob.page.goto(`${BASE}/#/`);
  const row = bob.page.locator('#challenges li', { has: bob.page.locator(`a[data-game="${first}"]`) });
  await row.waitFor();
  assert.match(await row.textContent(), /alice/);
  assert.match(await row.textContent(), /Planks on the bridge: 4/);
  await row.locator('button.decline').click();
  await row.waitFor({ state: 'detached' });
  let g = await (await fetch(`${BASE}/v1/games/${first}`)).json();
  assert.equal(g.seats[1].invited ?? null, null, 'the declined seat opens');

  const second = await createGame(alice, 'ali_baba', { planks: 2 }, ['me', `invite:${bob.id}`]);
  // The invitation link of a reserved seat offers Decline as well; accept from the inbox.
  // From the game's page too: the invited seat links to the same question.
  await bob.page.goto(`${BASE}/#/game/${second}`);
  await bob.page.click('#seat-list a.answer-challenge');
  await bob.page.waitForURL(new RegExp(`#/join/${second}/1$`));
  await bob.page.waitForSelector('#decline');
  assert.match(await bob.page.textContent('#join-h'), /challenge/i);
  await bob.page.goto(`${BASE}/#/`);
  await bob.page.locator('#challenges li', { has: bob.page.locator(`a[data-game="${second}"]`) }).locator('button.accept').click();
  await bob.page.waitForURL(new RegExp(`#/game/${second}$`));
  await bob.page.waitForSelector('main[data-status="active"]');
  g = await (await fetch(`${BASE}/v1/games/${second}`)).json();
  assert.equal(g.seats[1].player_id, bob.id);
});

test('the lobby lists a game with its creator and options; joining asks first', async () => {
  const id = await createGame(alice, 'ludo', { pawns: 2, die: 'plain' }, ['me', 'open'], { rated: false });
  await bob.page.goto(`${BASE}/#/lobby?variant=ludo`);
  const row = bob.page.locator(`#lobby li[data-game="${id}"]`);
  await row.waitFor();
  const text = await row.textContent();
  assert.match(text, /alice/);
  assert.match(text, /Pawns per player: 2/);
  assert.match(text, /Die: plain/);
  assert.match(text, /not rated/);
  await row.locator('a.join-link').click();
  await bob.page.waitForSelector('#confirm-take');
  await bob.page.click('#confirm-take');
  await bob.page.waitForURL(new RegExp(`#/game/${id}$`));
  await bob.page.waitForSelector('main[data-status="active"]');
  // Gone from the lobby once full.
  const lobby = await (await fetch(`${BASE}/v1/lobby?variant=ludo`)).json();
  assert.ok(!lobby.games.some((x) => x.game.id === id));
});

test('an unknown game is a not-found page: no board, no Resign', async () => {
  for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-game']) {
    await alice.page.goto(`${BASE}/#/game/${id}`);
    await alice.page.waitForSelector('#not-found');
    assert.equal(await alice.page.locator('#board').count(), 0);
    assert.equal(await alice.page.locator('#resign').count(), 0);
  }
  await alice.page.goto(`${BASE}/#/join/00000000-0000-4000-8000-000000000000/1`);
  await alice.page.waitForSelector('#not-found');
  assert.equal(await alice.page.locator('#confirm-take').count(), 0);
});

test('a finished game: result, reason, rating changes, export and audit links, no Resign; then the player pages and the leaderboard', async () => {
  // Players who have played, and a game in which each made its first moves: it counts.
  await season(alice, bob);
  const id = await createGame(alice, 'backgammon', {});
  await takeSeat(bob, await alice.page.inputValue('#invite-1'));
  await bob.page.waitForSelector('main[data-status="active"]');
  await playMoves([alice, bob], id, 2);
  await bob.page.waitForSelector('#resign:not([hidden])');
  await bob.page.click('#resign');
  for (const p of [alice, bob]) {
    await p.page.waitForSelector('main[data-status="finished"]');
    await p.page.waitForSelector('#finished');
    assert.ok(await p.page.locator('#resign').isHidden());
    assert.match(await p.page.textContent('#result'), /alice.* won/);
    assert.match(await p.page.textContent('#reason'), /bob.* resigned/);
    const changes = await p.page.textContent('#rating-changes');
    assert.match(changes, /alice/);
    assert.match(changes, /bob/);
    assert.match(changes, /\+\d+/);
  }
  for (const sel of ['#export-json', '#export-mat', '#audit-link']) {
    const href = await alice.page.getAttribute(sel, 'href');
    const r = await fetch(new URL(href, BASE));
    assert.equal(r.status, 200, `${sel}: ${href}`);
  }
  // The result and the rating reach the players' pages.
  await alice.page.click('#rating-changes a.player-link[href$="' + bob.id + '"]');
  await alice.page.waitForSelector('#player-name');
  assert.match(await alice.page.textContent('#player-name'), /bob/);
  assert.match(await alice.page.textContent('#ratings'), /Backgammon/);
  assert.match(await alice.page.textContent('#recent'), /you won \(bob resigned\)/);
  await alice.page.click('#ratings a[href^="#/leaderboard"]');
  await alice.page.waitForSelector('#leaderboard p');
  assert.equal(await alice.page.inputValue('#leaderboard-variant'), 'backgammon');
  // One game is not enough to settle a rating: the board says so.
  assert.match(await alice.page.textContent('#leaderboard'), /Nobody has a settled rating|Player/);
  await alice.page.selectOption('#leaderboard-variant', 'ludo');
  await alice.page.waitForFunction(() => location.hash === '#/leaderboard?variant=ludo');
  void id;
});

test('messages: written on one page, read live on the other; too many in a minute is said plainly', async () => {
  const id = await createGame(alice, 'hoofden', {});
  await takeSeat(bob, await alice.page.inputValue('#invite-1'));
  await alice.page.waitForSelector('main[data-status="active"]');
  await bob.page.waitForSelector('#message-form');
  await alice.page.fill('#message-text', 'Good luck, Bob!');
  await alice.page.keyboard.press('Enter');
  await bob.page.waitForFunction(() => /Good luck, Bob!/.test((document.querySelector('#messages')?.textContent || '')));
  assert.match(await bob.page.textContent('#messages'), /alice: Good luck, Bob!/);
  // A spectator of a private chat is told so.
  const watcher = await launch();
  try {
    const spectator = watcher.pages()[0] || await watcher.newPage();
    await spectator.goto(`${BASE}/#/game/${id}`);
    await spectator.waitForFunction(() => /Only the players read/.test((document.querySelector('#chat')?.textContent || '')));
    assert.ok(await spectator.locator('#message-form').isHidden());
  } finally {
    await watcher.close();
  }
  // On the home page the player's stream tells of a new message.
  await bob.page.goto(`${BASE}/#/`);
  await bob.page.waitForSelector('body[data-player-stream="open"]');
  assert.equal((await apiAs(alice, 'POST', `/v1/games/${id}/messages`, { text: 'Your move?' })).status, 201);
  await bob.page.waitForFunction(() => /New message in your game of Hoofden/.test((document.querySelector('#toast')?.textContent || '')));
  await bob.page.goto(`${BASE}/#/game/${id}`);
  await bob.page.waitForSelector('#message-form');
  // The server takes ten a minute; the eleventh is refused in plain words.
  for (let i = 0; i < 12; i++) {
    const r = await apiAs(bob, 'POST', `/v1/games/${id}/messages`, { text: `spam ${i}` });
    if (r.status === 429) break;
  }
  await bob.page.fill('#message-text', 'one more');
  await bob.page.click('#send-message');
  await bob.page.waitForFunction(() => /Too many requests: wait/.test((document.querySelector('#message-error')?.textContent || '')));
});

test('the new-game form speaks plainly: labels, ranges, colour pickers, match and cube, rated and public chat', async () => {
  const { page } = alice;
  await page.goto(`${BASE}/#/new`);
  await page.selectOption('#variant', 'ali_baba');
  assert.equal(await page.textContent('label[for="opt-planks"]'), 'Planks on the bridge');
  assert.equal(await page.getAttribute('#opt-planks', 'min'), '1');
  assert.equal(await page.getAttribute('#opt-planks', 'max'), '20');
  for (const v of ['ali_baba', 'backgammon', 'hoofden', 'ludo', 'mens_erger_je_niet']) {
    await page.selectOption('#variant', v);
    const text = await page.textContent('#options');
    assert.doesNotMatch(text, /\.\.=|`|\{|\[|_/, `${v}: ${text}`);
    const raw = Object.keys((await (await fetch(`${BASE}/v1/variants`)).json()).find((x) => x.name === v).options_schema.properties || {});
    const labels = (await page.locator('#options label, #options legend').allTextContents()).map((l) => l.trim());
    assert.ok(labels.every((l) => !raw.includes(l)), `${v}: ${labels}`);
  }
  // Backgammon: a match with the cube, as number input and selects.
  await page.selectOption('#variant', 'backgammon');
  assert.equal(await page.getAttribute('#opt-match_length', 'max'), '25');
  assert.equal(await page.getAttribute('#opt-match_length', 'type'), 'number');
  assert.equal(await page.evaluate(() => document.querySelector('#opt-cube').tagName), 'SELECT');
  const bgId = await createGame(alice, 'backgammon', { match_length: 3, crawford: false }, ['me', 'open'], { rated: false, publicChat: true });
  let g = await (await fetch(`${BASE}/v1/games/${bgId}`)).json();
  assert.equal(g.options.match_length, 3);
  assert.equal(g.options.crawford, false);
  assert.equal(g.rated, false);
  // In the creator's list the match says it is one.
  await page.goto(`${BASE}/#/`);
  const bgRow = page.locator('#inbox li, #my-games li', { has: page.locator(`a[data-game="${bgId}"]`) });
  await bgRow.waitFor();
  assert.match(await bgRow.textContent(), /match to 3/);
  // Public chat: a spectator may read the messages.
  assert.equal((await fetch(`${BASE}/v1/games/${bgId}/messages`)).status, 200);
  // Mens-erger-je-niet on the six-colour board, colours ticked per seat.
  await page.goto(`${BASE}/#/new`);
  await page.selectOption('#variant', 'mens_erger_je_niet');
  await page.selectOption('#opt-board', '6');
  await page.uncheck('#opt-colours-usual');
  assert.equal(await page.locator('#opt-colours input[type=checkbox][id^="opt-colours-0-"]').count(), 6);
  const mejn = await createGame(alice, 'mens_erger_je_niet', { board: 6, colours: [[0, 1], [3, 4]] });
  g = await (await fetch(`${BASE}/v1/games/${mejn}`)).json();
  assert.deepEqual(g.options.colours, [[0, 1], [3, 4]]);
  // Ludo: one colour per seat from a list.
  const ludo = await createGame(alice, 'ludo', { colours: [1, 3] });
  g = await (await fetch(`${BASE}/v1/games/${ludo}`)).json();
  assert.deepEqual(g.options.colours, [1, 3]);
  // An out-of-range number is refused on the page, with the label.
  await page.goto(`${BASE}/#/new`);
  await page.selectOption('#variant', 'ali_baba');
  await page.fill('#opt-planks', '40');
  await page.click('#create-game');
  await page.waitForFunction(() => /Planks on the bridge/.test((document.querySelector('#new-game .error')?.textContent || '')));
  assert.deepEqual(alice.errors, []);
});

test('a game the labels table does not know still gets a working form from its schema', async () => {
  const page = await alice.context.newPage();
  try {
    await page.route('**/v1/variants', async (r) => {
      const list = await (await fetch(`${BASE}/v1/variants`)).json();
      list.push({
        name: 'sixth', title: 'A sixth game', min_seats: 2, max_seats: 3, default_options: { side_length: 5, mode: 'fast' },
        options_schema: { type: 'object', properties: {
          side_length: { type: 'integer', minimum: 3, maximum: 9, description: 'The side of the board, 3..=9.' },
          mode: { enum: ['fast', 'slow'], description: 'How fast.' },
          extra_rule: { type: 'boolean', description: 'An extra rule.' },
          layout: { type: ['array', 'null'], items: { type: 'integer' }, description: 'Where the pieces start.' },
        } },
        move_schema: {}, state_schema: {},
      });
      await r.fulfill({ json: list });
    });
    await page.goto(`${BASE}/#/new?variant=sixth`);
    await page.waitForSelector('#opt-side_length');
    assert.equal(await page.textContent('label[for="opt-side_length"]'), 'Side length');
    assert.equal(await page.getAttribute('#opt-side_length', 'max'), '9');
    assert.match(await page.textContent('#options'), /The side of the board, 3 to 9\./);
    assert.equal(await page.evaluate(() => document.querySelector('#opt-mode').tagName), 'SELECT');
    assert.equal(await page.getAttribute('#opt-extra_rule', 'type'), 'checkbox');
    assert.equal(await page.locator('#opt-layout').count(), 1);
  } finally {
    await page.close();
  }
});

test('the leaderboard lists settled players by name, best first, each a link to their page', async () => {
  // Rated games of Ali Baba, each seat making its first move, until both ratings are
  // settled (deviation below 150: a dozen games or so). Three games a day between the
  // same two count: alice and bob play each other and four more players, alice winning
  // more; everyone has played ten moves first (docs/api.md, "Which games count").
  const others = [];
  for (let i = 1; i <= 4; i++) others.push(await apiPlayer(`ledger ${i}`));
  await season(others[0], others[1]);
  await season(others[2], others[3]);
  await season(alice, bob);
  const game = async (a, b, loser) => {
    const c = await apiAs(a, 'POST', '/v1/games', { variant: 'ali_baba', seats: [a.id, b.id] });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    assert.equal((await apiAs(b, 'POST', `/v1/games/${c.body.id}/seats/1`, {})).status, 200);
    await playMoves([a, b], c.body.id, 1);
    assert.equal((await apiAs(loser, 'POST', `/v1/games/${c.body.id}/resign`, {})).status, 200);
  };
  for (let i = 0; i < 3; i++) await game(alice, bob, i === 2 ? alice : bob);
  for (const o of others) {
    for (let i = 0; i < 3; i++) {
      await game(alice, o, i === 2 ? alice : o);
      await game(o, bob, i === 2 ? o : bob);
    }
  }
  const board = await (await fetch(`${BASE}/v1/leaderboard?variant=ali_baba`)).json();
  const on = (p) => board.players.some((x) => x.player_id === p.id);
  assert.ok(on(alice) && on(bob), JSON.stringify(board));
  const { page } = bob;
  await page.goto(`${BASE}/#/leaderboard?variant=ali_baba`);
  await page.waitForSelector('#leaderboard table');
  const links = await page.locator('#leaderboard tbody a.player-link').evaluateAll((as) => as.map((x) => [x.dataset.player, x.textContent]));
  const ids = links.map(([pid]) => pid);
  assert.ok(ids.includes(alice.id) && ids.includes(bob.id), JSON.stringify(links));
  assert.ok(ids.indexOf(alice.id) < ids.indexOf(bob.id), 'alice, who won more, is above bob');
  assert.deepEqual(links[ids.indexOf(bob.id)][1], 'bob (you)');
  await page.click(`#leaderboard a[href="#/player/${alice.id}"]`);
  await page.waitForSelector('#ratings');
  assert.match(await page.textContent('#ratings'), /Ali Baba/);
});
