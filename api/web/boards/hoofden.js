// Hoofden: the 10x10 draughts board, Blue (seat 0) at the bottom, heads in colour.
import { el, root, overlays, label, touchTargets, markLast } from './common.js';

const FILES = 'abcdefghij';
const OWNER = ['#1d4ed8', '#b91c1c'];
const OWNER_NAME = ['Blue', 'Red'];
const HEAD = { blue: '#60a5fa', green: '#22c55e', red: '#fca5a5', yellow: '#facc15' };
const HEAD_DIE = { blue: '#93c5fd', green: '#86efac', red: '#fca5a5', yellow: '#fde047' };
const C = 50;
const M = 22;

function xy(sq, flip) {
  const f = FILES.indexOf(sq[0]);
  const r = Number(sq.slice(1));
  let col = f;
  let row = 10 - r;
  if (flip) { col = 9 - f; row = r - 1; }
  return [M + col * C, M + row * C];
}

const HEADS = [['blue', '1-6'], ['green', '2-7'], ['red', '3-8'], ['yellow', '4-9']];

/** The legend of the head letters: colour, fight die and what a head may do. */
function legend(g) {
  const byHead = g.state && g.state.options && g.state.options.movement === 'by_head';
  const steps = { blue: 1, green: 2, red: 3, yellow: 4 };
  const box = document.createElement('div');
  box.id = 'head-legend';
  box.className = 'head-legend';
  const h = document.createElement('p');
  h.className = 'legend-title';
  h.textContent = 'Heads, weakest first (the letter on each pawn):';
  const ul = document.createElement('ul');
  for (const [head, faces] of HEADS) {
    const li = document.createElement('li');
    li.setAttribute('data-head', head);
    const sw = el('svg', { viewBox: '0 0 24 24', width: 24, height: 24, 'aria-hidden': 'true', class: 'head-swatch' },
      el('circle', { cx: 12, cy: 12, r: 10, fill: HEAD[head], stroke: '#111', 'stroke-width': 1.5 }),
      label(12, 12.5, head[0], { 'font-size': 12, 'font-weight': 700, fill: '#111' }));
    const move = byHead ? `moves exactly ${steps[head]} diagonal step${steps[head] > 1 ? 's' : ''}, any direction`
      : head === 'yellow' ? 'moves forward or backward' : 'moves forward';
    li.append(sw, ` ${head[0]} = ${head}: fights with a ${faces} die; ${move}.`);
    ul.append(li);
  }
  const more = document.createElement('p');
  more.className = 'help';
  more.textContent = 'Winning a fight raises the head one colour, a tie lowers both; a pawn reaching the far row gets a yellow head.';
  box.append(h, ul, more);
  return box;
}

export default {
  seatName: (g, i) => OWNER_NAME[i],
  seatColour: (g, i) => OWNER[i],
  hops: (g, m) => [{ from: m.from, to: m.to }],
  describeKey(g, k) {
    const p = g.state.board[k];
    return p ? `${OWNER_NAME[p.owner]} pawn with ${p.head} head on ${k}` : `square ${k}`;
  },
  describe: (g, m) => `${m.from} to ${m.to}`,
  diceFaces(g) {
    const d = g.last_dice;
    if (!d) return null;
    const head = (d.die || '').replace(/^.*?(blue|green|red|yellow).*$/, '$1');
    return d.values.map((v) => ({ value: v, text: true, fill: HEAD_DIE[head] || '#ffffff', label: `${d.die} die showing ${v}` }));
  },
  extra(g) {
    const s = g.state;
    const out = [legend(g)];
    const f = s.fight || s.last_fight;
    if (f) {
      const p = document.createElement('p');
      const rounds = (f.rounds || []).map((r) => `${r.attacker}:${r.defender}`).join(', ');
      p.textContent = `${s.fight ? 'Fight' : 'Last fight'}: ${f.attacker} (${f.attacker_head}) attacks ${f.defender} (${f.defender_head})${rounds ? `; rolls ${rounds}` : ''}.`;
      out.push(p);
    }
    const q = document.createElement('p');
    q.textContent = `Moves without a fight: ${s.plies_without_fight} of 100.`;
    out.push(q);
    return out;
  },
  draw(g, ctx) {
    const s = g.state;
    const flip = ctx.me.includes(1) && !ctx.me.includes(0);
    const size = 10 * C + 2 * M;
    const svg = root(0, 0, size, size, 'Hoofden board');
    svg.append(el('rect', { x: 0, y: 0, width: size, height: size, fill: '#5b3a1e', rx: 8 }));
    for (let i = 0; i < 10; i++) {
      const col = flip ? 9 - i : i;
      const row = flip ? i : 9 - i;
      svg.append(label(M + col * C + C / 2, size - M / 2, FILES[i], { fill: '#fff', 'font-size': 14 }));
      svg.append(label(M / 2, M + row * C + C / 2, String(i + 1), { fill: '#fff', 'font-size': 14 }));
    }
    const lm = s.last_move;
    for (let r = 1; r <= 10; r++) {
      for (let f = 0; f < 10; f++) {
        const sq = FILES[f] + r;
        const dark = (f + r - 1) % 2 === 0;
        const [x, y] = xy(sq, flip);
        if (!dark) { svg.append(el('rect', { x, y, width: C, height: C, fill: '#f1e3c6' })); continue; }
        const last = lm && (lm.from === sq || lm.to === sq);
        const g2 = el('g', { 'data-target': sq });
        g2.append(el('rect', { x, y, width: C, height: C, fill: last ? '#8a6a2a' : '#7a5230' }));
        overlays(g2, { x: x + 3, y: y + 3, w: C - 6, h: C - 6 });
        svg.append(g2);
      }
    }
    for (const [sq, p] of Object.entries(s.board || {})) {
      const [x, y] = xy(sq, flip);
      const cx = x + C / 2;
      const cy = y + C / 2;
      const pg = el('g', { 'data-piece': sq, 'data-target': sq, class: 'pawn', 'data-owner': p.owner, 'data-head': p.head });
      pg.append(el('title', {}, `${OWNER_NAME[p.owner]} pawn, ${p.head} head, ${sq}`));
      pg.append(el('circle', { cx, cy, r: 20, fill: OWNER[p.owner], stroke: '#111', 'stroke-width': 2 }));
      pg.append(el('circle', { cx, cy, r: 11, fill: HEAD[p.head], stroke: '#fff', 'stroke-width': 2.5 }));
      pg.append(label(cx, cy + 0.5, p.head[0], { 'font-size': 12, 'font-weight': 700, fill: '#111' }));
      overlays(pg, { cx, cy, r: 21 });
      svg.append(pg);
    }
    // the opponent's last move
    markLast(svg, ctx, (entry) => {
      const [a, b] = [xy(entry.move.from, flip), xy(entry.move.to, flip)];
      return [[[a[0] + C / 2, a[1] + C / 2], [b[0] + C / 2, b[1] + C / 2], entry.move.from, entry.move.to]];
    }, 22, (e) => `${OWNER_NAME[e.seat]} moved ${e.move.from} to ${e.move.to}`);
    return touchTargets(svg);
  },
};
