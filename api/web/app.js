// Worp's reference web client. Plain ES module, no framework; it uses only the public
// v1 API (the same calls any third-party client makes).
import { dieFace } from './boards/common.js';
import { matchMoves, choices, decide } from './match.js';
import { lastMoves } from './last_move.js';

// The `event:` names of a game's stream: the kinds of the stored events.
const EVENT_TYPES = ['game_created', 'seat_taken', 'invitation_declined', 'dice_rolled', 'move_played', 'seat_retired', 'game_finished'];

const main = document.getElementById('main');
let cleanup = () => {};

// ---------------------------------------------------------------- helpers

function h(tag, attrs = {}, ...children) {
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

function toast(text, ms = 4000) {
  const t = document.getElementById('toast');
  t.textContent = text;
  t.classList.add('show');
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => t.classList.remove('show'), ms);
}

function account() {
  try { return JSON.parse(localStorage.getItem('worp.account') || 'null'); } catch { return null; }
}
function setAccount(a) {
  if (a) localStorage.setItem('worp.account', JSON.stringify(a));
  else localStorage.removeItem('worp.account');
  showWho();
}
function showWho() {
  const who = document.getElementById('who');
  const a = account();
  who.replaceChildren();
  if (a) {
    who.append('Signed in as ', h('strong', {}, a.name), ' ',
      h('button', { class: 'secondary', type: 'button', style: 'min-height:32px;padding:.1em .6em',
        onclick: () => { if (confirm('Sign out? Your token is only stored in this browser; copy it first if you want to come back.')) { setAccount(null); route(); } } }, 'Sign out'));
  }
}

class ApiError extends Error {
  constructor(status, detail) { super(detail); this.status = status; }
}

async function api(method, path, { body, headers = {}, auth = true } = {}) {
  const hd = { accept: 'application/json', ...headers };
  if (body !== undefined) hd['content-type'] = 'application/json';
  const a = account();
  if (auth && a) hd.authorization = `Bearer ${a.token}`;
  const r = await fetch(path, { method, headers: hd, body: body === undefined ? undefined : JSON.stringify(body) });
  if (r.status === 304) return null;
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  if (!r.ok) {
    const msg = (data && (data.detail || data.title)) || `${r.status} ${r.statusText}`;
    throw new ApiError(r.status, msg);
  }
  return data;
}

let variantsCache = null;
async function variants() {
  if (!variantsCache) variantsCache = await api('GET', '/v1/variants', { auth: false });
  return variantsCache;
}
async function variantInfo(name) {
  return (await variants()).find((v) => v.name === name);
}
// A game's board module is `boards/<variant name>.js`, found by name: adding a game adds
// that file and nothing else. A variant without one (or with one that fails to load) gets
// the generic view: its state as JSON and its legal moves as buttons.
const boardCache = new Map();
function boardFor(name) {
  if (!/^[a-z0-9_]+$/.test(name)) return Promise.resolve(null);
  if (!boardCache.has(name)) {
    boardCache.set(name, import(`./boards/${name}.js`).then(
      (m) => (m.default && typeof m.default.draw === 'function' ? m.default : null),
      (e) => { console.warn(`no board module for ${name}: ${e.message}`); return null; }));
  }
  return boardCache.get(name);
}

function shortId(id) { return id ? String(id).slice(0, 8) : ''; }
function fmtTime(t) {
  if (!t) return '';
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? String(t) : d.toLocaleString();
}
function deadlineText(t) {
  if (!t) return null;
  const d = new Date(t);
  const ms = d.getTime() - Date.now();
  const abs = Math.abs(ms);
  const span = abs > 86400000 ? `${Math.round(abs / 86400000)} d` : abs > 3600000 ? `${Math.round(abs / 3600000)} h`
    : `${Math.max(1, Math.round(abs / 60000))} min`;
  return `${fmtTime(t)} (${ms >= 0 ? `in ${span}` : `${span} ago`})`;
}
function titleOf(name) {
  const v = (variantsCache || []).find((x) => x.name === name);
  return v ? v.title : name;
}

// ---------------------------------------------------------------- routing

