// What every page of the client shares: building elements, the account kept in this
// browser, calls to the API with errors in plain words, the variants, and how names,
// times and endings read.

export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'class') e.className = v;
    else if (v === true) e.setAttribute(k, '');
    else e.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export function toast(text, ms = 4000) {
  const t = document.getElementById('toast');
  t.textContent = text;
  t.classList.add('show');
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => t.classList.remove('show'), ms);
}

// ---------------------------------------------------------------- the account

// A browser is signed in one of two ways: by a web session (an HttpOnly cookie the page
// never sees, and the session's CSRF token, kept in memory only), or, as before
// passwords, by the player's first token kept in localStorage as `worp.account`
// ({id, name, token}). The session wins when both are there.
let session = null;
const listeners = [];
const endedListeners = [];
/** `fn` runs whenever the account changes (sign in, sign out). */
export function onAccount(fn) { listeners.push(fn); }
/** `fn` runs when the server says the session ended (signed out from another device). */
export function onSessionEnded(fn) { endedListeners.push(fn); }
const changed = () => { for (const fn of listeners) fn(account()); };

/** The account kept in localStorage (the token path), if any. */
function storedAccount() {
  try { return JSON.parse(localStorage.getItem('worp.account') || 'null'); } catch { return null; }
}
/**
 * Who this browser is signed in as: `{id, name, session: true}` with a web session,
 * `{id, name, token}` with a token kept here, or `null`.
 */
export function account() {
  if (session) return { id: session.player_id, name: session.player_name, session: true };
  return storedAccount();
}

/** Keeps (or, with `null`, forgets) a token in this browser: the sign-in of old. */
export function setAccount(a) {
  if (a) localStorage.setItem('worp.account', JSON.stringify(a));
  else localStorage.removeItem('worp.account');
  changed();
}
/**
 * The web session now (the answer of `POST /v1/sessions` or `GET /v1/session`), or
 * `null` once signed out. A token of the same player kept here is no longer needed.
 */
export function setSession(s) {
  session = s || null;
  const stored = storedAccount();
  if (session && stored && stored.id === session.player_id) localStorage.removeItem('worp.account');
  changed();
}
/** Asks the server whether this browser has a session (when the page opens). */
export async function loadSession() {
  try {
    const r = await fetch('/v1/session', { headers: { accept: 'application/json' }, cache: 'no-store' });
    session = r.ok ? await r.json() : null;
  } catch {
    session = null;
    toast('The server cannot be reached: check your connection.');
  }
  return session;
}
/** Signs this browser out: ends its session on the server, or forgets its token. */
export async function signOut() {
  if (session) {
    try { await api('DELETE', '/v1/session'); } catch (e) { if (e.status !== 401) throw e; }
    setSession(null);
  } else setAccount(null);
}
/** The session is over on the server: the page shows the signed-out state. */
function sessionEnded() {
  if (!session) return;
  session = null;
  changed();
  toast('You are signed out: this session ended (signed out from another device, or expired).', 8000);
  for (const fn of endedListeners) fn();
}

/**
 * The cookie no longer goes with the session this page knows (another tab of this browser
 * signed out, or in again): the page takes the browser's session now. True when it is
 * the same player's, so that the call may be made again.
 */
async function sessionReplaced() {
  const before = session;
  await loadSession();
  if (session && before && session.player_id === before.player_id) return true;
  changed();
  toast(session ? `This browser is now signed in as ${session.player_name} (in another tab).` : 'You are signed out (in another tab).', 8000);
  for (const fn of endedListeners) fn();
  return false;
}

/** The headers that carry this browser's credential for a request of `method`. */
function credentialHeaders(method, token) {
  const t = token || (!session && storedAccount()?.token);
  if (t) return { authorization: `Bearer ${t}` };
  // The cookie goes by itself; what changes anything proves it comes from this page.
  if (session && method !== 'GET' && method !== 'HEAD') return { 'x-csrf-token': session.csrf_token };
  return {};
}

// ---------------------------------------------------------------- the API

export class ApiError extends Error {
  constructor(status, message, retryAfter = null, detail = null) {
    super(message); this.status = status; this.retryAfter = retryAfter; this.detail = detail;
  }
}

