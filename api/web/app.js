// Worp's reference web client. Plain ES modules, no framework; it uses only the public
// v1 API (the same calls any third-party client makes). This file routes between the
// pages (each in its own module) and draws a game's page.
import { dieFace } from './boards/common.js';
import { matchMoves, choices, decide } from './match.js';
import { h, toast, account, onAccount, onSessionEnded, loadSession, signOut, api, variants, variantInfo, bots, titleOf, deadlineText, playerLink, fmtTime, ENDINGS } from './core.js';
import { homeView } from './home.js';
import { newGameView } from './newgame.js';
import { joinView } from './join.js';
import { lobbyView, playerView, leaderboardView } from './players.js';
import { tournamentsView, tournamentView } from './tournaments.js';
import { notFound, finishedPanel, chatPanel, matchOver } from './gamepanels.js';
import { lastMoves } from './last_move.js';
import { analysisPanel } from './analysis.js';
import { accountForm } from './signin.js';
import { accountView } from './account.js';
import { consentView } from './consent.js';
import { muteToggle } from './notifications.js';
import { registerServiceWorker } from './devices.js';

// The `event:` names of a game's stream: the kinds of the stored events.
const EVENT_TYPES = ['game_created', 'seat_taken', 'invitation_declined', 'dice_rolled', 'move_played', 'seat_retired', 'game_finished', 'message_posted', 'vacation_started', 'vacation_ended'];

const main = document.getElementById('main');
let cleanup = () => {};
const setCleanup = (fn) => { cleanup = fn; };