function route() {
  cleanup();
  cleanup = () => {};
  const parts = (location.hash.replace(/^#\/?/, '') || '').split('/').filter(Boolean);
  const view = parts[0] || '';
  main.replaceChildren();
  let p;
  if (view === 'game' && parts[1]) p = gameView(parts[1]);
  else if (view === 'join' && parts[1] && parts[2] !== undefined) p = joinView(parts[1], Number(parts[2]));
  else if (view === 'new') p = newGameView();
  else p = homeView();
  Promise.resolve(p).catch((e) => {
    main.append(h('p', { class: 'error', role: 'alert' }, `Error: ${e.message}`));
  });
}
window.addEventListener('hashchange', route);

// ---------------------------------------------------------------- account

function accountForm(after) {
  const name = h('input', { id: 'acct-name', name: 'name', required: true, maxlength: 64, autocomplete: 'nickname' });
  const token = h('input', { id: 'acct-token', name: 'token', autocomplete: 'off' });
  const err = h('p', { class: 'error', role: 'alert' });
  const form = h('form', { class: 'card', id: 'account-form', onsubmit: async (ev) => {
    ev.preventDefault();
    err.textContent = '';
    try {
      const p = await api('POST', '/v1/players', { body: { name: name.value.trim() }, auth: false });
      setAccount({ id: p.id, name: p.name, token: p.token });
      toast(`Welcome, ${p.name}. Your token is kept in this browser.`);
      after();
    } catch (e) { err.textContent = e.message; }
  } },
  h('h1', {}, 'Create your player'),
  h('p', { class: 'help' }, 'Pick a name. The server gives you a secret token, kept in this browser only.'),
  h('label', { for: 'acct-name' }, 'Name'), name, ' ',
  h('p', {}, h('button', { type: 'submit', id: 'create-account' }, 'Create player')), err);
  const restoreErr = h('p', { class: 'error', role: 'alert' });
  const restore = h('details', { class: 'card' }, h('summary', {}, 'I already have a token'),
    h('label', { for: 'acct-token' }, 'Token'), token,
    h('p', {}, h('button', { type: 'button', class: 'secondary', id: 'use-token', onclick: async () => {
      restoreErr.textContent = '';
      const t = token.value.trim();
      if (!t) return;
      try {
        const r = await fetch('/v1/players/me', { headers: { authorization: `Bearer ${t}`, accept: 'application/json' } });
        if (!r.ok) throw new Error(r.status === 401 ? 'Unknown token.' : `${r.status} ${r.statusText}`);
        const p = await r.json();
        setAccount({ id: p.id, name: p.name, token: t });
        after();
      } catch (e) { restoreErr.textContent = e.message; }
    } }, 'Use this token')), restoreErr);
  return h('div', {}, form, restore);
}

// ---------------------------------------------------------------- home: inbox and games

function gameRow(g, me, extra) {
  const mine = me && g.to_move_player === me.id && g.status === 'active';
  const li = h('li', {},
    h('a', { href: `#/game/${g.id}`, class: 'game-link', 'data-game': g.id }, `${titleOf(g.variant)} ${shortId(g.id)}`),
    h('span', { class: `badge${mine ? ' turn' : ''}` }, mine ? 'your turn' : g.status),
    g.deadline ? h('span', { class: 'deadline' }, `Deadline: ${deadlineText(g.deadline)}`) : null,
    h('span', { class: 'muted' }, `updated ${fmtTime(g.updated_at)}`),
    extra || null);
  return li;
}

async function homeView() {
  await variants();
  const me = account();
  if (!me) {
    main.append(accountForm(() => route()));
    return;
  }
  const inbox = h('ul', { class: 'list', id: 'inbox' });
  const mine = h('ul', { class: 'list', id: 'my-games' });
  const open = h('ul', { class: 'list', id: 'open-games' });
  main.append(
    h('section', { class: 'card', 'aria-labelledby': 'inbox-h' }, h('h1', { id: 'inbox-h' }, 'Your turn'), inbox),
    h('p', {}, h('a', { class: 'button', href: '#/new' }, 'New game')),
    h('section', { class: 'card', 'aria-labelledby': 'mine-h' }, h('h2', { id: 'mine-h' }, 'Your games'), mine),
    h('section', { class: 'card', 'aria-labelledby': 'open-h' }, h('h2', { id: 'open-h' }, 'Games waiting for players'), open),
    h('details', { class: 'card' }, h('summary', {}, 'Your token (to sign in from another browser)'),
      h('p', { class: 'help' }, 'Keep it secret: whoever has it plays as you.'),
      h('input', { readonly: true, value: me.token, 'aria-label': 'Your token', class: 'mono', style: 'width:100%', onfocus: (e) => e.target.select() })));
  const load = async () => {
    try {
      const [a, b, c] = await Promise.all([
        api('GET', '/v1/games?my_turn=true&limit=100'),
        api('GET', `/v1/games?player=${encodeURIComponent(me.id)}&limit=50`),
        api('GET', '/v1/games?status=waiting&limit=20'),
      ]);
      inbox.replaceChildren(...(a.games.length ? a.games.map((g) => gameRow(g, me))
        : [h('li', { class: 'muted' }, 'No game is waiting for your move.')]));
      mine.replaceChildren(...(b.games.length ? b.games.map((g) => gameRow(g, me))
        : [h('li', { class: 'muted' }, 'No games yet.')]));
      const waiting = c.games.filter((g) => g.seats.some((s) => s === null));
      open.replaceChildren(...(waiting.length ? waiting.map((g) => gameRow(g, me,
        h('span', {}, ...g.seats.map((s, i) => (s === null
          ? h('a', { href: `#/join/${g.id}/${i}`, class: 'join-link' }, `take seat ${i}`) : null)))))
        : [h('li', { class: 'muted' }, 'None.')]));
    } catch (e) {
      if (e.status === 401) { setAccount(null); route(); return; }
      toast(e.message);
    }
  };
  await load();
  const timer = setInterval(load, 10000);
  cleanup = () => clearInterval(timer);
}

// ---------------------------------------------------------------- new game

function resolveSchema(schema, root) {
  let s = schema || {};
  for (let i = 0; i < 8; i++) {
    if (s.$ref) {
      const name = s.$ref.replace('#/$defs/', '');
      s = { ...(root.$defs || {})[name], ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== '$ref')) };
    } else if (s.oneOf && s.oneOf.length === 1) {
      const { oneOf, ...rest } = s;
      s = { ...oneOf[0], ...rest, description: rest.description || oneOf[0].description };
    } else if (s.allOf && s.allOf.length === 1) {
      const { allOf, ...rest } = s;
      s = { ...allOf[0], ...rest };
    } else break;
  }
  if (s.oneOf && s.oneOf.every((o) => o.enum || o.const !== undefined || o.$ref)) {
    const values = [];
    for (const o of s.oneOf) {
      const r = resolveSchema(o, root);
      if (r.enum) values.push(...r.enum); else if (r.const !== undefined) values.push(r.const);
    }
    if (values.length) s = { ...s, enum: values };
  }
  return s;
}

