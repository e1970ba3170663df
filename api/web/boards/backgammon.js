// Backgammon: 24 points in four quadrants, the bar in the middle, borne-off checkers in
// the tray on the right. The engine counts points for White (seat 0 moves 1 -> 24);
// the page counts them as every backgammon program does: each player from his own home
// board (points 1-6), spectators from White's. The viewer's home board is bottom right;
// on a narrow screen the board is turned a quarter (home bottom left, tray at the
// bottom) so that every point is a touch target of at least 44 px.
import { el, root, overlays, label, touchTargets, markLast, moveMark } from './common.js';
import { gameEnding } from '../core.js';

const SIDE = ['white', 'black'];
const NAME = { white: 'White', black: 'Black' };
const FILL = { white: '#f4efe3', black: '#262626' };
const EDGE = { white: '#3a3a3a', black: '#d9d9d9' };
const LEVEL = { single: 1, gammon: 2, backgammon: 3 };
const CK = 40; // a checker's diameter
const LEFT = 10;
const BAR_WIDTH = 54;
const TRAY = 64;
const HEIGHT = 500;
const TOP = 10;
const BOTTOM = HEIGHT - 10;
const MID = HEIGHT / 2;
const CUBE = 40;

/** The geometry along the board: a point's and the bar's width (wider when turned, for touch). */
function geometry(pitch, bar) {
  const colX = (i) => LEFT + (i < 6 ? i * pitch : 6 * pitch + bar + (i - 6) * pitch);
  const barX = LEFT + 6 * pitch;
  const trayX = LEFT + 12 * pitch + bar + 10;
  return { pitch, bar, colX, barX, trayX, width: trayX + TRAY + 10 };
}

function column(p) {
  return p <= 12 ? 12 - p : p - 13;
}

function sideOf(g) {
  if (g.state && g.state.to_move) return g.state.to_move;
  return SIDE[g.to_move ?? 0];
}
function other(side) { return side === 'white' ? 'black' : 'white'; }
function keyFrom(side, from) { return from === 'bar' ? `bar-${side}` : `p${from}`; }
function keyTo(side, to) { return to === 'off' ? `off-${side}` : `p${to}`; }

/** A point of the engine (White's count, 1-24) in `side`'s own count. */
export function pointFor(side, p) {
  return side === 'white' ? 25 - p : p;
}

/** The side whose numbering and orientation the viewer gets: his own; spectators White's. */
export function viewerSide(g, me = []) {
  const mine = [...new Set(me)].filter((s) => s === 0 || s === 1);
  if (mine.length === 1) return SIDE[mine[0]];
  if (mine.length === 2) return sideOf(g);
  return 'white';
}

/** Each side's pip count: the points its checkers still have to travel to bear off. */
export function pips(s) {
  const out = { white: 25 * ((s.bar && s.bar.white) || 0), black: 25 * ((s.bar && s.bar.black) || 0) };
  s.board.forEach((n, i) => {
    if (n > 0) out.white += n * (24 - i);
    else if (n < 0) out.black += -n * (i + 1);
  });
  return out;
}

/** A step's place in `side`'s count: "bar", "off" or the point. */
function placeName(side, v) {
  return v === 'bar' || v === 'off' ? v : String(pointFor(side, v));
}

/** A checker move in backgammon notation, in `side`'s count ("24/18 13/11"). */
export function notation(side, m) {
  return (m.steps || []).map((s) => `${placeName(side, s.from)}/${placeName(side, s.to)}`).join(' ');
}

function points(n) { return `${n} point${n === 1 ? '' : 's'}`; }