function showWho() {
  const who = document.getElementById('who');
  const a = account();
  who.replaceChildren();
  if (a) {
    who.append(h('span', { class: 'who-label' }, 'Signed in as '), h('a', { href: `#/player/${a.id}`, id: 'who-name' }, a.name), ' ',
      h('a', { href: '#/account', id: 'account-link' }, 'Account'), ' ',
      h('button', { class: 'secondary small', type: 'button', id: 'sign-out', onclick: async () => {
        // A token kept only here is gone once forgotten; a session is signed in again with the password.
        if (a.token && !confirm('Sign out? Your token is only stored in this browser; copy it first, or set a password on your account page, if you want to come back.')) return;
        try { await signOut(); } catch (e) { toast(e.message); return; }
        toast('Signed out.');
        toHome();
      } }, 'Sign out'));
  }
}
onAccount(showWho);
/** After signing out: the home page (the consent screen stays, to sign in again). */
function toHome() {
  if (location.pathname !== '/oauth/authorize' && location.hash.replace(/^#\/?/, '')) location.hash = '#/';
  else route();
}
onSessionEnded(() => route());

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

// ---------------------------------------------------------------- routing

function route() {
  cleanup();
  cleanup = () => {};
  // The consent screen of OAuth is served at /oauth/authorize; a link of the menu leaves it
  // for the client's own pages.
  const consent = location.pathname === '/oauth/authorize';
  if (consent && location.hash.replace(/^#\/?/, '')) { location.assign(`/${location.hash}`); return; }
  const path = location.hash.replace(/^#\/?/, '').split('?')[0];
  const parts = path.split('/').filter(Boolean);
  const view = parts[0] || '';
  main.replaceChildren();
  const ctx = { accountForm: (opts) => accountForm(() => route(), opts), setCleanup, route, toHome };
  for (const a of document.querySelectorAll('.top nav a, #account-link')) {
    if (!consent && a.getAttribute('href') === `#/${view}`) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  let p;
  if (consent) p = consentView(main, ctx);
  else if (view === 'game' && parts[1]) p = gameView(parts[1]);
  else if (view === 'join' && parts[1] && /^\d+$/.test(parts[2] || '')) p = joinView(main, parts[1], Number(parts[2]), ctx);
  else if (view === 'new') p = newGameView(main, ctx);
  else if (view === 'lobby') p = lobbyView(main, ctx);
  else if (view === 'leaderboard') p = leaderboardView(main, ctx);
  else if (view === 'tournaments') p = tournamentsView(main, ctx);
  else if (view === 'tournament' && parts[1]) p = tournamentView(main, parts[1], ctx);
  else if (view === 'player' && parts[1]) p = playerView(main, parts[1], ctx);
  else if (view === 'account') p = accountView(main, ctx);
  else p = homeView(main, ctx);
  Promise.resolve(p).catch((e) => {
    main.append(h('p', { class: 'error', role: 'alert' }, `Error: ${e.message}`));
  });
}
window.addEventListener('hashchange', route);

// ---------------------------------------------------------------- the game

async function gameView(id) {
  const me = account();
  let first;
  try {
    first = await api('GET', `/v1/games/${encodeURIComponent(id)}`, { auth: false });
  } catch (e) {
    if (e.status === 404 || e.status === 400) { notFound(main); return; }
    throw e;
  }
  const st = { id, game: null, info: null, board: null, hops: [], source: null, replay: null, replayGame: null,
    busy: false, es: null, timer: null, closed: false, chooser: null, lastVersion: 0, thinkers: new Set() };
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
  const resignBtn = h('button', { type: 'button', class: 'danger', id: 'resign', hidden: true, onclick: resign }, 'Resign');
  const finishedBox = h('div', { id: 'finished-box' });
  const chat = chatPanel(id, () => st.game, () => mySeats(st.game || { seats: [] }));
  const mute = muteToggle(id, me);
  const title = h('h1', { id: 'game-title' }, 'Game');
  // A tournament's game links to its tournament.
  const ofTournament = h('p', { id: 'game-tournament', hidden: true });
  const extra = h('div', { id: 'extra', class: 'legend' });
  // A finished backgammon game's analysis by GNU Backgammon (analysis.js): a card beside
  // the replay, and the decision under review said under the board.
  const analysis = analysisPanel({ id, mySeats: () => mySeats(st.game || { seats: [] }), setReplay: (n) => setReplay(n),
    redraw: () => { if (!st.busy && !st.closed) render(); } });
  main.append(title, ofTournament, h('div', { class: 'game' },
    h('div', {}, status, boardWrap, selInfo, analysis.detail),
    h('aside', { 'aria-label': 'Game details' },
      finishedBox,
      h('div', { class: 'card' }, dice, extra),
      h('div', { class: 'card' }, h('h2', {}, 'Players'), seatsList),
      mute.el,
      h('div', { class: 'card replay' }, h('h2', {}, 'Replay'),
        slider, h('div', { class: 'row' }, prevBtn, replayLabel, nextBtn), h('p', {}, liveBtn)),
      analysis.el,
      chat.el,
      h('p', {}, resignBtn))));

  const mySeats = (g) => (me ? g.seats.filter((s) => s.player_id === me.id).map((s) => s.seat) : []);
  const myTurn = (g) => g.status === 'active' && g.to_move !== null && g.to_move !== undefined && mySeats(g).includes(g.to_move);

  function seatLabel(g, i) {
    const n = st.board && st.board.seatName ? st.board.seatName(g, i) : null;
    return n || `Player ${i + 1}`;
  }

  function renderSeats(g) {
    seatsList.replaceChildren(...g.seats.map((s) => {
      const colour = st.board && st.board.seatColour ? st.board.seatColour(g, s.seat) : null;
      const link = `${location.origin}${location.pathname}#/join/${g.id}/${s.seat}`;
      let who;
      if (s.bot) who = `bot (${typeof s.bot === 'string' ? s.bot : JSON.stringify(s.bot)})`;
      else if (s.player_id && me && s.player_id === me.id) who = playerLink(s.player_id, 'you');
      else if (s.player_id) who = playerLink(s.player_id, s.name);
      else if (s.invited) who = h('span', {}, playerLink(s.invited, s.invited_name), ' (invited)');
      else who = 'open';
      const li = h('li', { 'data-seat': s.seat },
        h('span', {}, colour ? h('span', { class: 'swatch', style: `background:${colour}`, 'aria-hidden': 'true' }) : null,
          h('strong', {}, seatLabel(g, s.seat)), ': ', who, s.retired ? ' (retired)' : '',
          s.vacation_until ? [' ', h('span', { class: 'badge vacation' }, `On vacation until ${fmtTime(s.vacation_until)}`)] : null,
          g.to_move === s.seat && g.status === 'active' ? [' ', h('span', { class: 'badge turn' }, 'to move')] : null));
      if (me && s.invited === me.id && g.status === 'waiting') {
        li.append(h('a', { class: 'button answer-challenge', href: `#/join/${g.id}/${s.seat}` }, 'Answer the challenge'));
      }
      if (!s.player_id && !s.bot && !s.invited && g.status === 'waiting') {
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
      if (r.winner === null || r.winner === undefined) return 'Game over: a draw.';
      const s = g.seats[r.winner];
      const name = mySeats(g).includes(r.winner) ? 'you' : s && (s.name || (s.bot ? 'the computer' : null));
      const label = seatLabel(g, r.winner);
      const m = matchOver(g);
      if (m) {
        const side = r.winner === 0 ? 'white' : 'black';
        const otherSide = r.winner === 0 ? 'black' : 'white';
        return `Match over: ${name ? `${name} (${label})` : label} won the match ${m.score[side]}–${m.score[otherSide]}.`;
      }
      return `Game over: ${name ? `${name} (${label})` : label} ${ENDINGS[r.ending] || 'won'}${r.points > 1 ? ` (${r.points} points)` : ''}.`;
    }
    if (myTurn(g)) return `Your move (${seatLabel(g, g.to_move)}).`;
    if (g.to_move !== null && g.to_move !== undefined) {
      const s = g.seats[g.to_move];
      const name = s && (s.name || (s.bot ? 'the computer' : null));
      // A bot that thinks moves a moment later, in the background: its move comes by the stream.
      const thinking = s && s.bot && st.thinkers.has(s.bot) ? ` (${s.bot}) is thinking…` : null;
      if (thinking) return `Waiting for the computer: ${seatLabel(g, g.to_move)}${thinking}`;
      return `Waiting for ${name ? `${name} (${seatLabel(g, g.to_move)})` : seatLabel(g, g.to_move)}.`;
    }
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
    title.textContent = `${titleOf(g.variant)}: ${gameNames(st.game)}`;
    const tt = st.game.tournament;
    if (tt && ofTournament.hidden) {
      ofTournament.replaceChildren(h('a', { href: `#/tournament/${tt.tournament_id}` }, `Round ${tt.round}, table ${tt.table} of a tournament`));
      ofTournament.hidden = false;
    }
    status.textContent = live ? statusText(g) : `Replay: the game after step ${st.replay} of ${st.game.version}.`;
    status.className = `status${live && myTurn(g) ? ' mine' : ''}`;
    renderDice(g);
    renderSeats(st.game);
    mute.update(st.game);
    extra.replaceChildren(...(st.board && st.board.extra ? [st.board.extra(g)].flat().filter(Boolean) : []));
    if (st.game.deadline) extra.append(h('p', { class: 'deadline' }, `Deadline: ${deadlineText(st.game.deadline)}`));
    resignBtn.hidden = !(live && g.status === 'active' && mySeats(g).length);
    slider.max = String(Math.max(1, st.game.version));
    slider.value = String(live ? st.game.version : st.replay);
    // A finished game has no "now": its newest step is the end.
    const over = st.game.status === 'finished';
    replayLabel.textContent = live ? (over ? `the end (step ${st.game.version})` : `now (step ${st.game.version})`) : `step ${st.replay} of ${st.game.version}`;
    liveBtn.textContent = over ? 'To the end' : 'Live';
    liveBtn.hidden = live;

    if (!st.board) { renderGeneric(g, live && myTurn(g) && !st.busy); return; }
    const interactive = live && myTurn(g) && !st.busy;
    const cands = interactive ? candidates(g) : [];
    const display = interactive && st.hops.length && st.board.tentative ? st.board.tentative(g, st.hops) : g;
    const focusedKey = document.activeElement && document.activeElement.closest && document.activeElement.closest('svg [data-key]');
    const fk = focusedKey ? focusedKey.getAttribute('data-key') : null;
    // A decision of the analysis under review: its move and the best on the position
    // before it; else the other seats' moves since mine (fetched once per version).
    const review = analysis.review(live || !st.replayGame || st.replayGame.version !== st.replay ? null : st.replay);
    const last = review ? undefined : lastMoves(g, mySeats(g), { get: (p) => api('GET', p), onReady: () => { if (!st.busy && !st.closed) render(); } });
    const svg = st.board.draw(display, { me: mySeats(g), last, review });
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
        : sources.size ? 'Choose a piece to move (highlighted).'
          : (st.board.prompt && st.board.prompt(g)) || 'Choose:';
    selInfo.append(h('div', { class: 'row' }, h('span', { class: 'help', id: 'hint' }, msg), ...parts));
    if (decisions.length) {
      const button = (m) => h('button', { type: 'button', class: 'secondary', 'data-decision': decisions.indexOf(m), onclick: () => play(m) },
        st.board.describe ? st.board.describe(g, m) : JSON.stringify(m));
      // Decisions a board calls minor (backgammon's offers to resign) wait behind a toggle.
      const minor = (m) => !!(st.board.minorDecision && st.board.minorDecision(g, m));
      const more = decisions.filter(minor);
      selInfo.append(h('div', { class: 'row', id: 'decisions', role: 'group', 'aria-label': 'Decisions' },
        ...decisions.filter((m) => !minor(m)).map(button),
        // Opened, it stays open through the redrawings of the same turn (a live update
        // of the page must not fold it away under the finger).
        more.length ? h('details', { class: 'more-decisions', open: st.moreOpenAt === g.version,
          ontoggle: (ev) => { st.moreOpenAt = ev.target.open ? g.version : null; } },
          h('summary', {}, st.board.minorDecisionsLabel || 'More'), h('div', { class: 'row' }, ...more.map(button))) : null));
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
        if (my === replayToken && ev.events[0]) replayLabel.textContent = `step ${n} of ${st.game.version}: ${ev.events[0].type.replace(/_/g, ' ')}`;
      } catch { /* the label is only a nicety */ }
    } catch (e) { toast(e.message); }
  }
  slider.addEventListener('input', () => setReplay(Number(slider.value)));

  function show(g) {
    if (!g || st.closed) return;
    // Reads may be answered out of order (a stream event's read, a move's answer): an
    // older state than the one shown is not shown again.
    if (st.game && g.id === st.game.id && g.version < st.game.version) return;
    const changed = !st.game || g.version !== st.game.version;
    // A half-made move survives what leaves the board as it was (a message).
    const boardChanged = !st.game || g.id !== st.game.id || g.board_version !== st.game.board_version;
    st.game = g;
    if (boardChanged) { st.hops = []; st.source = null; st.chooser = null; }
    render();
    if (changed) {
      analysis.update(g);
      finishedBox.replaceChildren(...(g.status === 'finished' ? [finishedPanel(g, (i) => seatLabel(g, i), me)] : []));
      chat.reload();
    }
  }

  // "Alice vs Bob": the players, by name.
  function gameNames(g) {
    return g.seats.map((s) => s.name || s.invited_name || (s.bot ? `bot (${s.bot})` : 'open seat')).join(' vs ');
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
    analysis.close();
    for (const a of ['data-version', 'data-status', 'data-my-turn']) main.removeAttribute(a);
    if (st.es) st.es.close();
    if (st.timer) clearInterval(st.timer);
    if (st.slow) clearInterval(st.slow);
  };

  const g = first;
  await variants();
  st.board = await boardFor(g.variant);
  st.info = await variantInfo(g.variant);
  // Which bots think (move in the background): said in the status while one is to move.
  bots().then((list) => {
    st.thinkers = new Set((list || []).filter((b) => b.thinks).map((b) => b.name));
    if (st.game && !st.closed && !st.busy) render();
  });
  show(g);
  startLive();
}

// ---------------------------------------------------------------- start

// Whether this browser has a session decides what every page shows: asked first.
loadSession().then(() => { showWho(); route(); });
registerServiceWorker();