function optionField(key, schema, root, def) {
  const s = resolveSchema(schema, root);
  const id = `opt-${key}`;
  const types = [].concat(s.type || []);
  const desc = (s.description || '').split('\n').join(' ');
  let input;
  let read;
  if (s.enum) {
    input = h('select', { id, name: key }, ...s.enum.map((v) => h('option', { value: JSON.stringify(v), selected: JSON.stringify(v) === JSON.stringify(def) }, String(v))));
    read = () => JSON.parse(input.value);
  } else if (types.includes('boolean')) {
    input = h('input', { id, name: key, type: 'checkbox', checked: !!def });
    read = () => input.checked;
  } else if (types.includes('integer') || types.includes('number')) {
    input = h('input', { id, name: key, type: 'number', inputmode: 'numeric', value: def ?? '', min: s.minimum, max: s.maximum, step: types.includes('integer') ? 1 : 'any' });
    read = () => (input.value === '' ? (types.includes('null') ? null : undefined) : Number(input.value));
  } else if (types.includes('string') && types.length === 1) {
    input = h('input', { id, name: key, value: def ?? '' });
    read = () => input.value;
  } else {
    input = h('input', { id, name: key, value: def === null || def === undefined ? '' : JSON.stringify(def), placeholder: 'JSON; empty for the default', class: 'mono' });
    read = () => {
      if (input.value.trim() === '') return null;
      try { return JSON.parse(input.value); } catch { throw new Error(`${key}: not valid JSON`); }
    };
  }
  const wrap = s.enum || !types.includes('boolean')
    ? h('div', { class: 'field' }, h('label', { for: id }, key), input, desc ? h('p', { class: 'help' }, desc) : null)
    : h('div', { class: 'field' }, h('label', { class: 'inline', for: id }, input, key), desc ? h('p', { class: 'help' }, desc) : null);
  return { wrap, read };
}

