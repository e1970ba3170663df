// Ali Baba: the bridge of planks over the river, near bank left, far bank right.
import { el, root, overlays, label, ink, touchTargets, markLast } from './common.js';

const SEAT = ['#c62828', '#1565c0', '#2e7d32', '#f9a825'];
const SEAT_NAME = ['Red', 'Blue', 'Green', 'Yellow'];
const FIG = ['robber', 'lady', 'officer'];
const W = 100;
const BANK = 130;
const FIGURE = 15;

function shape(kind, cx, cy, fill, F = FIGURE) {
  const stroke = '#111';
  if (kind === 'robber') {
    return el('polygon', { points: `${cx},${cy - F} ${cx + F},${cy + F * 0.8} ${cx - F},${cy + F * 0.8}`, fill, stroke, 'stroke-width': 2 });
  }
  if (kind === 'officer') {
    return el('rect', { x: cx - F * 0.85, y: cy - F * 0.85, width: F * 1.7, height: F * 1.7, fill, stroke, 'stroke-width': 2 });
  }
  return el('circle', { cx, cy, r: F * 0.9, fill, stroke, 'stroke-width': 2 });
}

/** A position's name: a bank or a plank. */
function describePos(s, n) {
  return n === 0 ? 'the near bank' : n === s.far_bank ? 'the far bank' : `plank ${n}`;
}

