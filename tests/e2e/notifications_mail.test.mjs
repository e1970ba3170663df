// The e-mail section with mail that is really sent: a server of this file's own, started
// with WORP_SMTP_URL pointing at an SMTP server on loopback (tests/notifications/
// smtp_sink.py, in the Python of tests/notifications/python.sh). The address is given
// on the account page, confirmed through the link of the mail, and stopped when the
// receiving server refuses a notice for good; the page says each state.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, player, accountPage, axeViolations } from './lib.mjs';

const WORP = process.env.WORP_BIN
  || path.join(path.resolve(ROOT, process.env.CARGO_TARGET_DIR || 'target'), 'debug', 'worp');

/** The Python with aiosmtpd, or why there is none (the test is then skipped). */
function python() {
  try {
    return { python: execFileSync('bash', [path.join(ROOT, 'tests/notifications/python.sh')], { encoding: 'utf8', timeout: 300000 }).trim() };
  } catch (e) {
    return { why: `no Python with aiosmtpd (tests/notifications/python.sh): ${String(e.stderr || e.message).trim().split('\n').pop()}` };
  }
}
const py = existsSync(WORP) ? python() : { why: `no worp binary at ${WORP}` };

const freePort = () => new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});
const sleep = (ms) => new Promise((r) => { setTimeout(r, ms); });

let dir; // the mails, as files
let sink; // the SMTP server
let server; // worp, with mail
let base;
let ada;