/** What went wrong, in words a player can act on. */
function problemText(status, data, retryAfter, bySession) {
  const detail = data && typeof data === 'object' ? (data.detail || data.title) : null;
  switch (status) {
    case 401: return bySession ? 'You are signed out: sign in again.' : 'Your token is not known here: sign in again.';
    case 403: return detail ? `Not allowed: ${detail}` : 'You are not allowed to do that.';
    case 404: return detail ? `Not found: ${detail}` : 'Not found.';
    case 409: case 412: return detail || 'The game moved on meanwhile: look again.';
    case 413: return 'That is too long.';
    case 429: return `Too many requests: wait ${retryAfter ? `${retryAfter} s` : 'a moment'} and try again.`;
    case 408: case 502: case 503: case 504: return 'The server is busy or restarting: try again in a moment.';
    default: return detail || `The server answered ${status}.`;
  }
}

/**
 * A call to the API. `auth: false` sends no token (public reads; the session's cookie,
 * which the browser sends by itself, does no harm there); `token` sends that one.
 */
export async function api(method, path, { body, headers = {}, auth = true, token, again = true } = {}) {
  const hd = { accept: 'application/json', ...headers };
  if (body !== undefined) hd['content-type'] = 'application/json';
  if (auth || token) Object.assign(hd, credentialHeaders(method, token));
  else if (session && method !== 'GET' && method !== 'HEAD') hd['x-csrf-token'] = session.csrf_token;
  const bySession = !!(auth && session && !hd.authorization);
  let r;
  try {
    r = await fetch(path, { method, headers: hd, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, 'The server cannot be reached: check your connection.');
  }
  if (r.status === 304) return null;
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  if (!r.ok) {
    const retry = Number(r.headers.get('retry-after')) || null;
    if (r.status === 401 && bySession) sessionEnded();
    if (r.status === 403 && bySession && again && /cross-site-request$/.test(data?.type || '') && await sessionReplaced()) {
      return api(method, path, { body, headers, auth, token, again: false });
    }
    const detail = data && typeof data === 'object' ? data.detail || null : null;
    throw new ApiError(r.status, problemText(r.status, data, retry, bySession), retry, detail);
  }
  return data;
}

let variantsCache = null;
export async function variants() {
  if (!variantsCache) variantsCache = await api('GET', '/v1/variants', { auth: false });
  return variantsCache;
}
export async function variantInfo(name) {
  return (await variants()).find((v) => v.name === name);
}
/**
 * The bots this server offers (`GET /v1/bots`: `[{name, variants, thinks}]`), or `null`
 * when the list cannot be read (an older server): asked again next time.
 */
let botsCache = null;
export async function bots() {
  if (!botsCache) {
    botsCache = api('GET', '/v1/bots', { auth: false }).then((list) => (Array.isArray(list) ? list : null), () => null);
    botsCache.then((list) => { if (!list) botsCache = null; });
  }
  return botsCache;
}
/** A bot's name as a player says it: "GNU Backgammon, world class". */
export function botTitle(name) {
  const known = { random: 'random moves', greedy: 'greedy', expectimax: 'looks a roll ahead' };
  if (known[name]) return known[name];
  const gnubg = /^gnubg-(.+)$/.exec(name);
  if (gnubg) return `GNU Backgammon, ${gnubg[1].replace(/-/g, ' ')}`;
  return name.replace(/[-_]/g, ' ');
}
/** A variant's title (after `variants()` has loaded them). */
export function titleOf(name) {
  const v = (variantsCache || []).find((x) => x.name === name);
  return v ? v.title : name;
}

// ---------------------------------------------------------------- words

export function shortId(id) { return id ? String(id).slice(0, 8) : ''; }
export function fmtTime(t) {
  if (!t) return '';
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? String(t) : d.toLocaleString();
}
/** How long ago, as players read it in a list: "just now", "5 min ago", "3 h ago", "2 days ago", else the date. */
export function agoText(t) {
  const d = new Date(t);
  const ms = Date.now() - d.getTime();
  if (!t || Number.isNaN(ms)) return fmtTime(t);
  if (ms < 60000) return 'just now';
  if (ms < 3600000) return `${Math.round(ms / 60000)} min ago`;
  if (ms < 86400000) return `${Math.round(ms / 3600000)} h ago`;
  if (ms < 7 * 86400000) return `${Math.round(ms / 86400000)} day${ms < 1.5 * 86400000 ? '' : 's'} ago`;
  return d.toLocaleDateString();
}
export function deadlineText(t) {
  if (!t) return null;
  const d = new Date(t);
  const ms = d.getTime() - Date.now();
  const abs = Math.abs(ms);
  const span = abs > 86400000 ? `${Math.round(abs / 86400000)} d` : abs > 3600000 ? `${Math.round(abs / 3600000)} h`
    : `${Math.max(1, Math.round(abs / 60000))} min`;
  return `${fmtTime(t)} (${ms >= 0 ? `in ${span}` : `${span} ago`})`;
}

/** A link to a player's page, by their name. */
export function playerLink(id, name, { you = false } = {}) {
  if (!id) return h('span', {}, name || 'someone');
  const label = `${name || `player ${shortId(id)}`}${you ? ' (you)' : ''}`;
  return h('a', { href: `#/player/${id}`, class: 'player-link', 'data-player': id }, label);
}

/** Why a game ended (`reason`), as a player says it. */
export const REASONS = {
  goal: 'reached the goal',
  no_pawns_left: 'had no pawns left',
  cannot_move: 'could not move',
  quiet_moves: 'too many moves without a capture',
  all_pawns_removed: 'all pawns removed',
  resigned: 'resigned',
  timed_out: 'ran out of time',
  double_passed: 'a double was passed',
  resignation_accepted: 'a resignation offer was accepted',
};
export function reasonText(reason) {
  return reason ? (REASONS[reason] || reason.replace(/_/g, ' ')) : null;
}
export const ENDINGS = { won: 'won', gammon: 'won a gammon', backgammon: 'won a backgammon', draw: 'draw', opponents_retired: 'won' };

/** How one game of a backgammon match ended: "White won a gammon, 4 points (cube at 2)". */
export function gameEnding(game) {
  const name = game.winner === 'white' ? 'White' : 'Black';
  const how = ENDINGS[game.ending] || 'won';
  const cube = game.cube > 1 ? ` (cube at ${game.cube})` : '';
  return `${name} ${how}, ${game.points} point${game.points === 1 ? '' : 's'}${cube}${game.crawford ? ', the Crawford game' : ''}`;
}

/** Who plays each seat of a listed game, as links and words. */
export function seatNames(g, me) {
  const out = [];
  (g.seats || []).forEach((pid, i) => {
    if (i) out.push(', ');
    const name = (g.names || [])[i];
    const invited = (g.invited || [])[i];
    if (pid) out.push(playerLink(pid, name, { you: me && pid === me.id }));
    else if (invited) out.push(playerLink(invited, name, { you: me && invited === me.id }), ' (invited)');
    else if ((g.open_seats || []).includes(i) || (!g.open_seats && g.status === 'waiting')) out.push(h('span', { class: 'muted' }, 'open seat'));
    else out.push(h('span', { class: 'muted' }, 'bot'));
  });
  return h('span', { class: 'names' }, ...out);
}

/**
 * The caller's notices across all games (`GET /v1/players/me/stream`): `onNotice(type,
 * data)` for each. Read with fetch, since an EventSource cannot send a token (a session's
 * cookie goes by itself). Returns the function that stops it.
 */
export function playerStream(onNotice) {
  const a = account();
  if (!a || typeof TextDecoderStream === 'undefined') return () => {};
  const headers = { ...credentialHeaders('GET'), accept: 'text/event-stream' };
  const ctl = new AbortController();
  let closed = false;
  (async () => {
    let delay = 1000;
    while (!closed) {
      try {
        const r = await fetch('/v1/players/me/stream', { headers, signal: ctl.signal });
        if (r.status === 401 && a.session) { closed = true; sessionEnded(); return; }
        if (!r.ok || !r.body) throw new Error(String(r.status));
        delay = 1000;
        document.body.dataset.playerStream = 'open';
        const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value.replace(/\r/g, '');
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            let type = null;
            let data = '';
            for (const line of block.split('\n')) {
              if (line.startsWith('event:')) type = line.slice(6).trim();
              else if (line.startsWith('data:')) data += line.slice(5).trim();
            }
            if (!type) continue;
            let d = null;
            try { d = data ? JSON.parse(data) : null; } catch { d = null; }
            onNotice(type, d);
          }
        }
      } catch { if (closed) return; }
      delete document.body.dataset.playerStream;
      await new Promise((res) => { setTimeout(res, delay); });
      delay = Math.min(delay * 2, 30000);
    }
  })();
  return () => { closed = true; ctl.abort(); delete document.body.dataset.playerStream; };
}
