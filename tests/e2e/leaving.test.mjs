// Leaving: a player downloads everything the server holds about them (a JSON file, with
// their games and messages and no secret), then deletes their account on the account
// page: a wrong name is refused and changes nothing; their own name deletes it, signs the
// browser out, and their games show "Deleted player" in their place. Neither her password
// nor her passkey signs in again (her pages are at `LOCAL`, for the passkey).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { LOCAL, player, signIn, createGame, apiAs, playMoves, axeViolations, accountPage, virtualAuthenticator } from './lib.mjs';

let lea; // leaves
let quinn; // plays against her, and stays

before(async () => {
  lea = await player('lea', undefined, { base: LOCAL });
  quinn = await player('quinn');
  lea.page.on('dialog', (d) => d.accept());
});

after(async () => {
  await lea?.close();
  await quinn?.close();
});

test('a player downloads their data, is refused a deletion with a wrong name, then deletes their account: signed out, "Deleted player" in their games', async () => {
  const { page, context } = lea;
  const game = await createGame(lea, 'hoofden', {}, ['me', `invite:${quinn.id}`]);
  assert.equal((await apiAs(quinn, 'POST', `/v1/games/${game}/seats/1`)).status, 200);
  await playMoves([lea, quinn], game, 2);
  assert.equal((await apiAs(lea, 'POST', `/v1/games/${game}/messages`, { text: 'good luck, quinn' })).status, 201);
  // She has a passkey too.
  await virtualAuthenticator(context, page);
  await accountPage(page, LOCAL);
  await page.click('#add-passkey');
  await page.waitForSelector('#passkeys li[data-passkey]');

  // The download: a JSON file of her account, her games and messages, no secret.
  const download = page.waitForEvent('download');
  await page.click('#export-data');
  const file = await download;
  assert.equal(file.suggestedFilename(), 'worp-account.json');
  const text = readFileSync(await file.path(), 'utf8');
  const data = JSON.parse(text);
  assert.equal(data.id, lea.id);
  assert.equal(data.name, lea.name);
  assert.equal(data.has_password, true);
  assert.ok(data.games.some((g) => g.id === game), 'her game is in it');
  assert.ok(data.messages.some((m) => m.game_id === game && m.text === 'good luck, quinn'), 'her message is in it');
  assert.ok(!text.includes(lea.token), 'not her first token');
  const cookie = (await context.cookies()).find((c) => c.name === '__Host-worp_session');
  assert.ok(cookie && !text.includes(cookie.value), 'not her session');
  await page.locator('#leave-section [role=status]', { hasText: /downloaded, as worp-account\.json/ }).waitFor();

  // A wrong name (or her name in other letters): refused, nothing changed.
  for (const wrong of ['quinn', lea.name.toUpperCase()]) {
    await page.fill('#delete-confirm-name', wrong);
    const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/players/me' && r.request().method() === 'DELETE');
    await page.click('#delete-account');
    assert.equal((await answer).status(), 400);
    const refusal = page.locator('#delete-form [role=alert]');
    await refusal.filter({ hasText: /Nothing was deleted/ }).waitFor();
    assert.match(await refusal.textContent(), new RegExp(`type your name exactly as shown, ${lea.name}`));
    await page.waitForFunction(() => document.activeElement.id === 'delete-confirm-name');
  }
  assert.equal((await apiAs(lea, 'GET', '/v1/players/me')).status, 200);
  assert.match(await page.textContent('#who'), new RegExp(lea.name));

  // Her name: deleted, signed out, and the page says so.
  await page.fill('#delete-confirm-name', lea.name);
  await page.click('#delete-account');
  await page.waitForSelector('#account-deleted');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'account-deleted-h');
  assert.match(await page.textContent('#account-deleted'), /Your account is deleted.*You are signed out/);
  assert.deepEqual(await axeViolations(page), [], 'the page of a deleted account');
  assert.equal(await page.locator('#who-name').count(), 0);
  assert.ok(!(await context.cookies()).some((c) => c.name === '__Host-worp_session'), 'the cookie is gone');
  assert.equal(await page.evaluate(() => fetch('/v1/session').then((r) => r.status)), 401);
  assert.equal((await apiAs(lea, 'GET', '/v1/players/me')).status, 401, 'her first token no longer works');

  // Her game, seen by her old browser and by quinn: resigned as she left, quinn's to
  // win, with "Deleted player" in her seat.
  for (const p of [lea, quinn]) {
    await p.page.goto(`${p.base}/#/game/${game}`);
    await p.page.waitForSelector('main[data-status="finished"]');
    await p.page.waitForFunction(() => /Deleted player/.test(document.querySelector('#seat-list')?.textContent || ''));
    assert.doesNotMatch(await p.page.textContent('#seat-list'), new RegExp(`\\b${lea.name}\\b`));
    assert.match(await p.page.textContent('#game-title'), /Deleted player vs /);
  }

  // Her old password signs in no more, nor her passkey (still on her device).
  await page.goto(`${LOCAL}/#/`);
  await signIn(page, lea.name);
  await page.waitForFunction(() => /Wrong name or password/.test(document.querySelector('#sign-in-error')?.textContent || ''));
  await page.click('#sign-in-passkey');
  await page.locator('#sign-in-error', { hasText: /This passkey is not accepted/ }).waitFor();
  assert.equal(await page.locator('#who-name').count(), 0);
  assert.deepEqual(lea.errors, []);
});