before(async () => {
  if (py.why) return;
  dir = mkdtempSync(path.join(tmpdir(), 'worp-e2e-mail-'));
  sink = spawn(py.python, [path.join(ROOT, 'tests/notifications/smtp_sink.py'), path.join(dir, 'mail')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const smtpPort = await new Promise((resolve, reject) => {
    let out = '';
    sink.stdout.on('data', (d) => { out += d; const m = /READY (\d+)/.exec(out); if (m) resolve(Number(m[1])); });
    sink.on('exit', (code) => reject(new Error(`smtp_sink.py ended (${code})`)));
  });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(WORP, ['serve'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env, WORP_SQLITE_PATH: path.join(dir, 'worp.sqlite'), WORP_BIND: '127.0.0.1', PORT: String(port), RUST_LOG: 'warn',
      WORP_SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, WORP_NOTIFY_COALESCE_SECS: '0', WORP_NOTIFY_POLL_MS: '100',
      WORP_PLAYERS_PER_HOUR_PER_ADDRESS: '0', WORP_CONNECTIONS_PER_ADDRESS: '0', WORP_STREAMS_PER_ADDRESS: '0',
    },
  });
  let up = false;
  for (let i = 0; i < 100 && !up; i++) {
    try { up = (await fetch(`${base}/healthz`)).ok; } catch { /* not yet */ }
    if (!up) await sleep(100);
  }
  assert.ok(up, `worp with mail did not start (${WORP})`);
  ada = await player('ada', undefined, { base });
  ada.page.on('dialog', (d) => d.accept());
});

after(async () => {
  await ada?.close();
  server?.kill();
  sink?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The text of the `n`th mail received (1, 2, ...), its body decoded (quoted-printable or base64). */
async function mail(n) {
  const file = path.join(dir, 'mail', `${String(n).padStart(4, '0')}.eml`);
  for (let i = 0; i < 200 && !existsSync(file); i++) await sleep(100);
  const raw = readFileSync(file, 'utf8').replace(/\r\n/g, '\n');
  const qp = raw.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/g, (_, x) => String.fromCharCode(parseInt(x, 16)));
  const b64 = (raw.match(/^[A-Za-z0-9+/=]{20,}$/gm) || []).map((l) => Buffer.from(l, 'base64').toString('utf8')).join('');
  return `${qp}\n${b64}`;
}
const mailCount = () => (existsSync(path.join(dir, 'mail')) ? readdirSync(path.join(dir, 'mail')).filter((f) => f.endsWith('.eml')).length : 0);

/** The account page of this server with the e-mail section read. */
async function emailState(page) {
  await accountPage(page, base);
  await page.waitForSelector('#email-state[data-state]');
  return page.getAttribute('#email-state', 'data-state');
}

async function api(token, method, url, body) {
  const r = await fetch(`${base}${url}`, {
    method, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: await r.text() };
}

test('e-mail: given on the page, confirmed through the mail\'s link, sent again; stopped when refused for good, given again', { skip: py.why || false }, async () => {
  const { page } = ada;
  assert.equal(await emailState(page), 'none');
  await page.fill('#email-address', 'Ada@Example.org');
  await page.click('#save-email');
  await page.locator('#email-section [role=status]', { hasText: /We sent a link to Ada@example\.org/ }).waitFor();
  assert.equal(await page.getAttribute('#email-state', 'data-state'), 'unconfirmed');
  assert.match(await page.textContent('#email-unconfirmed'), /We sent a link to Ada@example\.org — open it to confirm/);
  assert.ok(await page.locator('#remove-email').isVisible());
  const first = await mail(1);
  assert.match(first, /^X-Envelope-To: Ada@example\.org/m);
  // Sent again: a second mail, with another link (the first no longer works).
  await page.click('#resend-email');
  await page.locator('#email-section [role=status]', { hasText: /We sent a link/ }).waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'resend-email', 'the focus stays on the button');
  const link = /\/v1\/email\/confirm\?token=[A-Za-z0-9_-]+/.exec(await mail(2));
  assert.ok(link, 'a confirmation link in the mail');
  assert.equal(await emailState(page), 'unconfirmed', 'kept across a reload');
  assert.deepEqual(await axeViolations(page), [], 'axe: an address not confirmed yet');

  // The link opens the server's page; its button confirms.
  await page.goto(`${base}${link[0]}`);
  await page.click('button[type=submit]');
  await page.waitForSelector('text=is confirmed');
  assert.equal(await emailState(page), 'confirmed');
  assert.match(await page.textContent('#email-confirmed'), /Confirmed.*Ada@example\.org gets the mails you choose/);

  // Invitations by mail at once; the receiving server refuses the next mail for good.
  await page.selectOption('#notify-invited-email', 'now');
  await page.click('#save-notifications');
  await page.locator('#notifications-form [role=status]', { hasText: /Saved/ }).waitFor();
  writeFileSync(path.join(dir, 'mail', 'refuse'), '550 5.1.1 No such mailbox here\n');
  const made = await (await fetch(`${base}/v1/players`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bert' }) })).json();
  const game = await api(made.token, 'POST', '/v1/games', { variant: 'hoofden', seats: [made.id, ada.id] });
  assert.equal(game.status, 201, game.body);
  let state = null;
  for (let i = 0; i < 100 && state !== 'disabled'; i++) {
    await sleep(200);
    const r = await api(ada.token, 'GET', '/v1/players/me/email');
    state = JSON.parse(r.body).disabled_at ? 'disabled' : null;
  }
  assert.equal(await emailState(page), 'disabled');
  const alert = page.locator('#email-disabled[role=alert]');
  assert.match(await alert.textContent(), /Mail to this address has stopped.*Ada@example\.org refused it for good/);
  assert.match(await page.textContent('#email-disabled-reason'), /No such mailbox here/);
  assert.deepEqual(await axeViolations(page), [], 'axe: a stopped address');
  const before = mailCount();
  await page.click('#give-email-again');
  await page.locator('#email-section [role=status]', { hasText: /We sent a link to Ada@example\.org/ }).waitFor();
  assert.equal(await page.getAttribute('#email-state', 'data-state'), 'unconfirmed');
  await mail(before + 1);

  // Removed: no address any more.
  await page.click('#remove-email');
  await page.locator('#email-section [role=status]', { hasText: /is removed/ }).waitFor();
  assert.equal(await page.getAttribute('#email-state', 'data-state'), 'none');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'email-section-h');
  assert.equal((await api(ada.token, 'GET', '/v1/players/me/email')).status, 404);
  assert.deepEqual(ada.errors, []);
});
