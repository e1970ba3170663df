// GNU Backgammon's analysis of a finished backgammon game or match, on its page beside
// the replay (`GET /v1/games/{id}/analysis`). A button asks for it (the first read makes
// the server analyse the game, which costs it a few seconds of gnubg: not done for every
// visit); while the server answers 202 the card says "Analysing…" and asks again every
// 2 s, until the page is left. Then each player's figures, and every decision with its
// mark (a symbol and a word), the played choice, the best and the equity lost. Choosing
// one sets the replay to the position before it: the board draws the move played and
// the best one (`ctx.review`, boards/backgammon.js) and the box under the board says both.
import { h, api } from './core.js';
import { el } from './boards/common.js';

const SIDES = ['white', 'black'];
const NAME = { white: 'White', black: 'Black' };
/** gnubg's marks, each shown as a symbol and a word, never by colour alone. */
export const MARKS = {
  blunder: { symbol: '??', word: 'blunder', plural: 'Blunders' },
  error: { symbol: '?', word: 'error', plural: 'Errors' },
  doubtful: { symbol: '?!', word: 'doubtful', plural: 'Doubtful' },
};
const POLL_MS = 2000;

/** A mark as the page shows it: "?? blunder". */
function markLabel(mark) {
  const m = MARKS[mark];
  return h('span', { class: `mark mark-${mark}` }, h('span', { 'aria-hidden': 'true' }, m.symbol), ` ${m.word}`);
}

/**
 * gnubg's notation, written from the decider's side (`decider`, "white" or "black"), in
 * the count of `view`: the numbers on the board the viewer sees ("24/20(2)", "13/10*",
 * "bar/22" and "6/off" keep their shape).
 */
export function inCount(text, decider, view) {
  if (decider === view) return text;
  return text.replace(/(^|[\s/])(\d+)/g, (m, pre, n) => `${pre}${25 - Number(n)}`);
}

/** The same move, written in another order ("13/8 6/4" and "6/4 13/8"). */
function sameText(a, b) {
  const norm = (t) => t.trim().split(/\s+/).sort().join(' ');
  return norm(a) === norm(b);
}

/** Whether two lists of steps are the same steps, in any order. */
export function sameSteps(a, b) {
  const key = (steps) => steps.map((s) => `${s.from}/${s.to}`).sort().join(' ');
  return !!a && !!b && key(a) === key(b);
}

/** A sample of how the board draws a move (`played` or `best`), for the legend. */
function sample(kind) {
  return el('svg', { class: `line-sample ${kind}-sample`, viewBox: '0 0 32 12', width: 32, height: 12, 'aria-hidden': 'true' },
    el('line', { class: `${kind}-arrow`, x1: 2, y1: 6, x2: 30, y2: 6 }));
}

/**
 * The analysis card (`el`, for the side panel) and the box that says the decision under
 * review (`detail`, under the board). `mySeats()` are the viewer's seats; `setReplay(n)`
 * shows the game after event n; `redraw()` draws the page again (the played move's steps
 * are read from the log when first wanted). Each drawing asks `review(step)` what to
 * draw on the board.
 */
