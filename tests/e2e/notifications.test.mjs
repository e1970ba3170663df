// Notifications: the account page's e-mail address (refusals in the server's words; this
// server sends no mail) and preferences (kept across a reload, the time zone guessed from
// the browser, a bad one refused), muting a game from its page, and axe on both.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, player, accountPage, apiAs, axeViolations } from './lib.mjs';

let nina; // the player whose settings these are; her browser says it is in Amsterdam
let olaf; // another player, in another browser

before(async () => {
  nina = await player('nina');
  olaf = await player('olaf');
  for (const p of [nina, olaf]) p.page.on('dialog', (d) => d.accept());
  const cdp = await nina.context.newCDPSession(nina.page);
  await cdp.send('Emulation.setTimezoneOverride', { timezoneId: 'Europe/Amsterdam' });
});

after(async () => {
  await nina?.close();
  await olaf?.close();
});

/** The account page with its notification sections read from the server. */
async function notificationsPage(page) {
  await accountPage(page);
  await page.waitForSelector('#save-notifications:not([disabled])');
  await page.waitForSelector('#email-state[data-state]');
}

async function clean(page, what) {
  const v = await axeViolations(page);
  assert.deepEqual(v, [], `${what}: ${v.join('\n')}`);
}

const alertOf = (page, form) => page.locator(`${form} [role=alert]`);

test('notification preferences: chosen on the account page, saved, and kept after a reload', async () => {
  const { page } = nina;
  await notificationsPage(page);
  // The server's default zone (UTC) gives way to the browser's, said so, until saved.
  assert.equal(await page.inputValue('#time-zone'), 'Europe/Amsterdam');
  assert.match(await page.textContent('#time-zone-guess'), /Filled in from this browser/);
  // The defaults, as the server gives them.
  assert.equal(await page.inputValue('#notify-your_turn-email'), 'digest');
  assert.equal(await page.inputValue('#notify-clock_reminder-email'), 'now');
  assert.equal(await page.isChecked('#notify-game_finished-push'), false);
  assert.equal(await page.isChecked('#quiet-hours-on'), false);
  assert.ok(await page.locator('#quiet-hours-times').isHidden());
  assert.equal(await page.inputValue('#digest-hour'), '8');
  await clean(page, 'account page with the notification sections');

  await page.selectOption('#notify-your_turn-email', 'now');
  await page.selectOption('#notify-message-email', 'off');
  await page.uncheck('#notify-message-push');
  await page.check('#notify-game_finished-push');
  await page.selectOption('#notify-invited-email', { label: 'Off' });
  await page.check('#quiet-hours-on');
  assert.equal(await page.inputValue('#quiet-start'), '22:00', 'a start filled in');
  await page.fill('#quiet-start', '23:15');
  await page.fill('#quiet-end', '06:30');
  await page.selectOption('#digest-hour', '19');
  await page.click('#save-notifications');
  await page.locator('#notifications-form [role=status]', { hasText: /Saved/ }).waitFor();
  assert.equal(await page.textContent('#time-zone-guess'), '');

  const kept = (await apiAs(nina, 'GET', '/v1/players/me/notifications')).body;
  assert.deepEqual(kept, {
    your_turn: { email: 'now', push: true },
    invited: { email: 'off', push: true },
    game_finished: { email: 'digest', push: true },
    message: { email: 'off', push: false },
    clock_reminder: { email: 'now', push: true },
    quiet_hours: { start: '23:15', end: '06:30' },
    time_zone: 'Europe/Amsterdam',
    digest_hour: 19,
  });

  await notificationsPage(page);
  assert.equal(await page.inputValue('#notify-your_turn-email'), 'now');
  assert.equal(await page.inputValue('#notify-invited-email'), 'off');
  assert.equal(await page.inputValue('#notify-message-email'), 'off');
  assert.equal(await page.isChecked('#notify-message-push'), false);
  assert.equal(await page.isChecked('#notify-game_finished-push'), true);
  assert.equal(await page.isChecked('#quiet-hours-on'), true);
  assert.equal(await page.inputValue('#quiet-start'), '23:15');
  assert.equal(await page.inputValue('#quiet-end'), '06:30');
  assert.equal(await page.inputValue('#time-zone'), 'Europe/Amsterdam');
  assert.equal(await page.textContent('#time-zone-guess'), '');
  assert.equal(await page.inputValue('#digest-hour'), '19');

  // Quiet hours off again; a zone that does not exist is refused in the server's words.
  await page.uncheck('#quiet-hours-on');
  assert.ok(await page.locator('#quiet-hours-times').isHidden());
  await page.fill('#time-zone', 'Mars/Olympus_Mons');
  await page.click('#save-notifications');
  await alertOf(page, '#notifications-form').filter({ hasText: /Not saved: "Mars\/Olympus_Mons" is not an IANA time zone/ }).waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'time-zone');
  await clean(page, 'account page with a refused time zone');
  await page.fill('#time-zone', 'America/New_York');
  await page.click('#save-notifications');
  await page.locator('#notifications-form [role=status]', { hasText: /Saved/ }).waitFor();
  const now = (await apiAs(nina, 'GET', '/v1/players/me/notifications')).body;
  assert.equal(now.quiet_hours, null);
  assert.equal(now.time_zone, 'America/New_York');
  assert.deepEqual(nina.errors, []);
});