async function newGameView() {
  const vs = await variants();
  const me = account();
  if (!me) { main.append(accountForm(() => route())); return; }
  const pre = new URLSearchParams(location.hash.split('?')[1] || '');
  const variantSel = h('select', { id: 'variant', name: 'variant' },
    ...vs.map((v) => h('option', { value: v.name, selected: v.name === pre.get('variant') }, v.title)));
  const seatCount = h('select', { id: 'seat-count', name: 'seats' });
  const seatsBox = h('div', { id: 'seats' });
  const optsBox = h('div', { id: 'options' });
  const clock = h('select', { id: 'days-per-move', name: 'days_per_move' },
    h('option', { value: '' }, 'No clock'),
    ...[1, 2, 3, 5, 7, 10, 14].map((d) => h('option', { value: d }, `${d} day${d > 1 ? 's' : ''} per move`)));
  const err = h('p', { class: 'error', role: 'alert' });
  let fields = [];
  const seatChoice = (i) => h('div', { class: 'field' }, h('label', { for: `seat-${i}` }, `Seat ${i}`),
    h('select', { id: `seat-${i}`, name: `seat-${i}` },
      h('option', { value: 'me', selected: i === 0 }, 'Me'),
      h('option', { value: 'open', selected: i > 0 }, 'Open seat (invite someone)'),
      h('option', { value: 'bot:random' }, 'Bot: random'),
      h('option', { value: 'bot:greedy' }, 'Bot: greedy')));
  const drawSeats = () => {
    const n = Number(seatCount.value);
    const old = [...seatsBox.querySelectorAll('select')].map((s) => s.value);
    seatsBox.replaceChildren(...Array.from({ length: n }, (_, i) => seatChoice(i)));
    old.slice(0, n).forEach((v, i) => { seatsBox.querySelectorAll('select')[i].value = v; });
  };
  const drawVariant = () => {
    const v = vs.find((x) => x.name === variantSel.value);
    seatCount.replaceChildren(...Array.from({ length: v.max_seats - v.min_seats + 1 }, (_, i) => {
      const n = v.min_seats + i;
      return h('option', { value: n }, String(n));
    }));
    drawSeats();
    const props = v.options_schema.properties || {};
    fields = Object.keys(props).map((k) => [k, optionField(k, props[k], v.options_schema, (v.default_options || {})[k])]);
    optsBox.replaceChildren(...(fields.length ? fields.map(([, f]) => f.wrap) : [h('p', { class: 'muted' }, 'This game has no options.')]));
  };
  variantSel.addEventListener('change', drawVariant);
  seatCount.addEventListener('change', drawSeats);
  const form = h('form', { class: 'card', id: 'new-game', onsubmit: async (ev) => {
    ev.preventDefault();
    err.textContent = '';
    try {
      const options = {};
      for (const [k, f] of fields) {
        const val = f.read();
        if (val !== undefined) options[k] = val;
      }
      const seats = [...seatsBox.querySelectorAll('select')].map((s) => {
        if (s.value === 'me') return me.id;
        if (s.value === 'open') return null;
        return { bot: s.value.slice(4) };
      });
      const body = { variant: variantSel.value, options, seats };
      if (clock.value) body.days_per_move = Number(clock.value);
      const g = await api('POST', '/v1/games', { body });
      location.hash = `#/game/${g.id}`;
    } catch (e) { err.textContent = e.message; }
  } },
  h('h1', {}, 'New game'),
  h('label', { for: 'variant' }, 'Game'), variantSel,
  h('label', { for: 'seat-count' }, 'Players'), seatCount,
  seatsBox,
  h('label', { for: 'days-per-move' }, 'Clock'), clock,
  h('p', { class: 'help' }, 'A seat that runs out of time retires.'),
  h('h2', {}, 'Options'), optsBox,
  h('p', {}, h('button', { type: 'submit', id: 'create-game' }, 'Create game')), err);
  main.append(form);
  drawVariant();
}

// ---------------------------------------------------------------- join link

async function joinView(id, seat) {
  if (!account()) {
    main.append(h('p', { class: 'card' }, `You are invited to seat ${seat} of a game. Create your player first.`),
      accountForm(() => route()));
    return;
  }
  main.append(h('p', {}, `Taking seat ${seat}…`));
  try {
    await api('POST', `/v1/games/${id}/seats/${seat}`, { body: {} });
    toast(`You took seat ${seat}.`);
  } catch (e) {
    toast(`Could not take seat ${seat}: ${e.message}`, 6000);
  }
  location.replace(`#/game/${id}`);
}

// ---------------------------------------------------------------- the game