/** What the dice panel says above the dice; the opening roll names who rolled which. */
export function diceCaption(g) {
  const s = g.state || {};
  const d = g.last_dice;
  const game = s.match && s.match.length ? ` of game ${s.match.game}` : '';
  if (s.phase === 'opening_roll' && (!s.dice || !s.dice.length) && !(s.opening_roll && s.opening_roll.white)) {
    return `Opening roll${game}: White rolls one die, then Black.`;
  }
  if (d && d.values.length === 1) {
    const o = s.opening_roll || {};
    if (s.phase === 'opening_roll' && o.white && !o.black) return `Opening roll${game}: White rolled ${o.white}; Black rolls next.`;
    const [w, b] = s.dice && s.dice.length === 2 ? s.dice : [o.white, o.black];
    if (w === b) return `Opening roll${game}: White ${w}, Black ${b}, a tie: both roll again.`;
    const starter = w > b ? 'White' : 'Black';
    return `Opening roll${game}: White rolled ${w}, Black rolled ${b}: ${starter} starts with ${Math.max(w, b)}-${Math.min(w, b)}.`;
  }
  return null;
}

function die(value, side, whose) {
  return { value, fill: FILL[side], ink: side === 'white' ? '#111111' : '#ffffff', label: `${whose} die showing ${value}` };
}

/** "White doubles to 4", "Black offers to resign a gammon (4 points)". */
function offerText(s) {
  const what = s.offer.kind === 'double' ? `doubles to ${s.cube.value * 2}`
    : `offers to resign a ${s.offer.kind.resign} (${points((LEVEL[s.offer.kind.resign] || 1) * s.cube.value)})`;
  return `${NAME[s.offer.by]} ${what}`;
}

