// The account page (#/account): the password, passkeys (add, remove), notifications on
// this device (turn on; the devices that get them, remove), recovery codes,
// the sessions signed in (sign one out, or all), personal access tokens (make one with
// chosen scopes, revoke), the apps authorised through OAuth (revoke), the first token
// (revoke it for good), vacation (`vacation.js`) and leaving (download one's data,
// delete the account).
import { h, api, toast, account, setAccount, setSession, signOut, fmtTime, agoText } from './core.js';
import { signIn } from './signin.js';
import { addPasskey, passkeysAvailable, noPasskeysText, PasskeyError } from './passkeys.js';
import { vacationSection } from './vacation.js';
import { notificationSections } from './notifications.js';
import { turnOnPush, pushAvailable, noPushText, PushError } from './devices.js';

/** What each scope allows, as the server says it (`Scope::description`). */
export const SCOPES = [
  ['game:read', 'Read your private games, inbox and private messages'],
  ['game:play', 'Take seats, move, resign and answer the cube in your games'],
  ['chat:write', 'Write messages in your games\' chats'],
  ['challenge:write', 'Create games and invite players'],
  ['webhook:write', 'Manage your webhooks'],
  ['account:read', 'Read your account, sessions, tokens and authorised apps'],
  ['account:write', 'Change your account: settings, credentials, tokens, sessions, apps'],
];

/** A card with a heading (focusable, to move the focus to after an action). */
function section(id, title, ...children) {
  return h('section', { class: 'card', id, 'aria-labelledby': `${id}-h` },
    h('h2', { id: `${id}-h`, tabindex: -1 }, title), ...children);
}

/** The two result lines of a section: what was done (polite), what failed (alert). */
function results() {
  const ok = h('p', { class: 'ok', role: 'status' });
  const err = h('p', { class: 'error', role: 'alert' });
  return {
    nodes: [ok, err],
    say(text) { err.textContent = ''; ok.textContent = text; },
    fail(text) { ok.textContent = ''; err.textContent = text; },
    clear() { ok.textContent = ''; err.textContent = ''; },
  };
}

async function copy(input) {
  try {
    await navigator.clipboard.writeText(input.value ?? input.textContent);
  } catch {
    if (input.select) input.select();
    document.execCommand('copy');
  }
  toast('Copied.');
}

const scopeList = (scopes) => h('span', { class: 'scopes' }, ...scopes.map((s) => h('code', {}, s)));

export async function accountView(main, { accountForm, route, toHome }) {
  const me = account();
  if (!me) { main.append(accountForm({ title: 'Your account' })); return; }
  let info;
  try {
    info = await api('GET', '/v1/players/me');
  } catch (e) {
    if (e.status === 401 && me.session) return; // signed out meanwhile: the page is drawn again
    throw e;
  }
  main.append(h('h1', { id: 'account-h' }, `Your account: ${info.name}`),
    h('p', { id: 'signed-in-with' }, me.session
      ? 'This browser is signed in with a session: it stays signed in until you sign out, here or from another device, or leave it unused for 30 days.'
      : 'This browser keeps your token. Set a password to sign in on any other device with your name.'));
  const password = h('div');
  const recovery = h('div');
  main.append(section('password-section', 'Password', password),
    passkeysSection(info),
    devicesSection(),
    section('recovery-section', 'Recovery codes', recovery),
    ...notificationSections(),
    sessionsSection(me, toHome),
    tokensSection(),
    appsSection(),
    vacationSection(),
    firstTokenSection(me, toHome),
    leaveSection(info, me, main));
  passwordPart(password, info, me, route);
  recoveryPart(recovery, info);
}

// ---------------------------------------------------------------- password

