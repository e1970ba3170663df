// Backgammon: 24 points in four quadrants, the bar in the middle, borne-off checkers in
// the tray on the right. White (seat 0) moves 1 -> 24 (home bottom right), Black
// (seat 1) moves 24 -> 1 (home top right; Black's player sees it the other way up).
import { el, root, overlays, label } from './common.js';

const SIDE = ['white', 'black'];
const DECISION = {
  roll: 'Roll', double: 'Double', take: 'Take', pass: 'Pass',
  accept: 'Accept the resignation', decline: 'Decline the resignation',
};
const FILL = { white: '#f4efe3', black: '#262626' };
const EDGE = { white: '#3a3a3a', black: '#d9d9d9' };
const D = 40;
const LEFT = 10;
const BAR = 54;
const TRAY = 64;
const WIDTH = LEFT + 12 * D + BAR + 10 + TRAY;
const HEIGHT = 500;
const TOP = 10;
const BOTTOM = HEIGHT - 10;

function column(p) {
  return p <= 12 ? 12 - p : p - 13;
}
function colX(i) {
  return LEFT + (i < 6 ? i * D : 6 * D + BAR + (i - 6) * D);
}
const BAR_X = LEFT + 6 * D;
const TRAY_X = LEFT + 12 * D + BAR + 10;

function sideOf(g) {
  if (g.state && g.state.to_move) return g.state.to_move;
  return SIDE[g.to_move ?? 0];
}
function keyFrom(side, from) { return from === 'bar' ? `bar-${side}` : `p${from}`; }
function keyTo(side, to) { return to === 'off' ? `off-${side}` : `p${to}`; }

function checker(cx, cy, side, extra = {}) {
  return el('circle', { cx, cy, r: D / 2 - 2, fill: FILL[side], stroke: EDGE[side], 'stroke-width': 2, ...extra });
}