async function gameView(id) {
  const me = account();
  const st = { id, game: null, info: null, board: null, hops: [], source: null, replay: null, replayGame: null,
    busy: false, es: null, timer: null, closed: false, chooser: null, lastVersion: 0 };
  const status = h('p', { class: 'status', id: 'status', 'aria-live': 'polite' });
  const boardWrap = h('div', { class: 'board-wrap', id: 'board' });
  const dice = h('div', { class: 'dice', id: 'dice', 'aria-live': 'polite' });
  const selInfo = h('div', { id: 'selection' });
  const seatsList = h('ul', { class: 'list seats', id: 'seat-list' });
  const slider = h('input', { type: 'range', id: 'replay', min: 1, max: 1, value: 1, 'aria-label': 'Replay: event number' });
  const replayLabel = h('span', { id: 'replay-label' });
  const liveBtn = h('button', { type: 'button', class: 'secondary', id: 'replay-live', onclick: () => setReplay(null) }, 'Live');
  const prevBtn = h('button', { type: 'button', class: 'secondary', 'aria-label': 'Previous event', onclick: () => setReplay(Math.max(1, Number(slider.value) - 1)) }, '◀');
  const nextBtn = h('button', { type: 'button', class: 'secondary', 'aria-label': 'Next event', onclick: () => setReplay(Number(slider.value) + 1) }, '▶');
  const resignBtn = h('button', { type: 'button', class: 'danger', id: 'resign', onclick: resign }, 'Resign');
  const title = h('h1', { id: 'game-title' }, 'Game');
  const extra = h('div', { id: 'extra', class: 'legend' });
  main.append(title, h('div', { class: 'game' },
    h('div', {}, status, boardWrap, selInfo),
    h('aside', { 'aria-label': 'Game details' },
      h('div', { class: 'card' }, dice, extra),
      h('div', { class: 'card' }, h('h2', {}, 'Seats'), seatsList),
      h('div', { class: 'card replay' }, h('h2', {}, 'Replay'),
        slider, h('div', { class: 'row' }, prevBtn, replayLabel, nextBtn), h('p', {}, liveBtn)),
      h('p', {}, resignBtn))));

  const mySeats = (g) => (me ? g.seats.filter((s) => s.player_id === me.id).map((s) => s.seat) : []);
  const myTurn = (g) => g.status === 'active' && g.to_move !== null && g.to_move !== undefined && mySeats(g).includes(g.to_move);

  function seatLabel(g, i) {
    const n = st.board && st.board.seatName ? st.board.seatName(g, i) : null;
    return n ? `Seat ${i} (${n})` : `Seat ${i}`;
  }

  function renderSeats(g) {
    seatsList.replaceChildren(...g.seats.map((s) => {
      const colour = st.board && st.board.seatColour ? st.board.seatColour(g, s.seat) : null;
      const link = `${location.origin}${location.pathname}#/join/${g.id}/${s.seat}`;
      let who;
      if (s.bot) who = `bot (${typeof s.bot === 'string' ? s.bot : JSON.stringify(s.bot)})`;
      else if (s.player_id && me && s.player_id === me.id) who = 'you';
      else if (s.player_id) who = `player ${shortId(s.player_id)}`;
      else who = 'open';
      const li = h('li', { 'data-seat': s.seat },
        h('span', {}, colour ? h('span', { class: 'swatch', style: `background:${colour}`, 'aria-hidden': 'true' }) : null,
          h('strong', {}, seatLabel(g, s.seat)), ': ', who, s.retired ? ' (retired)' : '',
          g.to_move === s.seat && g.status === 'active' ? h('span', { class: 'badge turn' }, ' to move') : null));
      if (!s.player_id && !s.bot && g.status === 'waiting') {
        li.append(h('div', { class: 'invite', style: 'width:100%' },
          h('label', { for: `invite-${s.seat}` }, 'Invite link'),
          h('input', { id: `invite-${s.seat}`, class: 'invite-link', readonly: true, value: link, onfocus: (e) => e.target.select() }),
          h('div', { class: 'row', style: 'margin-top:.3em' },
            h('button', { type: 'button', class: 'secondary', onclick: async () => {
              try { await navigator.clipboard.writeText(link); toast('Link copied.'); } catch { toast('Select the link and copy it.'); }
            } }, 'Copy link'),
            me ? h('button', { type: 'button', class: 'secondary take-seat', onclick: async () => {
              try { show(await api('POST', `/v1/games/${g.id}/seats/${s.seat}`, { body: {} })); } catch (e) { toast(e.message); }
            } }, 'Take this seat') : null)));
      }
      return li;
    }));
  }

  function statusText(g) {
    if (g.status === 'waiting') return 'Waiting for players: share an invite link below.';
    if (g.status === 'finished') {
      const r = g.result || {};
      if (r.winner === null || r.winner === undefined) return `Game over: ${r.ending || 'draw'}.`;
      const mine = mySeats(g).includes(r.winner);
      return `Game over: ${seatLabel(g, r.winner)}${mine ? ' (you)' : ''} won${r.ending && r.ending !== 'won' ? ` (${r.ending.replace('_', ' ')})` : ''}${r.points > 1 ? `, ${r.points} points` : ''}.`;
    }
    if (myTurn(g)) return `Your move (${seatLabel(g, g.to_move)}).`;
    if (g.to_move !== null && g.to_move !== undefined) return `Waiting for ${seatLabel(g, g.to_move)}.`;
    return 'Rolling…';
  }

  function renderDice(g) {
    dice.replaceChildren();
    const d = g.last_dice;
    if (!d) { dice.append(h('span', { class: 'muted' }, 'No dice rolled yet.')); return; }
    const faces = st.board && st.board.diceFaces ? st.board.diceFaces(g) : null;
    const caption = st.board && st.board.diceCaption ? st.board.diceCaption(g) : null;
    dice.append(h('span', { id: 'dice-caption' }, caption || `${seatLabel(g, d.seat)} rolled:`));
    for (const f of faces || d.values.map((v) => ({ value: v }))) dice.append(dieFace(f.value, f));
  }

  function candidates(g) {
    return matchMoves(g.legal_moves.map((m) => ({ move: m, hops: st.board.hops(g, m) })), st.hops);
  }

  function render() {
    const g = st.replay !== null && st.replayGame ? st.replayGame : st.game;
    if (!g) return;
    const live = st.replay === null;
    main.setAttribute('data-version', String(st.game.version));
    main.setAttribute('data-status', st.game.status);
    main.setAttribute('data-my-turn', live && myTurn(g) ? 'true' : 'false');
    title.textContent = `${titleOf(g.variant)} ${shortId(g.id)}`;
    status.textContent = live ? statusText(g) : `Replay: the game after event ${st.replay} of ${st.game.version}.`;
    status.className = `status${live && myTurn(g) ? ' mine' : ''}`;
    renderDice(g);
    renderSeats(st.game);
    extra.replaceChildren(...(st.board && st.board.extra ? [st.board.extra(g)].flat().filter(Boolean) : []));
    if (st.game.deadline) extra.append(h('p', { class: 'deadline' }, `Deadline: ${deadlineText(st.game.deadline)}`));
    resignBtn.hidden = !(live && g.status === 'active' && mySeats(g).length);
    slider.max = String(Math.max(1, st.game.version));
    slider.value = String(live ? st.game.version : st.replay);
    replayLabel.textContent = live ? `live (event ${st.game.version})` : `event ${st.replay} of ${st.game.version}`;
    liveBtn.disabled = live;

    if (!st.board) { renderGeneric(g, live && myTurn(g) && !st.busy); return; }
    const interactive = live && myTurn(g) && !st.busy;
    const cands = interactive ? candidates(g) : [];
    const display = interactive && st.hops.length && st.board.tentative ? st.board.tentative(g, st.hops) : g;
    const focusedKey = document.activeElement && document.activeElement.closest && document.activeElement.closest('svg [data-key]');
    const fk = focusedKey ? focusedKey.getAttribute('data-key') : null;
    // The other seats' moves since mine, marked on the board (fetched once per version).
    const last = lastMoves(g, mySeats(g), { get: (p) => api('GET', p), onReady: () => { if (!st.busy && !st.closed) render(); } });
    const svg = st.board.draw(display, { me: mySeats(g), last });
    boardWrap.replaceChildren(svg);
    selInfo.replaceChildren();
    if (!interactive || !svg.querySelectorAll) return;

    const ch = choices(cands, st.source);
    let { sources } = ch;
    if (st.board.canStart) sources = new Set([...sources].filter((k) => st.board.canStart(display, k)));
    const { targets } = ch;
    const byKey = (attr, key) => [...svg.querySelectorAll(`[${attr}]`)].filter((e) => e.getAttribute(attr) === key);
    const describe = (k) => (st.board.describeKey ? st.board.describeKey(display, k) : k);
    const activate = (e, key, kind) => {
      e.classList.add(kind === 'piece' ? 'movable' : 'target');
      e.setAttribute('tabindex', '0');
      e.setAttribute('role', 'button');
      e.setAttribute('data-key', `${kind}:${key}`);
      e.setAttribute('aria-label', kind === 'piece' ? `${describe(key)}${st.source === key ? ' (selected)' : ''}: select to move`
        : `move to ${describe(key)}`);
    };
    for (const k of sources) {
      const els = byKey('data-piece', k);
      els.forEach((e) => e.classList.add('movable'));
      if (els.length) activate(els[els.length - 1], k, 'piece');
      if (k === st.source) els.forEach((e) => e.classList.add('selected'));
    }
    for (const k of targets) {
      const els = byKey('data-target', k);
      els.forEach((e) => e.classList.add('target'));
      if (els.length) activate(els[els.length - 1], k, 'target');
    }
    const handle = (node) => {
      for (let e = node; e && e !== svg.parentNode; e = e.parentNode) {
        if (!e.getAttribute) continue;
        const t = e.getAttribute('data-target');
        if (st.source && t !== null && targets.has(t)) { pickTarget(t, cands); return true; }
        const p = e.getAttribute('data-piece');
        if (p !== null && sources.has(p)) { st.source = st.source === p ? null : p; render(); focusFirst(); return true; }
      }
      return false;
    };
    svg.addEventListener('click', (ev) => { if (!handle(ev.target) && st.source) { st.source = null; render(); } });
    svg.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' || ev.key === ' ') { if (handle(ev.target)) ev.preventDefault(); }
      if (ev.key === 'Escape') cancelSelection();
    });
    const parts = [];
    if (st.hops.length || st.source) {
      parts.push(h('button', { type: 'button', class: 'secondary', id: 'cancel-move', onclick: cancelSelection }, 'Undo / cancel'));
    }
    // Moves the board shows no clicks for (decisions, e.g. backgammon's double) are buttons.
    const decisions = st.hops.length || st.source ? [] : g.legal_moves.filter((m) => st.board.hops(g, m).length === 0);
    const msg = st.source ? `Selected ${describe(st.source)}: now choose where it goes.`
      : st.hops.length ? 'Go on: choose the next checker to move.'
        : sources.size ? 'Choose a piece to move (highlighted).' : 'Choose:';
    selInfo.append(h('div', { class: 'row' }, h('span', { class: 'help', id: 'hint' }, msg), ...parts));
    if (decisions.length) {
      selInfo.append(h('div', { class: 'row', id: 'decisions', role: 'group', 'aria-label': 'Decisions' },
        ...decisions.map((m, i) => h('button', { type: 'button', class: 'secondary', 'data-decision': i, onclick: () => play(m) },
          st.board.describe ? st.board.describe(g, m) : JSON.stringify(m)))));
    }
    if (st.chooser) {
      selInfo.append(h('div', { class: 'chooser', id: 'chooser', role: 'group', 'aria-label': 'Choose a move' },
        h('p', {}, 'These moves fit your clicks. Which one?'),
        ...st.chooser.map((c, i) => h('button', { type: 'button', 'data-choice': i, onclick: () => play(c.move) },
          st.board.describe ? st.board.describe(g, c.move) : JSON.stringify(c.move)))));
    }
    if (fk) {
      const again = svg.querySelector(`[data-key="${CSS.escape(fk)}"]`);
      if (again) again.focus();
    }
  }

  // The view of a game without a board module: the state as JSON, and while it is my
  // turn one button per legal move.
  function renderGeneric(g, interactive) {
    const moves = interactive ? g.legal_moves || [] : [];
    boardWrap.replaceChildren(h('div', { class: 'generic', id: 'generic-board' },
      h('pre', { class: 'mono state', 'aria-label': 'Game state' }, JSON.stringify(g.state, null, 1)),
      moves.length ? h('div', { class: 'moves', id: 'moves', role: 'group', 'aria-label': 'Legal moves' },
        h('p', { class: 'help' }, 'Your move: choose one.'),
        ...moves.map((m, i) => h('button', { type: 'button', class: 'secondary', 'data-move': i, onclick: () => play(m) },
          JSON.stringify(m)))) : null));
    selInfo.replaceChildren();
  }

  function focusFirst() {
    const t = boardWrap.querySelector('.target[tabindex]') || boardWrap.querySelector('.movable[tabindex]');
    if (t && document.activeElement && boardWrap.contains(document.activeElement)) t.focus();
  }

  function cancelSelection() {
    st.hops = []; st.source = null; st.chooser = null;
    render();
  }

  function pickTarget(t, cands) {
    st.hops.push({ from: st.source, to: t });
    st.source = null;
    const d = decide(candidates(st.game));
    if (d.kind === 'play') { play(d.move); return; }
    if (d.kind === 'choose') {
      st.chooser = d.moves.map((move) => ({ move }));
      render();
      const b = selInfo.querySelector('#chooser button');
      if (b) b.focus();
      return;
    }
    if (d.kind === 'none') { st.hops = []; toast('That is not a legal move.'); }
    render();
    focusFirst();
    void cands;
  }

  async function play(move) {
    if (st.busy) return;
    const hadFocus = boardWrap.contains(document.activeElement) || selInfo.contains(document.activeElement);
    st.busy = true;
    st.chooser = null;
    boardWrap.setAttribute('data-busy', 'true');
    render();
    try {
      const g = await api('POST', `/v1/games/${id}/moves`, { body: { move }, headers: { 'if-match': `"${st.game.version}"` } });
      st.busy = false;
      boardWrap.removeAttribute('data-busy');
      show(g);
    } catch (e) {
      st.busy = false;
      boardWrap.removeAttribute('data-busy');
      toast(e.message);
      st.hops = []; st.source = null; st.chooser = null;
      await refresh();
    }
    if (hadFocus) {
      const t = boardWrap.querySelector('.movable[tabindex], [data-move]');
      if (t) t.focus(); else main.focus();
    }
  }

  async function resign() {
    if (!confirm('Resign this game?')) return;
    try { show(await api('POST', `/v1/games/${id}/resign`, { body: {} })); } catch (e) { toast(e.message); }
  }

  let replayToken = 0;
  async function setReplay(n) {
    if (n === null || n >= st.game.version) { st.replay = null; st.replayGame = null; render(); return; }
    st.replay = n;
    const my = ++replayToken;
    try {
      const g = await api('GET', `/v1/games/${id}/state?at=${n}`, { auth: false });
      if (my !== replayToken) return;
      st.replayGame = g;
      render();
      try {
        const ev = await api('GET', `/v1/games/${id}/events?after=${n - 1}&limit=1`, { auth: false });
        if (my === replayToken && ev.events[0]) replayLabel.textContent = `event ${n} of ${st.game.version}: ${ev.events[0].type.replace(/_/g, ' ')}`;
      } catch { /* the label is only a nicety */ }
    } catch (e) { toast(e.message); }
  }
  slider.addEventListener('input', () => setReplay(Number(slider.value)));

  function show(g) {
    if (!g || st.closed) return;
    const changed = !st.game || g.version !== st.game.version;
    st.game = g;
    if (changed) { st.hops = []; st.source = null; st.chooser = null; }
    render();
  }

  async function refresh() {
    try {
      const g = await api('GET', `/v1/games/${id}`, { headers: st.game ? { 'if-none-match': `"${st.game.version}"` } : {} });
      if (g) show(g);
    } catch (e) {
      if (e.status === 404) { status.textContent = 'No such game.'; }
    }
  }

  // Live updates: Server-Sent Events when the server has them, polling otherwise.
  const pollMs = Number(localStorage.getItem('worp.pollMs')) || 2000;
  function startPolling() {
    if (st.timer || st.closed) return;
    st.timer = setInterval(refresh, pollMs);
  }
  function startLive() {
    if (!('EventSource' in window) || localStorage.getItem('worp.noStream')) { startPolling(); return; }
    let opened = false;
    const es = new EventSource(`/v1/games/${id}/stream`);
    st.es = es;
    let pending = false;
    const onEvent = () => {
      if (pending) return;
      pending = true;
      setTimeout(() => { pending = false; refresh(); }, 30);
    };
    for (const t of EVENT_TYPES) es.addEventListener(t, onEvent);
    es.addEventListener('open', () => {
      opened = true;
      if (st.timer) { clearInterval(st.timer); st.timer = null; }
      refresh();
    });
    es.addEventListener('error', () => {
      if (!opened || es.readyState === EventSource.CLOSED) { es.close(); st.es = null; startPolling(); }
    });
    // A slow safety net in case a stream message is missed.
    st.slow = setInterval(() => { if (!st.timer) refresh(); }, 15000);
  }

  cleanup = () => {
    st.closed = true;
    for (const a of ['data-version', 'data-status', 'data-my-turn']) main.removeAttribute(a);
    if (st.es) st.es.close();
    if (st.timer) clearInterval(st.timer);
    if (st.slow) clearInterval(st.slow);
  };

  const g = await api('GET', `/v1/games/${id}`, { auth: false });
  await variants();
  st.board = await boardFor(g.variant);
  st.info = await variantInfo(g.variant);
  show(g);
  startLive();
}

// ---------------------------------------------------------------- start

showWho();
route();