function passwordPart(box, info, me, route) {
  const had = info.has_password;
  const current = had ? h('input', { id: 'current-password', type: 'password', required: true, autocomplete: 'current-password' }) : null;
  const fresh = h('input', { id: 'new-password', type: 'password', required: true, minlength: 8, autocomplete: 'new-password',
    'aria-describedby': 'new-password-help' });
  const r = results();
  const submit = h('button', { type: 'submit', id: 'set-password' }, had ? 'Change password' : 'Set password');
  const form = h('form', { id: 'password-form', onsubmit: async (ev) => {
    ev.preventDefault();
    r.clear();
    submit.disabled = true;
    try {
      await api('POST', '/v1/players/me/password', { body: { password: fresh.value, ...(had ? { current_password: current.value } : {}) } });
      if (me.token) {
        // Signed in with a session from now on: the token need not stay in this browser.
        try {
          await signIn(me.id, { password: fresh.value });
          toast('Your password is set. This browser is now signed in with a session, and no longer keeps your token.', 8000);
          route();
          return;
        } catch { /* the token still works here */ }
      }
      const now = { ...info, has_password: true };
      passwordPart(box, now, me, route);
      box.querySelector('[role=status]').textContent = had ? 'Your password is changed.' : 'Your password is set: sign in with it on any device.';
    } catch (e) {
      if (e.status === 403) { r.fail('Your current password is wrong.'); current?.focus(); } else if (e.status === 400 && /^password/.test(e.detail || '')) {
        r.fail(`Choose another password: ${e.detail}.`);
        fresh.focus();
      } else r.fail(e.message);
    } finally { submit.disabled = false; }
  } },
  // For password managers: whose password this is.
  h('input', { type: 'text', autocomplete: 'username', value: info.name, hidden: true, readonly: true }),
  h('p', { class: 'help' }, had ? 'You sign in with your name and password.' : 'You have no password yet: with one you sign in on any device with your name.'),
  had ? [h('label', { for: 'current-password' }, 'Current password'), current] : null,
  h('label', { for: 'new-password' }, had ? 'New password' : 'Password'),
  h('p', { class: 'help', id: 'new-password-help' }, 'At least 8 characters and hard to guess: a few uncommon words make a good one.'),
  fresh, h('p', {}, submit), ...r.nodes);
  box.replaceChildren(form);
}

// ---------------------------------------------------------------- recovery codes

function recoveryPart(box, info) {
  const left = info.recovery_codes_left;
  const r = results();
  const make = h('button', { type: 'button', id: 'new-codes', class: 'secondary', onclick: async () => {
    if (left > 0 && !confirm(`Make new recovery codes? The ${left} you have left stop working.`)) return;
    r.clear();
    make.disabled = true;
    try {
      const { codes } = await api('POST', '/v1/players/me/recovery-codes');
      recoveryPart(box, { ...info, recovery_codes_left: codes.length });
      const list = h('ol', { id: 'recovery-codes', class: 'codes' }, ...codes.map((c) => h('li', {}, h('code', {}, c))));
      const heading = h('h3', { id: 'recovery-codes-h', tabindex: -1 }, 'Save these recovery codes now');
      box.querySelector('#recovery-codes-box').replaceChildren(h('div', { class: 'new-secret', role: 'group', 'aria-labelledby': 'recovery-codes-h' },
        heading,
        h('p', {}, 'They are shown only this once. Keep them somewhere safe (a password manager, or on paper): each signs you in once, in place of your password, if you lose it.'),
        list,
        h('button', { type: 'button', class: 'secondary', id: 'copy-codes', onclick: () => copy({ value: codes.join('\n') }) }, 'Copy the codes')));
      heading.focus();
    } catch (e) { r.fail(e.message); make.disabled = false; }
  } }, left > 0 ? 'Make new recovery codes' : 'Make recovery codes');
  box.replaceChildren(
    h('p', { id: 'codes-left' }, left > 0 ? `You have ${left} unused recovery code${left === 1 ? '' : 's'}.` : 'You have no recovery codes.'),
    h('p', { class: 'help' }, 'A recovery code signs you in once in place of your password, if you lose it.'),
    h('p', {}, make), ...r.nodes, h('div', { id: 'recovery-codes-box' }));
}

// ---------------------------------------------------------------- the lists

/**
 * A section listing what `path` answers (sessions, tokens, apps), each item with a button
 * that deletes it at `path/<id>`. `row(x)`: the item's attributes and words; `button(x, all)`:
 * the button's text, class, accessible name, confirmation, the words once done, and
 * `instead` (an action that replaces the deletion when it answers true).
 */
