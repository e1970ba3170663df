// A vacation on the account page: started for a few days (the days left go down), shown
// beside the player on a game's page and to the opponent, then ended early.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, player, apiPlayer, apiAs, accountPage, axeViolations } from './lib.mjs';

let vic;

before(async () => {
  vic = await player('vic');
});

after(async () => {
  await vic?.close();
});

test('a vacation started on the account page pauses a game and says until when; ended, it is gone', async () => {
  const opp = await apiPlayer('opp');
  const made = await apiAs(opp, 'POST', '/v1/games', { variant: 'backgammon', seats: [opp.id, vic.id], days_per_move: 3 });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const id = made.body.id;
  assert.equal((await apiAs(vic, 'POST', `/v1/games/${id}/seats/1`, {})).status, 200);
  const { page } = vic;
  await accountPage(page);
  await page.waitForSelector('#vacation-form');
  assert.match(await page.textContent('#vacation-left'), /30 of 30 days left/);
  await page.fill('#vacation-days', '5');
  await page.click('#vacation-form button[type=submit]');
  await page.locator('#vacation-section [role=status]', { hasText: /on vacation until/ }).waitFor();
  assert.match(await page.textContent('#vacation-left'), /25 of 30 days left/);
  assert.deepEqual(await axeViolations(page), []);

  await page.goto(`${BASE}/#/game/${id}`);
  await page.locator('#seat-list li[data-seat="1"] .badge.vacation', { hasText: /On vacation until/ }).waitFor();
  assert.deepEqual(await axeViolations(page), []);
  assert.ok((await apiAs(opp, 'GET', `/v1/games/${id}`)).body.seats[1].vacation_until);

  await accountPage(page);
  await page.click('#end-vacation');
  await page.locator('#vacation-section [role=status]', { hasText: /has ended/ }).waitFor();
  assert.equal((await apiAs(opp, 'GET', `/v1/games/${id}`)).body.seats[1].vacation_until, null);
  assert.deepEqual(vic.errors, []);
});