export default {
  seatName: (g, i) => SEAT_NAME[i],
  seatColour: (g, i) => SEAT[i],
  hops(g, m) {
    const seat = g.to_move;
    return [{ from: `s${seat}-${m.figure}`, to: `pos${m.to}` }];
  },
  describeKey(g, k) {
    if (k.startsWith('pos')) {
      const n = Number(k.slice(3));
      return n === 0 ? 'the near bank' : n === g.state.far_bank ? 'the far bank' : `plank ${n}`;
    }
    const [, seat, fig] = k.match(/^s(\d+)-(\w+)$/) || [];
    return `${SEAT_NAME[seat]} ${fig}`;
  },
  describe: (g, m) => `${m.figure} from ${m.from} to ${m.to}`,
  diceFaces(g) {
    const d = g.last_dice;
    if (!d) return null;
    if (d.die === 'd6') return null;
    return d.values.map((v) => ({ value: v, text: true, label: `Ali Baba die showing ${v}` }));
  },
  extra() {
    const p = document.createElement('p');
    p.textContent = 'Triangle = robber, circle = lady, square = officer. Officer beats robber, robber beats lady, lady beats officer.';
    return p;
  },
  draw(g, ctx) {
    const s = g.state;
    const planks = s.far_bank - 1;
    const seats = s.figures.length;
    const w = 2 * BANK + planks * W;
    // On a phone each figure gets a row of its own, at least 44 px high, so that each is
    // a touch target of its own; on a wider screen a seat's figures stand side by side.
    const narrow = ctx && ctx.portrait !== undefined ? ctx.portrait
      : typeof window !== 'undefined' && !!window.matchMedia && window.matchMedia('(max-width: 600px)').matches;
    const RH = narrow ? Math.max(40, (44 * w) / 340) : 40;
    const k = narrow ? Math.min(2.4, (0.9 * RH) / 40) : 1;
    const F = FIGURE * k;
    const fontL = narrow ? 13 * Math.min(2.2, RH / 40) : 13;
    const top = narrow ? fontL + 14 : 24;
    const h = narrow ? top + 16 + seats * 3 * RH + 20 : 70 + Math.max(2, seats) * 40 + 40;
    const figY = (seat, f) => (narrow ? top + 16 + (seat * 3 + FIG.indexOf(f)) * RH + RH / 2 : 56 + seat * 40);
    const svg = root(0, 0, w, h, `Ali Baba bridge with ${planks} plank${planks === 1 ? '' : 's'}`);
    svg.append(el('rect', { x: 0, y: 0, width: w, height: h, fill: '#2b7bb9' }));
    for (let i = 0; i < 6; i++) {
      svg.append(el('path', { d: `M ${BANK} ${40 + i * (h - 60) / 6} q 15 -6 30 0 t 30 0`, stroke: '#9ed0f0', fill: 'none', 'stroke-width': 2, opacity: 0.7 }));
    }
    const colX = (pos) => (pos === 0 ? BANK / 2 : pos === s.far_bank ? w - BANK / 2 : BANK + (pos - 1) * W + W / 2);
    const spot = (pos, x, width, fill, name) => {
      const gg = el('g', { 'data-target': `pos${pos}` });
      gg.append(el('rect', { x, y: top, width, height: h - top - 10, fill, stroke: '#3b2a14', 'stroke-width': 2, rx: 4 }));
      gg.append(label(x + width / 2, top / 2 + 2, name, { 'font-size': fontL, 'font-weight': 700, fill: '#fff' }));
      overlays(gg, { x: x + 4, y: top + 4, w: width - 8, h: h - top - 18 });
      svg.append(gg);
    };
    spot(0, 2, BANK - 6, '#6d8b3a', 'Start');
    spot(s.far_bank, w - BANK + 4, BANK - 6, '#6d8b3a', 'Goal');
    for (let p = 1; p <= planks; p++) spot(p, BANK + (p - 1) * W + 3, W - 6, '#a0743c', String(p));
    // wood grain and the bridge's ropes
    for (let p = 1; p <= planks; p++) {
      for (const f of [0.3, 0.55, 0.8]) {
        const x = BANK + (p - 1) * W + 3 + f * (W - 6);
        svg.append(el('line', { x1: x, y1: top + 6, x2: x, y2: h - 16, stroke: '#7a5428', 'stroke-width': 1.5, 'pointer-events': 'none' }));
      }
    }
    for (const y of [top - 2, h - 8]) {
      svg.append(el('line', { x1: BANK - 8, y1: y, x2: w - BANK + 8, y2: y, stroke: '#e8d7a8', 'stroke-width': 3, 'pointer-events': 'none' }));
      for (const x of [BANK - 8, w - BANK + 8]) svg.append(el('circle', { cx: x, cy: y, r: 5, fill: '#5b3a1e', 'pointer-events': 'none' }));
    }
    s.figures.forEach((figs, seat) => {
      if (!figs) return;
      const byPos = {};
      for (const f of FIG) (byPos[figs[f]] ||= []).push(f);
      for (const [pos, list] of Object.entries(byPos)) {
        list.forEach((f, i) => {
          const n = list.length;
          const cx = colX(Number(pos)) + (narrow ? 0 : (i - (n - 1) / 2) * (F * 2.15));
          const cy = figY(seat, f);
          const fg = el('g', { 'data-piece': `s${seat}-${f}`, 'data-target': `pos${pos}`, class: 'figure' });
          fg.append(el('title', {}, `${SEAT_NAME[seat]} ${f}`));
          fg.append(shape(f, cx, cy, SEAT[seat], F));
          fg.append(label(cx, cy + 2, f[0].toUpperCase(), { 'font-size': 11 * k, 'font-weight': 700, fill: ink(SEAT[seat]) }));
          overlays(fg, { cx, cy, r: F + 1 });
          svg.append(fg);
        });
      }
    });
    // the other players' moves since mine: each figure's step along its row
    markLast(svg, ctx, (entry) => {
      const m = entry.move;
      const cy = figY(entry.seat, m.figure);
      return [[[colX(m.from), cy], [colX(m.to), cy], `pos${m.from}`, `pos${m.to}`]];
    }, F + 3, (e) => `${SEAT_NAME[e.seat]} ${e.move.figure} from ${describePos(s, e.move.from)} to ${describePos(s, e.move.to)}`);
    return touchTargets(svg);
  },
};