test('the e-mail address: a bad one refused in the server\'s words, a good one refused because this server sends no mail', async () => {
  const { page } = nina;
  await notificationsPage(page);
  assert.equal(await page.getAttribute('#email-state', 'data-state'), 'none');
  assert.match(await page.textContent('#email-none'), /no e-mail address/);
  assert.ok(await page.locator('#remove-email').isHidden());
  await page.click('#save-email');
  await alertOf(page, '#email-section').filter({ hasText: /Type your e-mail address/ }).waitFor();
  await page.fill('#email-address', 'nina@localhost');
  await page.click('#save-email');
  await alertOf(page, '#email-section').filter({ hasText: /Not sent: "nina@localhost" is not an e-mail address on the Internet/ }).waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'email-address');
  await page.fill('#email-address', 'nina@example.org');
  await page.click('#save-email');
  await alertOf(page, '#email-section').filter({ hasText: /Not sent: This server sends no mail/ }).waitFor();
  assert.equal(await page.getAttribute('#email-state', 'data-state'), 'none');
  assert.equal((await apiAs(nina, 'GET', '/v1/players/me/email')).status, 404);
  await clean(page, 'account page with a refused address');
  assert.deepEqual(nina.errors, []);
});

test('muting a game from its page: a toggle for its players and the invited, kept on the server, not shown to others', async () => {
  const r = await apiAs(nina, 'POST', '/v1/games', { variant: 'hoofden', seats: [nina.id, olaf.id] });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const id = r.body.id;
  const { page } = nina;
  await page.goto(`${BASE}/#/game/${id}`);
  const toggle = page.locator('#mute-game:not([disabled])');
  await toggle.waitFor();
  assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
  assert.equal(await toggle.textContent(), 'Mute notifications for this game');
  await clean(page, 'game page with the mute toggle');
  await toggle.click();
  await page.waitForSelector('#mute-game[aria-pressed="true"]:not([disabled])');
  assert.match(await page.textContent('#mute-state'), /Muted: no e-mail and no push/);
  assert.deepEqual((await apiAs(nina, 'GET', '/v1/players/me/muted-games')).body, [id]);
  // Kept: the page opened again shows it muted.
  await page.reload();
  await page.waitForSelector('#mute-game[aria-pressed="true"]:not([disabled])');
  // From the keyboard: unmuted.
  await page.focus('#mute-game');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#mute-game[aria-pressed="false"]:not([disabled])');
  assert.deepEqual((await apiAs(nina, 'GET', '/v1/players/me/muted-games')).body, []);

  // Olaf is invited: he may mute it before he answers.
  await olaf.page.goto(`${BASE}/#/game/${id}`);
  await olaf.page.locator('#mute-game:not([disabled])').click();
  await olaf.page.waitForSelector('#mute-game[aria-pressed="true"]');
  assert.deepEqual((await apiAs(olaf, 'GET', '/v1/players/me/muted-games')).body, [id]);

  // A game Olaf only watches has no toggle for him.
  const solo = await apiAs(nina, 'POST', '/v1/games', { variant: 'hoofden', seats: [nina.id, { bot: 'random' }] });
  assert.equal(solo.status, 201, JSON.stringify(solo.body));
  await olaf.page.goto(`${BASE}/#/game/${solo.body.id}`);
  await olaf.page.waitForSelector('#board > *');
  assert.ok(await olaf.page.locator('#mute-box').isHidden());
  assert.deepEqual(nina.errors, []);
  assert.deepEqual(olaf.errors, []);
});