export function analysisPanel({ id, mySeats, setReplay, redraw }) {
  const st = { game: null, data: null, flat: [], selected: null, timer: null, closed: false, busy: false, played: new Map(), shown: null, step: null };
  const heading = h('h2', { id: 'analysis-h', tabindex: '-1' }, 'Analysis');
  const button = h('button', { type: 'button', id: 'analyse', onclick: () => { if (!st.busy) ask(); } }, 'Analyse with GNU Backgammon');
  const status = h('p', { id: 'analysis-status', role: 'status' });
  const figures = h('div', { id: 'analysis-figures' });
  const note = h('p', { class: 'help', id: 'analysis-note', role: 'status' });
  const jump = (mark, dir, label) => h('button', { type: 'button', class: 'secondary small', id: `${dir > 0 ? 'next' : 'prev'}-${mark}`,
    onclick: () => jumpTo(mark, dir) }, label);
  const jumps = h('div', { class: 'row jumps', id: 'analysis-jumps', role: 'group', 'aria-label': 'Jump to marked moves', hidden: true },
    jump('blunder', -1, 'Previous blunder'), jump('blunder', 1, 'Next blunder'),
    jump('error', -1, 'Previous error'), jump('error', 1, 'Next error'));
  const moves = h('div', { id: 'analysis-moves', class: 'analysis-moves', hidden: true });
  const card = h('section', { class: 'card analysis', id: 'analysis', 'aria-labelledby': 'analysis-h', 'data-state': 'idle', hidden: true },
    heading,
    h('p', { class: 'help' }, 'GNU Backgammon replays the game and judges every move: how much equity each one lost against the best, marked ',
      markLabel('doubtful'), ', ', markLabel('error'), ' or ', markLabel('blunder'), '.'),
    button, status, figures, jumps, note, moves);
  // Always there (a live region must be there before it speaks); empty when no decision is shown.
  const detail = h('div', { id: 'analysis-move', 'aria-live': 'polite' });

  // The viewer's count: a player's own, a spectator's White's (as the board numbers it).
  const countFor = (decider) => {
    const mine = mySeats();
    if (mine.length === 1) return SIDES[mine[0]];
    return mine.length === 2 ? decider : 'white';
  };
  const seatName = (seat) => {
    const s = (st.game && st.game.seats[seat]) || {};
    const who = mySeats().includes(seat) ? 'you' : s.name || s.bot || null;
    return `${NAME[SIDES[seat]]}${who ? ` (${who})` : ''}`;
  };

  async function ask() {
    if (st.closed) return;
    clearTimeout(st.timer);
    st.busy = true;
    button.setAttribute('aria-disabled', 'true');
    let view;
    try {
      view = await api('GET', `/v1/games/${encodeURIComponent(id)}/analysis`);
    } catch (e) {
      if (st.closed) return;
      // A busy or unreachable server is asked again; a refusal (no GNU Backgammon here) is said.
      if ((e.status === 0 || e.status === 408 || e.status === 429 || e.status >= 500) && card.dataset.state === 'pending') {
        st.timer = setTimeout(ask, Math.max(POLL_MS, (e.retryAfter || 0) * 1000));
        return;
      }
      st.busy = false;
      button.removeAttribute('aria-disabled');
      card.dataset.state = 'refused';
      status.textContent = e.message;
      return;
    }
    if (st.closed) return;
    if (view.state === 'pending') {
      card.dataset.state = 'pending';
      status.textContent = 'Analysing…';
      st.timer = setTimeout(ask, POLL_MS);
      return;
    }
    st.busy = false;
    const hadFocus = document.activeElement === button;
    button.hidden = true;
    if (view.state === 'failed' || !view.analysis) {
      card.dataset.state = 'failed';
      status.textContent = `GNU Backgammon could not analyse this game${view.error ? `: ${view.error}` : ''}.`;
    } else {
      st.data = view.analysis;
      build();
      card.dataset.state = 'ready';
      const count = (m, one, many) => { const n = st.flat.filter((x) => x.d.mark === m).length; return `${n} ${n === 1 ? one : many}`; };
      status.textContent = `Analysed (${st.data.plies}-ply): ${st.flat.length} decisions; ${count('blunder', 'blunder', 'blunders')}, `
        + `${count('error', 'error', 'errors')}, ${count('doubtful', 'doubtful move', 'doubtful moves')}.`;
    }
    if (hadFocus) heading.focus();
  }

  function build() {
    const a = st.data;
    const rows = [
      ['Error rate (mEMG)', 'error_rate_memg', (p) => p.error_rate_memg.toFixed(1)],
      ['PR', 'pr', (p) => p.pr.toFixed(1)],
      ['Rating', 'rating', (p) => p.rating],
      [markLabel('doubtful'), 'doubtful', (p) => p.doubtful],
      [markLabel('error'), 'errors', (p) => p.errors],
      [markLabel('blunder'), 'blunders', (p) => p.blunders],
      ['Unforced moves', 'unforced_moves', (p) => p.unforced_moves],
    ];
    const players = [...a.players].sort((x, y) => x.seat - y.seat);
    figures.replaceChildren(h('table', { class: 'table figures', id: 'analysis-figures-table' },
      h('caption', {}, 'Figures (lower error rate and PR are better)'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Figure'), ...players.map((p) => h('th', { scope: 'col' }, seatName(p.seat))))),
      h('tbody', {}, ...rows.map(([label, key, value]) => h('tr', { 'data-figure': key },
        h('th', { scope: 'row' }, label), ...players.map((p) => h('td', { 'data-seat': p.seat }, String(value(p)))))))));
    st.flat = [];
    const lists = a.games.map((game) => {
      const ol = h('ol', { class: 'decisions', 'aria-label': a.games.length > 1 ? `Decisions of game ${game.number}` : 'Decisions' });
      game.decisions.forEach((d, i) => {
        const x = { d, game: game.number, n: i + 1, index: st.flat.length };
        x.button = decisionButton(x);
        st.flat.push(x);
        ol.append(h('li', {}, x.button));
      });
      return a.games.length > 1 ? [h('h3', {}, `Game ${game.number}`), ol] : [ol];
    });
    moves.replaceChildren(...lists.flat());
    moves.hidden = false;
    jumps.hidden = false;
    for (const mark of ['blunder', 'error']) {
      const none = !st.flat.some((x) => x.d.mark === mark && x.d.version != null);
      for (const b of jumps.querySelectorAll(`[id$="-${mark}"]`)) b.disabled = none;
    }
    // Up and down go from one decision to the next.
    moves.addEventListener('keydown', (ev) => {
      if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
      const all = [...moves.querySelectorAll('button.decision:not(:disabled)')];
      const i = all.indexOf(document.activeElement);
      if (i < 0) return;
      const next = all[i + (ev.key === 'ArrowDown' ? 1 : -1)];
      if (next) { next.focus(); ev.preventDefault(); }
    });
  }

  /** What a decision says: who, the dice, the played choice, and the best in the viewer's count. */
  function words(d) {
    const side = SIDES[d.seat];
    const view = countFor(side);
    const played = inCount(d.played, side, view);
    const best = inCount(d.best, side, view);
    const dice = d.kind === 'checkers' && d.dice && d.dice.length ? d.dice.join('-') : null;
    return { side, played, best, dice, same: sameText(played, best) };
  }

  function decisionButton(x) {
    const { d } = x;
    const w = words(d);
    const bestLine = d.forced ? 'forced: the only move'
      : w.same ? 'the best move' : `best ${w.best}, lost ${d.equity_lost.toFixed(3)}`;
    return h('button', { type: 'button', class: `decision${d.mark ? ` mark-${d.mark}` : ''}`, 'data-index': x.index,
      'data-version': d.version ?? '', 'data-mark': d.mark || '', 'data-kind': d.kind, disabled: d.version === null || d.version === undefined,
      onclick: () => select(x.index) },
    h('span', { class: 'decision-head' }, `${x.n}. ${NAME[w.side]}${w.dice ? ` ${w.dice}` : ''}: `, h('span', { class: 'played' }, w.played),
      d.mark ? [' ', markLabel(d.mark)] : null),
    h('span', { class: 'decision-best' }, bestLine));
  }

  function select(i) {
    const x = st.flat[i];
    if (!x || x.d.version === null || x.d.version === undefined) return;
    st.selected = i;
    highlight();
    note.textContent = '';
    setReplay(Math.max(1, x.d.version - 1));
  }

  function jumpTo(mark, dir) {
    if (!st.flat.length) return;
    // From the decision shown, else from the replay's step (else from an end).
    let from = st.selected;
    if (from === null) {
      const after = st.step === null ? -1 : st.flat.findIndex((x) => x.d.version - 1 > st.step);
      const pos = after < 0 ? st.flat.length : after;
      from = st.step === null ? (dir > 0 ? -1 : st.flat.length) : dir > 0 ? pos - 1 : pos;
    }
    for (let i = from + dir; i >= 0 && i < st.flat.length; i += dir) {
      if (st.flat[i].d.mark === mark && st.flat[i].d.version !== null && st.flat[i].d.version !== undefined) { select(i); return; }
    }
    note.textContent = `No ${MARKS[mark].word} ${dir > 0 ? 'after' : 'before'} this move.`;
  }

  // The chosen decision stands out (aria-current, a border and bold), scrolled into the list's view.
  function highlight() {
    for (const x of st.flat) {
      if (x.index === st.selected) x.button.setAttribute('aria-current', 'true'); else x.button.removeAttribute('aria-current');
    }
    const x = st.selected === null ? null : st.flat[st.selected];
    if (!x) return;
    const b = x.button;
    if (b.offsetTop < moves.scrollTop) moves.scrollTop = b.offsetTop;
    else if (b.offsetTop + b.offsetHeight > moves.scrollTop + moves.clientHeight) moves.scrollTop = b.offsetTop + b.offsetHeight - moves.clientHeight;
  }

  /** The steps played at `version`, read from the log once (`null` until then). */
  function playedSteps(version) {
    const hit = st.played.get(version);
    if (hit) return hit.steps;
    const entry = { steps: null };
    st.played.set(version, entry);
    api('GET', `/v1/games/${encodeURIComponent(id)}/events?after=${version - 1}&limit=1`, { auth: false }).then((page) => {
      const e = page && page.events && page.events[0];
      entry.steps = (e && e.payload && e.payload.move && e.payload.move.steps) || [];
      if (!st.closed) redraw();
    }, () => { st.played.delete(version); });
    return null;
  }

  function showDetail(x, played) {
    const key = x ? `${x.index}:${played ? 'steps' : ''}` : null;
    if (key === st.shown) return;
    st.shown = key;
    if (!x) { detail.replaceChildren(); return; }
    const { d } = x;
    const w = words(d);
    const lost = d.equity_lost.toFixed(3);
    const games = st.data.games.length > 1 ? ` of game ${x.game}` : '';
    const what = d.kind === 'checkers' ? (w.dice ? ` rolled ${w.dice}` : '') : d.kind === 'cube' ? ': to double or not' : ': to take or pass';
    const drawn = d.kind === 'checkers'
      ? (w.same ? 'The board shows the position before the move, the move played (the best) in orange.'
        : 'The board shows the position before the move: the move played in solid orange, the best in dashed blue.')
      : 'A cube decision: the board shows the position before it.';
    detail.replaceChildren(h('section', { class: 'card review', id: 'review', 'aria-labelledby': 'review-h' },
      h('h2', { id: 'review-h' }, `Move ${x.n}${games}: ${seatName(d.seat)}${what}`),
      h('p', { id: 'review-mark' }, d.mark ? markLabel(d.mark) : h('span', { class: 'mark' }, 'No mark'),
        d.forced ? ': forced, the only move.' : `: ${lost} equity lost (EMG) against the best.`),
      h('ul', { class: 'plain review-legend', 'aria-label': 'Played and best' },
        h('li', {}, d.kind === 'checkers' ? sample('played') : null, ' played: ', h('span', { class: 'mono', id: 'review-played' }, w.played)),
        h('li', {}, d.kind === 'checkers' && !w.same ? sample('best') : null, ' best: ', h('span', { class: 'mono', id: 'review-best' }, w.best))),
      h('p', { class: 'help' }, `${drawn} Points are numbered as on the board.`)));
  }

  return {
    el: card,
    detail,
    /** Shows the card for a finished backgammon game. */
    update(g) {
      st.game = g;
      card.hidden = !(g && g.variant === 'backgammon' && g.status === 'finished');
    },
    /**
     * The decision under review when the replay shows the game after event `step` (null:
     * live): the one chosen if it was made next, else the checker play made next. Says it
     * under the board; returns what the board draws (`{seat, played, best, same}`) or null.
     */
    review(step) {
      st.step = step;
      if (!st.data) return null;
      let x = null;
      if (step !== null) {
        const chosen = st.selected === null ? null : st.flat[st.selected];
        if (chosen && chosen.d.version - 1 === step) x = chosen;
        else {
          const next = st.flat.filter((y) => y.d.version - 1 === step);
          x = next.find((y) => y.d.kind === 'checkers') || next[0] || null;
        }
      }
      if ((x ? x.index : null) !== st.selected) { st.selected = x ? x.index : null; highlight(); }
      if (!x || x.d.kind !== 'checkers') { showDetail(x, null); return null; }
      const played = playedSteps(x.d.version);
      showDetail(x, played);
      return { seat: x.d.seat, best: x.d.best_steps || [], played, same: played ? sameSteps(played, x.d.best_steps || []) : false };
    },
    /** The page is left: no more asking. */
    close() { st.closed = true; clearTimeout(st.timer); },
  };
}