export default {
  seatName: (g, i) => (i === 0 ? 'White' : 'Black'),
  seatColour: (g, i) => FILL[SIDE[i]],
  hops(g, m) {
    const side = sideOf(g);
    return (m.steps || []).map((s) => ({ from: keyFrom(side, s.from), to: keyTo(side, s.to) }));
  },
  // The keyboard labels and the hints speak the mover's count: the one who clicks.
  describeKey(g, k) {
    const me = sideOf(g);
    if (k.startsWith('p')) {
      const n = Number(k.slice(1));
      const c = g.state.board[n - 1];
      return `point ${pointFor(me, n)}${c ? ` (${Math.abs(c)} ${c > 0 ? 'white' : 'black'})` : ''}`;
    }
    if (k.startsWith('bar')) return `the bar (${k.slice(4)})`;
    return 'bear off';
  },
  describe(g, m, ctx) {
    const s = g.state || {};
    const v = (s.cube && s.cube.value) || 1;
    if (typeof m === 'string') {
      const offer = s.offer && s.offer.kind && s.offer.kind.resign;
      switch (m) {
        case 'roll': return 'Roll the dice';
        case 'double': return `Double: offer the cube at ${2 * v}`;
        case 'take': return `Take: play on for ${points(2 * v)}, owning the cube`;
        case 'pass': return `Pass: give up this game (${points(v)})`;
        case 'accept': return `Accept the resignation (win ${points((LEVEL[offer] || 1) * v)})`;
        case 'decline': return 'Decline the resignation and play on';
        default: return m;
      }
    }
    if (m && m.resign) return `Offer to resign a ${m.resign} (${points((LEVEL[m.resign] || 1) * v)})`;
    const side = ctx && ctx.me ? viewerSide(g, ctx.me) : sideOf(g);
    return notation(side, m);
  },
  diceCaption,
  // Offers to resign are there every turn: behind a toggle, not beside the roll and the cube.
  minorDecision: (g, m) => !!(m && m.resign),
  minorDecisionsLabel: 'Offer to resign…',
  // The cube's and the match's state, both sides' pip counts, and an offer awaiting
  // its answer.
  extra(g) {
    const s = g.state;
    if (!s || !s.board) return null;
    const out = [];
    const p = pips(s);
    const pc = document.createElement('p');
    pc.id = 'pip-count';
    pc.textContent = `Pip count: White ${p.white}, Black ${p.black}.`;
    out.push(pc);
    if (!s.cube) return out;
    const m = s.match;
    if (m && m.length) {
      const over = g.status === 'finished';
      const sc = document.createElement('p');
      sc.id = 'match-score';
      sc.textContent = over
        ? `Match to ${m.length}, over: White ${m.score.white}, Black ${m.score.black}, in ${m.games.length} game${m.games.length === 1 ? '' : 's'}.`
        : `Match to ${m.length}: White ${m.score.white}, Black ${m.score.black}. Game ${m.game}.`;
      out.push(sc);
      if (m.games && m.games.length) {
        // How each earlier game of the match ended.
        const list = document.createElement('ol');
        list.id = 'match-games';
        list.setAttribute('aria-label', 'Games of the match');
        for (const game of m.games) {
          const li = document.createElement('li');
          li.textContent = gameEnding(game);
          list.append(li);
        }
        out.push(list);
      }
      if (m.crawford && !over) {
        const cr = document.createElement('p');
        cr.id = 'crawford';
        cr.className = 'badge crawford';
        cr.textContent = 'Crawford game: no doubling.';
        out.push(cr);
      }
    }
    const c = document.createElement('p');
    c.id = 'cube-text';
    c.textContent = `Cube: ${s.cube.value}${s.cube.owner ? `, ${NAME[s.cube.owner]}'s` : ', centred'}.`;
    out.push(c);
    if (s.offer) {
      const o = document.createElement('p');
      o.id = 'offer';
      o.className = 'offer';
      o.textContent = `${offerText(s)}: ${NAME[other(s.offer.by)]} to answer.`;
      out.push(o);
    }
    return out;
  },
  // Above the buttons that answer it, the offer itself (on a phone the side panel is
  // further down the page than the buttons).
  prompt(g) {
    const s = g.state || {};
    return s.offer ? `${offerText(s)}. Your answer?` : null;
  },
  // The dice in the colour of who rolled them; the opening roll's one die each.
  diceFaces(g) {
    const s = g.state;
    const d = g.last_dice;
    if (d && d.values.length === 1) {
      const o = s.opening_roll || {};
      if (s.phase === 'opening_roll' && o.white && !o.black) return [die(o.white, 'white', "White's")];
      const [w, b] = s.dice && s.dice.length === 2 ? s.dice : [o.white, o.black];
      return [die(w, 'white', "White's"), die(b, 'black', "Black's")].filter((f) => f.value);
    }
    const dice = s.dice && s.dice.length ? s.dice : d ? d.values : [];
    const side = d ? SIDE[d.seat] || sideOf(g) : sideOf(g);
    return dice.map((v) => die(v, side, `${NAME[side]}'s`));
  },
  canStart(g, k) {
    const s = g.state;
    const side = sideOf(g);
    const sign = side === 'white' ? 1 : -1;
    if (k.startsWith('bar')) return (s.bar[side] || 0) > 0;
    if (k.startsWith('p')) return sign * s.board[Number(k.slice(1)) - 1] > 0;
    return false;
  },
  tentative(g, hops) {
    const side = sideOf(g);
    const sign = side === 'white' ? 1 : -1;
    const s = JSON.parse(JSON.stringify(g.state));
    for (const hp of hops) {
      if (hp.from.startsWith('bar')) s.bar[side] -= 1; else s.board[Number(hp.from.slice(1)) - 1] -= sign;
      if (hp.to.startsWith('off')) { s.off[side] += 1; continue; }
      const i = Number(hp.to.slice(1)) - 1;
      if (s.board[i] === -sign) { s.board[i] = 0; s.bar[other(side)] += 1; }
      s.board[i] += sign;
    }
    return { ...g, state: s };
  },
  draw(g, ctx = { me: [] }) {
    const s = g.state;
    const me = (ctx && ctx.me) || [];
    const view = viewerSide(g, me);
    // Black's player sees the board upside down, so that his home board is bottom right.
    const flip = view === 'black';
    const turned = !!(ctx && ctx.portrait !== undefined ? ctx.portrait
      : typeof window !== 'undefined' && window.matchMedia && window.matchMedia('(max-width: 600px)').matches);
    const G = geometry(turned ? 66 : 40, turned ? 66 : BAR_WIDTH);
    const BAR = G.bar;
    const fs = turned ? 1.35 : 1; // text grows with the turned board's smaller scale
    const D = G.pitch;
    // Drawn along the board (x) and across it (y); turned: across becomes x, from the right.
    const P = (x, y) => (turned ? [HEIGHT - y, x] : [x, y]);
    const rect = (x, y, w, h, attrs = {}) => (turned
      ? el('rect', { x: HEIGHT - y - h, y: x, width: h, height: w, ...attrs })
      : el('rect', { x, y, width: w, height: h, ...attrs }));
    const box = (x, y, w, h) => (turned ? { x: HEIGHT - y - h, y: x, w: h, h: w } : { x, y, w, h });
    const poly = (pts, attrs) => el('polygon', { points: pts.map(([x, y]) => P(x, y).join(',')).join(' '), ...attrs });
    const circle = (x, y, r, attrs) => { const [cx, cy] = P(x, y); return el('circle', { cx, cy, r, ...attrs }); };
    const text = (x, y, t, attrs) => { const [a, b] = P(x, y); return label(a, b, t, attrs); };
    const checker = (x, y, side, extra = {}) => circle(x, y, CK / 2 - 2, { fill: FILL[side], stroke: EDGE[side], 'stroke-width': 2, ...extra });
    const mid = MID;
    const [vw, vh] = turned ? [HEIGHT, G.width] : [G.width, HEIGHT];
    const svg = root(0, 0, vw, vh, `Backgammon board, ${NAME[view]}'s point numbers${turned ? ', turned' : ''}`);
    svg.setAttribute('data-view', view);
    if (turned) svg.setAttribute('data-turned', 'true');
    svg.append(el('rect', { x: 0, y: 0, width: vw, height: vh, fill: '#5a3b1c', rx: 10 }));
    svg.append(rect(LEFT, TOP, 12 * D + BAR, BOTTOM - TOP, { fill: '#1f5e3d' }));
    svg.append(rect(G.barX, TOP, BAR, BOTTOM - TOP, { fill: '#6b4523' }));
    svg.append(rect(G.trayX, TOP, TRAY, BOTTOM - TOP, { fill: '#3e2812', stroke: '#c7a06a', 'stroke-width': 2 }));
    // The top of the drawing is the far side: the opponent's home board is top right,
    // his checkers on the bar and borne off in the upper half.
    const upper = (side) => (side === 'black') !== flip;
    // Where a point's checkers stand: the centre of the k-th from the edge.
    const stack = (p) => {
      const top = flip ? p > 12 : p <= 12;
      const count = Math.abs(s.board[p - 1]);
      const step = count > 5 ? (5 * CK - CK) / (count - 1) : CK;
      const x = G.colX(column(p)) + D / 2;
      return { top, count, step, x, y: (k) => (top ? TOP + CK / 2 + k * step : BOTTOM - CK / 2 - k * step) };
    };
    for (let p = 1; p <= 24; p++) {
      const i = column(p);
      const x = G.colX(i);
      const st = stack(p);
      const { top, count } = st;
      const tipY = top ? mid - 28 : mid + 28;
      const baseY = top ? TOP : BOTTOM;
      const n = s.board[p - 1];
      const side = n > 0 ? 'white' : 'black';
      const own = pointFor(view, p);
      const gg = el('g', { 'data-piece': `p${p}`, 'data-target': `p${p}`, 'data-point': own, class: 'point', 'data-count': n });
      gg.append(el('title', {}, `Point ${own}${count ? `: ${count} ${side}` : ''}`));
      gg.append(poly([[x, baseY], [x + D, baseY], [x + D / 2, tipY]], { fill: (i % 2 === 0) ? '#d8b27a' : '#a3312b', stroke: '#1b1b1b', 'stroke-width': 1 }));
      gg.append(rect(x, top ? TOP : mid + 8, D, mid - 8 - TOP, { fill: 'transparent' }));
      for (let k = 0; k < count; k++) gg.append(checker(st.x, st.y(k), side));
      if (count > 5) gg.append(text(st.x, st.y(count - 1), String(count), { 'font-size': 16, 'font-weight': 700, fill: EDGE[side] }));
      gg.append(text(x + D / 2, top ? mid - 16 : mid + 16, String(own), { 'font-size': 13 * fs, 'font-weight': 700, fill: '#ffffff', class: 'point-number' }));
      overlays(gg, box(x + 1, top ? TOP : mid + 10, D - 2, mid - 10 - TOP));
      svg.append(gg);
    }
    // the bar: the far side's checkers in the upper half
    const barY = (side, k, n) => (upper(side) ? mid - 44 - k * Math.min(CK, 150 / Math.max(1, n)) : mid + 44 + k * Math.min(CK, 150 / Math.max(1, n)));
    for (const side of SIDE) {
      const n = s.bar[side] || 0;
      const up = upper(side);
      const gg = el('g', { 'data-piece': `bar-${side}`, class: 'bar' });
      gg.append(el('title', {}, `Bar: ${n} ${side}`));
      gg.append(rect(G.barX, up ? TOP : mid, BAR, mid - TOP, { fill: 'transparent' }));
      for (let k = 0; k < n; k++) gg.append(checker(G.barX + BAR / 2, barY(side, k, n), side));
      if (n > 1) gg.append(text(G.barX + BAR / 2, barY(side, 0, n), String(n), { 'font-size': 15, 'font-weight': 700, fill: EDGE[side] }));
      overlays(gg, box(G.barX + 3, up ? TOP + 3 : mid + 3, BAR - 6, mid - TOP - 6));
      svg.append(gg);
    }
    if (!s.cube) svg.append(text(G.barX + BAR / 2, mid, 'BAR', { 'font-size': 12, fill: '#f0d9b5', 'font-weight': 700 }));
    // the tray: each side bears off beside its home board
    const p2 = pips(s);
    for (const side of SIDE) {
      const n = s.off[side] || 0;
      const up = upper(side);
      const gg = el('g', { 'data-target': `off-${side}`, class: 'off' });
      gg.append(el('title', {}, `Borne off: ${n} ${side}`));
      gg.append(rect(G.trayX, up ? TOP : mid, TRAY, mid - TOP, { fill: 'transparent' }));
      for (let k = 0; k < n; k++) {
        const y = up ? TOP + 6 + k * 12 : BOTTOM - 6 - 11 - k * 12;
        gg.append(rect(G.trayX + 8, y, TRAY - 16, 11, { rx: 3, fill: FILL[side], stroke: EDGE[side], 'stroke-width': 1.5 }));
      }
      const sgn = up ? -1 : 1;
      // Lines of text beside the tray's middle: borne off, pips and, in a match, the score.
      const line = (i) => (turned ? [G.trayX + TRAY / 2 + (i - 1) * 20, mid + sgn * 80] : [G.trayX + TRAY / 2, mid + sgn * (14 + 18 * i)]);
      gg.append(text(...line(0), `off ${n}`, { 'font-size': 12 * fs, fill: '#f0d9b5' }));
      gg.append(text(...line(1), `pips ${p2[side]}`, { 'font-size': 12 * fs, fill: '#f0d9b5', class: `pips pips-${side}`, 'data-pips': p2[side] }));
      if (s.match && s.match.length) {
        gg.append(text(...line(2), `${s.match.score[side]}/${s.match.length} pts`, { 'font-size': 12 * fs, 'font-weight': 700, fill: '#fde68a', class: `score score-${side}`, 'data-score': s.match.score[side] }));
      }
      overlays(gg, box(G.trayX + 3, up ? TOP + 3 : mid + 3, TRAY - 6, mid - TOP - 6));
      svg.append(gg);
    }
    // the doubling cube: centred on the bar, or at its owner's edge of the bar
    if (s.cube) {
      const c = s.cube;
      const crawford = !!(s.match && s.match.crawford);
      const y = c.owner ? (upper(c.owner) ? TOP + 4 + CUBE / 2 : BOTTOM - 4 - CUBE / 2) : mid;
      const [cx, cy] = P(G.barX + BAR / 2, y);
      const where = c.owner ? `${NAME[c.owner]} owns it` : 'centred';
      const cg = el('g', { class: 'cube', 'data-cube': c.value, 'data-owner': c.owner || 'centre', opacity: crawford ? 0.45 : 1 });
      cg.append(el('title', {}, `Doubling cube at ${c.value}, ${where}${crawford ? '; Crawford game: no doubling' : ''}`));
      cg.append(el('rect', { x: cx - CUBE / 2, y: cy - CUBE / 2, width: CUBE, height: CUBE, rx: 6, fill: '#fdfcf7', stroke: '#111', 'stroke-width': 2 }));
      cg.append(label(cx, cy + 1, crawford ? 'CR' : String(c.owner || c.value > 1 ? c.value : 64), { 'font-size': c.value >= 16 ? 16 : 20, 'font-weight': 800, fill: '#111' }));
      svg.append(cg);
    }
    // the other side's last move: each checker step with its arrow
    markLast(svg, ctx, (entry) => {
      const bs = entry.before && entry.before.state;
      if (!bs || !entry.move || !entry.move.steps) return [];
      const mover = SIDE[entry.seat] || 'white';
      const at = (v, ends) => {
        if (v === 'bar') return P(G.barX + BAR / 2, upper(mover) ? mid - 44 : mid + 44);
        if (v === 'off') return P(G.trayX + TRAY / 2, upper(mover) ? mid - 60 : mid + 60);
        const st = stack(v);
        return P(st.x, st.y(Math.max(0, Math.min(4, ends ? st.count - 1 : st.count))));
      };
      return entry.move.steps.map((stp) => [at(stp.from, false), at(stp.to, true),
        keyFrom(mover, stp.from), keyTo(mover, stp.to)]);
    }, CK / 2, (e) => `${NAME[SIDE[e.seat]] || ''} played ${notation(view, e.move)}`);
    // A decision under review (analysis.js), on the position before it: the move played
    // (its steps once read from the log) and GNU Backgammon's best, drawn apart.
    const review = ctx && ctx.review;
    if (review) {
      const mover = SIDE[review.seat] || 'white';
      const sign = mover === 'white' ? 1 : -1;
      const slot = (p, k) => {
        const kk = Math.max(0, Math.min(4, k));
        return P(stack(p).x, stack(p).top ? TOP + CK / 2 + kk * CK : BOTTOM - CK / 2 - kk * CK);
      };
      // Each step from the checker on top to the next free place, the steps made in turn.
      const places = (steps) => {
        const board = s.board.slice();
        return steps.map((stp) => {
          let from;
          let to;
          if (stp.from === 'bar') from = P(G.barX + BAR / 2, upper(mover) ? mid - 44 : mid + 44);
          else { from = slot(stp.from, Math.abs(board[stp.from - 1]) - 1); board[stp.from - 1] -= sign; }
          if (stp.to === 'off') to = P(G.trayX + TRAY / 2, upper(mover) ? mid - 60 : mid + 60);
          else {
            const i = stp.to - 1;
            if (board[i] === -sign) board[i] = 0; // a blot hit goes to the bar
            to = slot(stp.to, Math.abs(board[i]));
            board[i] += sign;
          }
          return [from, to, keyFrom(mover, stp.from), keyTo(mover, stp.to)];
        });
      };
      const layer = el('g', { class: 'review-moves' });
      const said = [];
      if (review.played && !review.same) {
        for (const [f, t, fk, tk] of places(review.played)) layer.append(moveMark('played', f, t, { fromKey: fk, toKey: tk, r: CK / 2 }));
        said.push(`played ${notation(view, { steps: review.played })}`);
      }
      const bestKind = review.same ? 'played' : 'best';
      for (const [f, t, fk, tk] of places(review.best || [])) layer.append(moveMark(bestKind, f, t, { fromKey: fk, toKey: tk, r: CK / 2 }));
      said.push(review.same ? `played the best move, ${notation(view, { steps: review.best })}` : `best ${notation(view, { steps: review.best || [] })}`);
      svg.append(layer);
      svg.setAttribute('data-review', review.played ? 'ready' : 'loading');
      svg.append(el('desc', { class: 'review-said' }, `${NAME[mover]} to play: ${said.join('; ')}.`));
    }
    return touchTargets(svg);
  },
};