function listSection({ id, title, help, path, empty, row, button }) {
  const list = h('ul', { class: 'list', id: id.replace(/-section$/, '') });
  const r = results();
  const sec = section(id, title, h('p', { class: 'help' }, help), list, ...r.nodes);
  const heading = sec.querySelector('h2');
  const item = (x, _, items) => {
    const b = button(x, items);
    const { attrs, words } = row(x);
    return h('li', attrs, ...words,
      h('button', { type: 'button', class: `${b.cls} small`, 'data-action': b.action, 'aria-label': b.aria, onclick: async () => {
        if (b.confirm && !confirm(b.confirm)) return;
        try {
          if (b.instead && await b.instead()) return;
          await api('DELETE', `${path}/${x.id}`);
          r.say(b.done);
          await load();
          heading.focus();
        } catch (e) { r.fail(e.message); }
      } }, b.text));
  };
  async function load() {
    try {
      const items = await api('GET', path);
      list.replaceChildren(...(items.length ? items.map(item) : [h('li', { class: 'muted' }, empty)]));
    } catch (e) { r.fail(e.message); }
  }
  load();
  return { sec, load, r };
}

const lastUsed = (x) => h('span', { class: 'muted' }, `last used ${x.last_used_at ? agoText(x.last_used_at) : 'never'}`);

// ---------------------------------------------------------------- sessions

function sessionsSection(me, toHome) {
  const { sec, load, r } = listSection({
    id: 'sessions-section',
    title: 'Where you are signed in',
    help: 'Each browser where you signed in with your password, a passkey or a recovery code.',
    path: '/v1/players/me/sessions',
    empty: 'None: you have not signed in with a password or a passkey anywhere.',
    row: (s) => ({
      attrs: { 'data-session': s.id, 'data-current': s.current ? 'true' : null },
      words: [h('strong', {}, s.name), s.current ? h('span', { class: 'badge turn' }, 'this browser') : null,
        h('span', {}, `signed in ${fmtTime(s.created_at)}`), lastUsed(s)],
    }),
    button: (s) => ({
      text: 'Sign out', cls: 'secondary', action: 'sign-out',
      aria: `Sign out ${s.name}${s.current ? ' (this browser)' : `, signed in ${fmtTime(s.created_at)}`}`,
      done: `Signed out ${s.name} (signed in ${fmtTime(s.created_at)}).`,
      // This browser's session: signed out as with the button at the top.
      instead: s.current ? async () => { await signOut(); toast('Signed out.'); toHome(); return true; } : null,
    }),
  });
  sec.append(h('p', {}, h('button', { type: 'button', class: 'danger', id: 'sign-out-everywhere', onclick: async () => {
    if (!confirm('Sign out everywhere, in this browser too?')) return;
    try {
      const { signed_out: n } = await api('DELETE', '/v1/players/me/sessions');
      const words = `Signed out everywhere (${n} session${n === 1 ? '' : 's'}).`;
      if (me.session) { setSession(null); toast(words); toHome(); return; }
      r.say(words);
      load();
    } catch (e) { r.fail(e.message); }
  } }, 'Sign out everywhere')));
  return sec;
}

// ---------------------------------------------------------------- personal access tokens

