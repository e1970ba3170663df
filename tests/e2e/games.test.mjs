// Two players (two browsers) play a game of every variant to its end through the page,
// by clicking pieces and then targets; a screenshot of every board goes to
// docs/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, player, createGame, playToEnd, shotPath, takeSeat } from './lib.mjs';

let alice;
let bob;
const served = new Set((await (await fetch(`${BASE}/v1/variants`)).json()).map((v) => v.name));
const missing = (name) => !served.has(name) && `${name} is not on this server`;

before(async () => {
  alice = await player('gail');
  // Bob plays on a phone-sized screen, and his page polls (If-None-Match) instead of
  // listening to the event stream: the fallback for servers without streams.
  bob = await player('gus', { width: 390, height: 844 }, { noStream: true });
});

after(async () => {
  await alice?.close();
  await bob?.close();
});

async function invite(gameId) {
  const link = await alice.page.inputValue('#invite-1');
  assert.match(link, new RegExp(`#/join/${gameId}/1$`));
  await takeSeat(bob, link);
  await bob.page.waitForURL(new RegExp(`#/game/${gameId}`));
  await bob.page.waitForSelector('main[data-status="active"]');
  await alice.page.waitForSelector('main[data-status="active"]', { timeout: 10000 });
}

const HIDE = '.toast { display: none !important; }';

async function game(variant, options, shot, { shotAt = 12, keyboard = false, phone = null } = {}) {
  const id = await createGame(alice, variant, options);
  await invite(id);
  let shotTaken = false;
  const text = await playToEnd([alice, bob], {
    keyboard,
    onMove: async (n) => {
      if (!shotTaken && n >= shotAt) {
        shotTaken = true;
        await alice.page.locator('#board').screenshot({ path: shotPath(shot), style: HIDE });
        if (phone) await bob.page.screenshot({ path: shotPath(phone), style: HIDE });
      }
    },
  });
  if (!shotTaken) await alice.page.locator('#board').screenshot({ path: shotPath(shot), style: HIDE });
  assert.match(text, /Game over/);
  // Both pages see the end; the API agrees.
  await bob.page.waitForSelector('main[data-status="finished"]', { timeout: 10000 });
  const g = await (await fetch(`${BASE}/v1/games/${id}`)).json();
  assert.equal(g.status, 'finished');
  assert.notEqual(g.result.ending, 'opponents_retired');
  assert.deepEqual(alice.errors, []);
  assert.deepEqual(bob.errors, []);
  return { id, g };
}

test('Ali Baba on three planks', async () => {
  await game('ali_baba', { planks: 3 }, 'ali_baba', { shotAt: 10 });
});

test('Hoofden', async () => {
  await game('hoofden', {}, 'hoofden', { shotAt: 20 });
});

test('Mens-erger-je-niet, 4-colour board', async () => {
  await game('mens_erger_je_niet', { board: 4 }, 'mens_erger_je_niet', { shotAt: 40 });
});

test('Mens-erger-je-niet, 6-colour board', async () => {
  await game('mens_erger_je_niet', { board: 6 }, 'mens_erger_je_niet_6', { shotAt: 40 });
});

test('Ludo with one pawn each', { skip: missing('ludo') }, async () => {
  await game('ludo', { pawns: 1 }, 'ludo', { shotAt: 6 });
});

test('Ludo with the plain die, one pawn each', { skip: missing('ludo') }, async () => {
  await game('ludo', { pawns: 1, die: 'plain' }, 'ludo_plain', { shotAt: 10 });
});

test('Backgammon', { skip: missing('backgammon') }, async () => {
  await game('backgammon', {}, 'backgammon', { shotAt: 16, phone: 'phone' });
});
