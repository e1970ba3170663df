// Signing in and signing up. A player signs in with their name and password (or one of
// their recovery codes), or with a passkey (no name typed), and the browser gets a web
// session: a cookie that works on this device until signed out. Signing up makes the
// player, sets the password with the first token the server gives, and signs in; the
// token is then no longer kept. A token kept from before passwords still signs in ("I
// already have a token").
import { h, toast, api, setAccount, setSession } from './core.js';
import { passkeySession, passkeysAvailable, noPasskeysText, PasskeyError } from './passkeys.js';

/** Signs in by name (or player id) and password or recovery code; the session is kept. */
export async function signIn(name, proof) {
  const s = await api('POST', '/v1/sessions', { body: { name, ...proof }, auth: false });
  setSession(s);
  return s;
}

/** Why a sign-in failed, in words a player can act on. */
function signInError(e, withCode) {
  if (e.status === 401) {
    return withCode ? 'Wrong name or recovery code (each code works only once).' : 'Wrong name or password.';
  }
  if (e.status === 429) return `Too many failed sign-ins: wait ${e.retryAfter ? `${e.retryAfter} s` : 'a while'} and try again.`;
  return e.message;
}

/** Why a passkey sign-in failed, in words a player can act on. */
function passkeyError(e) {
  if (e instanceof PasskeyError) return e.message;
  if (e.status === 401) {
    return 'This passkey is not accepted: it was removed from its account (or the account is gone). Sign in with your name and password.';
  }
  if (e.status === 400 && /ceremony/.test(e.detail || '')) return 'That took too long: try again.';
  return e.message;
}

/**
 * The sign-in form (name, then a password or a recovery code; or a passkey, without a
 * name). `after(session)` runs once signed in.
 */
export function signInForm(after) {
  const name = h('input', { id: 'signin-name', name: 'username', required: true, maxlength: 64, autocomplete: 'username' });
  const password = h('input', { id: 'signin-password', name: 'password', type: 'password', required: true, autocomplete: 'current-password' });
  const code = h('input', { id: 'signin-code', name: 'recovery_code', autocomplete: 'one-time-code', spellcheck: 'false',
    'aria-describedby': 'signin-code-help', class: 'mono' });
  const passwordBox = h('div', {}, h('label', { for: password.id }, 'Password'), password);
  const codeBox = h('div', { hidden: true }, h('label', { for: code.id }, 'Recovery code'),
    h('p', { class: 'help', id: 'signin-code-help' }, 'One of the codes you saved when you made them: it works once.'), code);
  const useCode = h('input', { type: 'checkbox', id: 'signin-use-code', onchange: () => {
    codeBox.hidden = !useCode.checked;
    passwordBox.hidden = useCode.checked;
    password.required = !useCode.checked;
    code.required = useCode.checked;
    (useCode.checked ? code : password).focus();
  } });
  const err = h('p', { class: 'error', role: 'alert', id: 'sign-in-error' });
  const submit = h('button', { type: 'submit', id: 'sign-in' }, 'Sign in');
  const withPasskey = h('button', { type: 'button', class: 'secondary', id: 'sign-in-passkey',
    'aria-describedby': 'sign-in-passkey-help', onclick: async () => {
      err.textContent = '';
      if (!passkeysAvailable()) { err.textContent = noPasskeysText(); return; }
      withPasskey.disabled = true;
      let s;
      try {
        s = await passkeySession();
      } catch (e) {
        err.textContent = passkeyError(e);
        withPasskey.disabled = false;
        withPasskey.focus();
        return;
      }
      withPasskey.disabled = false;
      setSession(s);
      toast(`Signed in as ${s.player_name}.`);
      after(s);
    } }, 'Sign in with a passkey');
  const form = h('form', { class: 'card', id: 'sign-in-form', 'aria-labelledby': 'sign-in-h', onsubmit: async (ev) => {
    ev.preventDefault();
    err.textContent = '';
    const withCode = useCode.checked;
    submit.disabled = true;
    try {
      const s = await signIn(name.value.trim(), withCode ? { recovery_code: code.value.trim() } : { password: password.value });
      toast(`Signed in as ${s.player_name}.`);
      after(s);
    } catch (e) {
      err.textContent = signInError(e, withCode);
      (withCode ? code : password).focus();
    } finally { submit.disabled = false; }
  } },
  h('h2', { id: 'sign-in-h' }, 'Sign in'),
  h('label', { for: name.id }, 'Name'), name,
  passwordBox, codeBox,
  h('label', { class: 'inline', for: useCode.id }, useCode, 'I lost my password: use a recovery code'),
  h('p', {}, submit),
  h('div', { class: 'passkey-way' },
    h('p', { class: 'help', id: 'sign-in-passkey-help' }, 'Or, with a passkey you added on your account page: no name or password to type.'),
    h('p', {}, withPasskey)),
  err);
  return form;
}