function tokensSection() {
  const { sec, load, r } = listSection({
    id: 'tokens-section',
    title: 'Personal access tokens',
    help: 'A token lets a program of yours (a bot, a script) use the API as you, with only the scopes you choose.',
    path: '/v1/players/me/tokens',
    empty: 'No tokens.',
    row: (t) => ({
      attrs: { 'data-token': t.id },
      words: [h('strong', {}, t.name), scopeList(t.scopes), h('span', {}, `made ${fmtTime(t.created_at)}`), lastUsed(t),
        h('span', { class: 'muted' }, t.expires_at ? `expires ${fmtTime(t.expires_at)}` : 'never expires')],
    }),
    button: (t) => ({
      text: 'Revoke', cls: 'danger', action: 'revoke', aria: `Revoke ${t.name}`,
      confirm: `Revoke the token “${t.name}”? What uses it stops working at once.`,
      done: `The token “${t.name}” is revoked.`,
    }),
  });
  const made = h('div', { id: 'new-token-box' });
  const name = h('input', { id: 'token-name', required: true, maxlength: 100, autocomplete: 'off' });
  const days = h('input', { id: 'token-days', type: 'number', min: 1, max: 366, step: 1, inputmode: 'numeric', 'aria-describedby': 'token-days-help' });
  const boxes = SCOPES.map(([s, what]) => {
    const id = `scope-${s.replace(':', '-')}`;
    const box = h('input', { type: 'checkbox', id, value: s, name: 'scopes', 'aria-describedby': `${id}-what` });
    return { box, label: h('div', { class: 'scope' }, h('label', { class: 'inline', for: id }, box, h('code', {}, s)),
      h('span', { class: 'help', id: `${id}-what` }, what)) };
  });
  const submit = h('button', { type: 'submit', id: 'create-token' }, 'Make the token');
  const form = h('form', { id: 'token-form', 'aria-labelledby': 'token-form-h', onsubmit: async (ev) => {
    ev.preventDefault();
    r.clear();
    const scopes = boxes.filter((b) => b.box.checked).map((b) => b.box.value);
    if (!scopes.length) { r.fail('Choose at least one thing the token may do.'); boxes[0].box.focus(); return; }
    const body = { name: name.value.trim(), scopes };
    if (days.value) body.expires_in_days = Number(days.value);
    submit.disabled = true;
    try {
      const t = await api('POST', '/v1/players/me/tokens', { body });
      const value = h('input', { id: 'new-token-value', readonly: true, value: t.token, class: 'mono', onfocus: (e) => e.target.select() });
      const heading = h('h3', { id: 'new-token-h', tabindex: -1 }, `Your new token “${t.name}”`);
      made.replaceChildren(h('div', { class: 'new-secret', role: 'group', 'aria-labelledby': 'new-token-h' },
        heading,
        h('p', {}, 'Copy it now: it is shown only this once. A program sends it as ', h('code', {}, 'Authorization: Bearer <token>'), '.'),
        h('label', { for: 'new-token-value' }, 'Token'),
        h('div', { class: 'row' }, value, h('button', { type: 'button', class: 'secondary', id: 'copy-token', onclick: () => copy(value) }, 'Copy'))));
      form.reset();
      // The focus goes to the new token at once (not after the list is read again).
      heading.focus();
      await load();
    } catch (e) { r.fail(e.message); } finally { submit.disabled = false; }
  } },
  h('h3', { id: 'token-form-h' }, 'Make a token'),
  h('label', { for: 'token-name' }, 'What it is for'), name,
  h('fieldset', { class: 'scope-set' }, h('legend', {}, 'What it may do'), ...boxes.map((b) => b.label)),
  h('label', { for: 'token-days' }, 'Expires after (days)'),
  h('p', { class: 'help', id: 'token-days-help' }, 'From 1 to 366. Leave it empty for a token that works until you revoke it.'),
  days, h('p', {}, submit));
  sec.append(made, form);
  return sec;
}

// ---------------------------------------------------------------- authorised apps

function appsSection() {
  return listSection({
    id: 'apps-section',
    title: 'Apps you authorised',
    help: 'Other sites and programs you let use your account (through "Authorise" on their sign-in page).',
    path: '/v1/players/me/apps',
    empty: 'No apps.',
    row: (a) => ({
      attrs: { 'data-app': a.id },
      words: [h('strong', { class: 'mono' }, a.client_id), h('span', {}, 'returns to ', h('span', { class: 'mono' }, a.redirect_origin)),
        scopeList(a.scopes), h('span', { class: 'muted' }, `authorised ${fmtTime(a.created_at)}`)],
    }),
    button: (a) => ({
      text: 'Revoke', cls: 'danger', action: 'revoke', aria: `Revoke ${a.client_id}`,
      confirm: `Revoke ${a.client_id}? Its access stops at once.`,
      done: `${a.client_id} no longer has access.`,
    }),
  }).sec;
}

// ---------------------------------------------------------------- passkeys