export default {
  seatName: (g, i) => (i === 0 ? 'White' : 'Black'),
  seatColour: (g, i) => FILL[SIDE[i]],
  hops(g, m) {
    const side = sideOf(g);
    return (m.steps || []).map((s) => ({ from: keyFrom(side, s.from), to: keyTo(side, s.to) }));
  },
  describeKey(g, k) {
    if (k.startsWith('p')) {
      const n = Number(k.slice(1));
      const c = g.state.board[n - 1];
      return `point ${n}${c ? ` (${Math.abs(c)} ${c > 0 ? 'white' : 'black'})` : ''}`;
    }
    if (k.startsWith('bar')) return `the bar (${k.slice(4)})`;
    return 'bear off';
  },
  describe(g, m) {
    if (typeof m === 'string') return DECISION[m] || m;
    if (m && m.resign) return `Offer to resign (${m.resign})`;
    return (m.steps || []).map((s) => `${s.from}/${s.to}`).join(' ');
  },
  // With the cube or in a match: the score, the game, the cube and an offer awaiting
  // its answer.
  extra(g) {
    const s = g.state;
    if (!s || !s.cube) return null;
    const out = [];
    const m = s.match;
    if (m && m.length) {
      const p = document.createElement('p');
      p.textContent = `Match to ${m.length}: White ${m.score.white}, Black ${m.score.black}; game ${m.game}${m.crawford ? ' (Crawford game: no doubling)' : ''}.`;
      out.push(p);
    }
    const c = document.createElement('p');
    c.textContent = `Cube: ${s.cube.value}${s.cube.owner ? ` (${s.cube.owner}'s)` : ' (centred)'}.`;
    out.push(c);
    if (s.offer) {
      const o = document.createElement('p');
      const what = s.offer.kind === 'double' ? `doubles to ${s.cube.value * 2}` : `offers to resign (${s.offer.kind.resign})`;
      o.textContent = `${s.offer.by === 'white' ? 'White' : 'Black'} ${what}: awaiting the answer.`;
      out.push(o);
    }
    return out;
  },
  diceFaces(g) {
    const dice = g.state.dice && g.state.dice.length ? g.state.dice : g.last_dice ? g.last_dice.values : [];
    return dice.map((v) => ({ value: v }));
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
    const other = side === 'white' ? 'black' : 'white';
    const sign = side === 'white' ? 1 : -1;
    const s = JSON.parse(JSON.stringify(g.state));
    for (const hp of hops) {
      if (hp.from.startsWith('bar')) s.bar[side] -= 1; else s.board[Number(hp.from.slice(1)) - 1] -= sign;
      if (hp.to.startsWith('off')) { s.off[side] += 1; continue; }
      const i = Number(hp.to.slice(1)) - 1;
      if (s.board[i] === -sign) { s.board[i] = 0; s.bar[other] += 1; }
      s.board[i] += sign;
    }
    return { ...g, state: s };
  },
  draw(g, ctx = { me: [] }) {
    const s = g.state;
    // Black's player sees the board upside down, so that his home board is bottom right.
    const flip = ctx.me.includes(1) && !ctx.me.includes(0);
    const svg = root(0, 0, WIDTH, HEIGHT, 'Backgammon board');
    svg.append(el('rect', { x: 0, y: 0, width: WIDTH, height: HEIGHT, fill: '#5a3b1c', rx: 10 }));
    svg.append(el('rect', { x: LEFT, y: TOP, width: 12 * D + BAR, height: BOTTOM - TOP, fill: '#1f5e3d' }));
    svg.append(el('rect', { x: BAR_X, y: TOP, width: BAR, height: BOTTOM - TOP, fill: '#6b4523' }));
    svg.append(el('rect', { x: TRAY_X, y: TOP, width: TRAY, height: BOTTOM - TOP, fill: '#3e2812', stroke: '#c7a06a', 'stroke-width': 2 }));
    const mid = HEIGHT / 2;
    for (let p = 1; p <= 24; p++) {
      const i = column(p);
      const x = colX(i);
      const top = flip ? p > 12 : p <= 12;
      const tipY = top ? mid - 28 : mid + 28;
      const baseY = top ? TOP : BOTTOM;
      const n = s.board[p - 1];
      const side = n > 0 ? 'white' : 'black';
      const count = Math.abs(n);
      const gg = el('g', { 'data-piece': `p${p}`, 'data-target': `p${p}`, class: 'point', 'data-count': n });
      gg.append(el('title', {}, `Point ${p}${count ? `: ${count} ${side}` : ''}`));
      gg.append(el('polygon', { points: `${x},${baseY} ${x + D},${baseY} ${x + D / 2},${tipY}`, fill: (i % 2 === 0) ? '#d8b27a' : '#a3312b', stroke: '#1b1b1b', 'stroke-width': 1 }));
      gg.append(el('rect', { x, y: top ? TOP : mid + 8, width: D, height: mid - 8 - TOP, fill: 'transparent' }));
      const step = count > 5 ? (5 * D - D) / (count - 1) : D;
      for (let k = 0; k < count; k++) {
        const cy = top ? TOP + D / 2 + k * step : BOTTOM - D / 2 - k * step;
        gg.append(checker(x + D / 2, cy, side));
      }
      if (count > 5) {
        const cy = top ? TOP + D / 2 + (count - 1) * step : BOTTOM - D / 2 - (count - 1) * step;
        gg.append(label(x + D / 2, cy, String(count), { 'font-size': 16, 'font-weight': 700, fill: EDGE[side] }));
      }
      gg.append(label(x + D / 2, top ? mid - 16 : mid + 16, String(p), { 'font-size': 12, fill: '#ffffff' }));
      overlays(gg, { x: x + 1, y: top ? TOP : mid + 10, w: D - 2, h: mid - 10 - TOP });
      svg.append(gg);
    }
    // the bar: Black's checkers in the upper half, White's in the lower half
    for (const side of SIDE) {
      const n = s.bar[side] || 0;
      const upper = (side === 'black') !== flip;
      const gg = el('g', { 'data-piece': `bar-${side}`, class: 'bar' });
      gg.append(el('title', {}, `Bar: ${n} ${side}`));
      gg.append(el('rect', { x: BAR_X, y: upper ? TOP : mid, width: BAR, height: mid - TOP, fill: 'transparent' }));
      for (let k = 0; k < n; k++) {
        const cy = upper ? mid - 30 - k * Math.min(D, 160 / Math.max(1, n)) : mid + 30 + k * Math.min(D, 160 / Math.max(1, n));
        gg.append(checker(BAR_X + BAR / 2, cy, side));
      }
      if (n > 1) gg.append(label(BAR_X + BAR / 2, upper ? mid - 30 : mid + 30, String(n), { 'font-size': 15, 'font-weight': 700, fill: EDGE[side] }));
      overlays(gg, { x: BAR_X + 3, y: upper ? TOP + 3 : mid + 3, w: BAR - 6, h: mid - TOP - 6 });
      svg.append(gg);
    }
    svg.append(label(BAR_X + BAR / 2, mid, 'BAR', { 'font-size': 12, fill: '#f0d9b5', 'font-weight': 700 }));
    // the tray: Black bears off at the top, White at the bottom
    for (const side of SIDE) {
      const n = s.off[side] || 0;
      const upper = (side === 'black') !== flip;
      const gg = el('g', { 'data-target': `off-${side}`, class: 'off' });
      gg.append(el('title', {}, `Borne off: ${n} ${side}`));
      gg.append(el('rect', { x: TRAY_X, y: upper ? TOP : mid, width: TRAY, height: mid - TOP, fill: 'transparent' }));
      for (let k = 0; k < n; k++) {
        const y = upper ? TOP + 6 + k * 13 : BOTTOM - 6 - 11 - k * 13;
        gg.append(el('rect', { x: TRAY_X + 8, y, width: TRAY - 16, height: 11, rx: 3, fill: FILL[side], stroke: EDGE[side], 'stroke-width': 1.5 }));
      }
      gg.append(label(TRAY_X + TRAY / 2, upper ? mid - 14 : mid + 14, `off ${n}`, { 'font-size': 12, fill: '#f0d9b5' }));
      overlays(gg, { x: TRAY_X + 3, y: upper ? TOP + 3 : mid + 3, w: TRAY - 6, h: mid - TOP - 6 });
      svg.append(gg);
    }
    return svg;
  },
};