// A player made whose password the server refused: the next try sets the password only.
const PENDING = 'worp.pendingPlayer';
function pending() {
  try { return JSON.parse(sessionStorage.getItem(PENDING) || 'null'); } catch { return null; }
}

/** The sign-up form: a name and a password. `after()` runs once signed in. */
function signUpForm(after) {
  const name = h('input', { id: 'acct-name', name: 'username', required: true, maxlength: 64, autocomplete: 'username' });
  const password = h('input', { id: 'acct-password', name: 'new-password', type: 'password', required: true, minlength: 8,
    autocomplete: 'new-password', 'aria-describedby': 'acct-password-help' });
  const err = h('p', { class: 'error', role: 'alert' });
  const submit = h('button', { type: 'submit', id: 'create-account' }, 'Create player');
  return h('form', { class: 'card', id: 'account-form', 'aria-labelledby': 'account-form-h', onsubmit: async (ev) => {
    ev.preventDefault();
    err.textContent = '';
    submit.disabled = true;
    try {
      const wanted = name.value.trim();
      let p = pending();
      if (!p || p.name.toLowerCase() !== wanted.toLowerCase()) {
        p = await api('POST', '/v1/players', { body: { name: wanted }, auth: false });
        sessionStorage.setItem(PENDING, JSON.stringify({ id: p.id, name: p.name, token: p.token }));
      }
      try {
        await api('POST', '/v1/players/me/password', { body: { password: password.value }, token: p.token });
      } catch (e) {
        if (e.status === 400) {
          err.textContent = `Choose another password: ${e.detail || e.message}. (Your player ${p.name} is made; only its password is missing.)`;
          password.focus();
          return;
        }
        throw e;
      }
      sessionStorage.removeItem(PENDING);
      try {
        await signIn(p.id, { password: password.value });
      } catch {
        // Not signed in (the server busy?): the token keeps the player in this browser.
        setAccount({ id: p.id, name: p.name, token: p.token });
      }
      toast(`Welcome, ${p.name}. Sign in with your name and password on any device.`);
      after();
    } catch (e) { err.textContent = e.message; } finally { submit.disabled = false; }
  } },
  h('h2', { id: 'account-form-h' }, 'New here? Create your player'),
  h('label', { for: 'acct-name' }, 'Name'), name,
  h('label', { for: 'acct-password' }, 'Password'),
  h('p', { class: 'help', id: 'acct-password-help' }, 'At least 8 characters and hard to guess: a few uncommon words make a good one.'),
  password,
  h('p', {}, submit), err);
}

/** Signs in with a token kept from before passwords (a player's first token). */
function tokenForm(after) {
  const token = h('input', { id: 'acct-token', name: 'token', autocomplete: 'off', class: 'mono' });
  const err = h('p', { class: 'error', role: 'alert' });
  return h('details', { class: 'card' }, h('summary', {}, 'I already have a token'),
    h('label', { for: 'acct-token' }, 'Token'), token,
    h('p', {}, h('button', { type: 'button', class: 'secondary', id: 'use-token', onclick: async () => {
      err.textContent = '';
      const t = token.value.trim();
      if (!t) return;
      try {
        const p = await api('GET', '/v1/players/me', { token: t });
        setAccount({ id: p.id, name: p.name, token: t });
        after();
      } catch (e) { err.textContent = e.status === 401 ? 'Unknown token.' : e.message; }
    } }, 'Use this token')), err);
}

/**
 * What a signed-out page shows: sign in, sign up and (`token`) the old token. `title`: a
 * heading for a page that has none.
 */
export function accountForm(after, { title = null, signUp = true, token = true } = {}) {
  return h('div', { id: 'sign-in-or-up' },
    title ? h('h1', {}, title) : null,
    h('div', { class: 'forms' }, signInForm(after), signUp ? signUpForm(after) : null),
    token ? tokenForm(after) : null);
}