function passkeysSection(info) {
  const { sec, load, r } = listSection({
    id: 'passkeys-section',
    title: 'Passkeys',
    help: 'A passkey signs you in with this device\'s screen lock (fingerprint, face or PIN) or a security key: no name or password to type, and nothing a fake site can steal.',
    path: '/v1/players/me/passkeys',
    empty: 'No passkeys yet.',
    row: (p) => ({
      attrs: { 'data-passkey': p.id },
      words: [h('strong', {}, p.name), h('span', {}, `added ${fmtTime(p.created_at)}`), lastUsed(p)],
    }),
    button: (p, all) => ({
      text: 'Remove', cls: 'danger', action: 'remove', aria: `Remove the passkey ${p.name}`,
      confirm: `Remove the passkey “${p.name}”? It signs you in no more.${all.length === 1 && !info.has_password
        ? ' It is your only passkey and you have no password: set a password first, or you may be unable to sign in again.' : ''}`,
      done: `The passkey “${p.name}” is removed: it signs you in no more. (Your device may still offer it: delete it there too.)`,
    }),
  });
  if (!passkeysAvailable()) {
    sec.append(h('p', { id: 'passkeys-unavailable' }, noPasskeysText('add one from a browser that can')));
    return sec;
  }
  const fr = results();
  const name = h('input', { id: 'passkey-name', maxlength: 100, autocomplete: 'off', 'aria-describedby': 'passkey-name-help' });
  const add = h('button', { type: 'submit', id: 'add-passkey' }, 'Add a passkey');
  const form = h('form', { id: 'passkey-form', 'aria-labelledby': 'passkey-form-h', onsubmit: async (ev) => {
    ev.preventDefault();
    r.clear();
    fr.clear();
    add.disabled = true;
    try {
      const p = await addPasskey(name.value.trim());
      form.reset();
      await load();
      fr.say(`Your passkey “${p.name}” is added: “Sign in with a passkey” now signs you in, with no name or password to type.`);
    } catch (e) {
      if (e instanceof PasskeyError) fr.fail(e.message);
      else if (e.status === 409) fr.fail('This passkey is added already.');
      else if (e.status === 400 && /ceremony/.test(e.detail || '')) fr.fail('That took too long: try again.');
      else if (e.status === 400) fr.fail(`No passkey was added: ${e.detail || e.message}.`);
      else fr.fail(e.message);
    } finally {
      add.disabled = false;
      add.focus();
    }
  } },
  h('h3', { id: 'passkey-form-h' }, 'Add a passkey'),
  h('label', { for: 'passkey-name' }, 'What to call it (optional)'),
  h('p', { class: 'help', id: 'passkey-name-help' }, 'Such as “my phone” or “blue key”. Without a name it is called after this browser.'),
  name, h('p', {}, add), ...fr.nodes);
  sec.append(form);
  return sec;
}

// ---------------------------------------------------------------- notifications

function devicesSection() {
  const { sec, load, r } = listSection({
    id: 'devices-section',
    title: 'Notifications on this device',
    help: 'Worp can tell you when it is your turn, even while no page of Worp is open: turn notifications on in each browser where you want them. These devices get them:',
    path: '/v1/players/me/push-subscriptions',
    empty: 'No device gets notifications yet.',
    row: (d) => ({
      attrs: { 'data-device': d.id },
      words: [h('strong', {}, d.device), h('span', {}, `added ${fmtTime(d.created_at)}`),
        h('span', { class: 'muted' }, `last notified ${d.last_used_at ? agoText(d.last_used_at) : 'never'}`)],
    }),
    button: (d) => ({
      text: 'Remove', cls: 'danger', action: 'remove', aria: `Remove ${d.device} from the devices notified`,
      done: `${d.device} gets no more notifications.`,
    }),
  });
  if (!pushAvailable()) {
    sec.append(h('p', { id: 'push-unavailable' }, noPushText()));
    return sec;
  }
  const fr = results();
  const turnOn = h('button', { type: 'button', id: 'turn-on-push', onclick: async () => {
    r.clear();
    fr.clear();
    turnOn.disabled = true;
    try {
      const d = await turnOnPush();
      await load();
      fr.say(`Notifications are on for ${d.device}.`);
    } catch (e) {
      if (e instanceof PushError) fr.fail(e.message);
      else fr.fail(`Notifications could not be turned on: ${e.detail || e.message}`);
    } finally {
      turnOn.disabled = false;
      turnOn.focus();
    }
  } }, 'Turn on notifications on this device');
  sec.append(h('p', {}, turnOn), ...fr.nodes);
  return sec;
}

// ---------------------------------------------------------------- the first token

