// A tournament made on the tournaments page, joined there and through the API, started,
// its one game resigned: the page shows the round, the result and the standings.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, player, apiPlayer, apiAs, axeViolations } from './lib.mjs';

let tess;

before(async () => {
  tess = await player('tess');
});

after(async () => {
  await tess?.close();
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('a round robin created, joined and started on its page ends with its standings', async () => {
  const opp = await apiPlayer('toby');
  const { page } = tess;
  await page.goto(`${BASE}/#/tournaments`);
  await page.waitForSelector('#tournament-form');
  assert.deepEqual(await axeViolations(page), []);
  await page.fill('#t-name', 'Sunday round robin');
  await page.selectOption('#t-variant', 'backgammon');
  await page.selectOption('#t-format', 'round_robin');
  await page.fill('#t-count', '1');
  await page.fill('#t-max', '2');
  await page.fill('#t-late', '2');
  await page.click('#create-tournament');
  await page.waitForSelector('#tournament-h');
  const id = page.url().split('#/tournament/')[1];
  assert.ok(id, page.url());
  // A round robin takes no late registration, whatever the form's field says.
  assert.equal((await apiAs(opp, 'GET', `/v1/tournaments/${id}`)).body.late_registration_rounds, 0);
  await page.click('#register');
  await page.locator('#tournament-players li', { hasText: /you/ }).waitFor();
  assert.equal((await apiAs(opp, 'POST', `/v1/tournaments/${id}/players`)).status, 200);
  await page.reload();
  assert.match(await page.textContent('#tournament-h + p'), /2 of 2 players/);
  await page.click('#start');
  await page.locator('[data-round="1"] .game-link').waitFor();
  assert.deepEqual(await axeViolations(page), []);
  await page.click('[data-round="1"] .game-link');
  await page.locator('#game-tournament a', { hasText: 'Round 1, table 1' }).waitFor();
  await page.goto(`${BASE}/#/tournament/${id}`);
  await page.waitForSelector('#tournament-h');

  const t = (await apiAs(opp, 'GET', `/v1/tournaments/${id}`)).body;
  const game = t.rounds[0].tables[0].game_id;
  assert.equal((await apiAs(opp, 'POST', `/v1/games/${game}/resign`, {})).status, 200);
  const until = Date.now() + 30000;
  while ((await apiAs(opp, 'GET', `/v1/tournaments/${id}`)).body.status !== 'finished') {
    assert.ok(Date.now() < until, 'the tournament finishes');
    await sleep(50);
  }
  await page.reload();
  await page.locator('#tournament-status', { hasText: 'finished' }).waitFor();
  assert.match(await page.textContent('#standings tbody tr:first-child'), /you/);
  assert.match(await page.textContent('[data-round="1"]'), /you won/);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(tess.errors, []);
});