function firstTokenSection(me, toHome) {
  const r = results();
  const revoke = h('button', { type: 'button', class: 'danger', id: 'revoke-first-token', 'aria-describedby': 'first-token-what', onclick: async () => {
    if (!confirm('Revoke your first token for good? Whatever uses it stops working, and you sign in with your password or a passkey only.')) return;
    r.clear();
    revoke.disabled = true;
    try {
      await api('DELETE', '/v1/players/me/token');
      if (me.token) {
        // It was this browser's way in: signed out here.
        setAccount(null);
        toast('Your first token is revoked. Sign in with your name and password, or a passkey.', 10000);
        toHome();
        return;
      }
      r.say('Your first token is revoked: it works no more. Sign in with your password or a passkey.');
    } catch (e) {
      r.fail(e.status === 409 ? `Not revoked: ${e.detail || e.message}.` : e.message);
    } finally { revoke.disabled = false; }
  } }, 'Revoke the first token');
  return section('first-token-section', 'Your first token',
    h('p', { id: 'first-token-what' }, 'When your player was made, Worp gave it a first token, which may do anything and never expires. ',
      me.token ? 'This browser keeps it. ' : '',
      'Once you sign in with a password or a passkey, you no longer need it. Revoked, it stops working for good: from then on you sign in with your password or a passkey only.'),
    h('p', { class: 'help' }, 'A program that uses it stops working: give it a personal access token instead.'),
    h('p', {}, revoke), ...r.nodes);
}

// ---------------------------------------------------------------- leaving

function leaveSection(info, me, main) {
  const r = results();
  const download = h('button', { type: 'button', class: 'secondary', id: 'export-data', onclick: async () => {
    r.clear();
    download.disabled = true;
    try {
      const data = await api('GET', '/v1/players/me/export');
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
      const link = h('a', { href: url, download: 'worp-account.json', hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
      r.say('Your data is downloaded, as worp-account.json.');
    } catch (e) { r.fail(e.message); } finally {
      download.disabled = false;
      download.focus();
    }
  } }, 'Download my data');

  const dr = results();
  const confirmName = h('input', { id: 'delete-confirm-name', required: true, autocomplete: 'off', spellcheck: 'false',
    'aria-describedby': 'delete-warning' });
  const del = h('button', { type: 'submit', class: 'danger', id: 'delete-account' }, 'Delete my account');
  const form = h('form', { id: 'delete-form', 'aria-labelledby': 'delete-h', onsubmit: async (ev) => {
    ev.preventDefault();
    dr.clear();
    del.disabled = true;
    try {
      await api('DELETE', '/v1/players/me', { body: { confirm_name: confirmName.value.trim() } });
    } catch (e) {
      del.disabled = false;
      if (e.status === 400) {
        dr.fail(`Nothing was deleted: type your name exactly as shown, ${info.name}.`);
        confirmName.focus();
      } else dr.fail(e.message);
      return;
    }
    deleted(main, info, me);
  } },
  h('h3', { id: 'delete-h' }, 'Delete your account'),
  h('div', { id: 'delete-warning', class: 'warning' },
    h('p', {}, h('strong', {}, 'This cannot be undone.'), ' Your password, passkeys, recovery codes, sessions, tokens, authorised apps and webhooks are deleted, and you are signed out everywhere.'),
    h('p', {}, 'Your games you are still playing are resigned and your invitations declined; your finished games stay, with your name shown as “Deleted player”. Your ratings leave the leaderboard, and your name is free for anyone to take. Download your data first to keep it.')),
  h('label', { for: 'delete-confirm-name' }, `Type your name, ${info.name}, to confirm`),
  confirmName, h('p', {}, del), ...dr.nodes);

  return section('leave-section', 'Leave Worp',
    h('h3', {}, 'Your data'),
    h('p', { class: 'help' }, 'Everything Worp holds about you (your account, games, ratings and messages; never a password or a token), as one JSON file.'),
    h('p', {}, download), ...r.nodes,
    form);
}

/** The account is gone: this browser is signed out, and the page says so. */
function deleted(main, info, me) {
  if (me.session) setSession(null); else setAccount(null);
  const heading = h('h1', { id: 'account-deleted-h', tabindex: -1 }, 'Your account is deleted');
  main.replaceChildren(h('section', { class: 'card', id: 'account-deleted', 'aria-labelledby': 'account-deleted-h' },
    heading,
    h('p', {}, `You are signed out. Your games were left to the other players; they show “Deleted player” in place of ${info.name}.`),
    h('p', {}, h('a', { href: '#/' }, 'Go to the home page'))));
  heading.focus();
  toast('Your account is deleted, and you are signed out.', 10000);
}
