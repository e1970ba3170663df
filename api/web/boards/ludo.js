// Ludo: the 15x15 cross with the four yards, the 52-field track with its globes and
// stars, each colour's home column and the home triangles in the centre.
import { el, root, overlays, label, star, globe, ink, touchTargets, markLast } from './common.js';

const COLOURS = ['#d32f2f', '#2e7d32', '#f9a825', '#1565c0'];
const NAMES = ['Red', 'Green', 'Yellow', 'Blue'];
const GLOBES = new Set([0, 8, 13, 21, 26, 34, 39, 47]);
const STARS = new Set([4, 11, 17, 24, 30, 37, 43, 50]);
const U = 36;
const FRAME = 0.45; // in fields
const T0 = [[1, 6], [2, 6], [3, 6], [4, 6], [5, 6], [6, 5], [6, 4], [6, 3], [6, 2], [6, 1], [6, 0], [7, 0], [8, 0]];

// Positions in board units (cell corners at integers), rotated a quarter turn per colour.
const rot = ([x, y], n) => { let p = [x, y]; for (let i = 0; i < n; i++) p = [15 - p[1], p[0]]; return p; };
const cell = ([i, j]) => [i + 0.5, j + 0.5];
const trackPos = (n) => rot(cell(T0[n % 13]), Math.floor(n / 13) % 4);
const columnPos = (c, f) => rot(cell([f - 50, 7]), c); // 51..55
const yardPos = (c, k) => rot([[1.9, 1.9], [4.1, 1.9], [1.9, 4.1], [4.1, 4.1]][k % 4], c);
const homePos = (c) => rot([6.8, 7.5], c);

function placeKey(place) {
  if (place.at === 'track') return `T${place.track_field}`;
  if (place.at === 'home_column') return `C${place.field}`;
  if (place.at === 'home') return 'H';
  return 'Y';
}
function targetKey(colour, place) {
  if (place.at === 'track') return `T${place.track_field}`;
  if (place.at === 'home_column') return `C${colour}-${place.field}`;
  if (place.at === 'home') return `H${colour}`;
  return `Y${colour}`;
}
function seatOf(g) {
  const t = g.state.turn || {};
  return t.seat ?? g.to_move;
}

const ludo = {
  seatName: (g, i) => { const s = (g.state.seats || [])[i]; return s ? NAMES[s.colour] : null; },
  seatColour: (g, i) => { const s = (g.state.seats || [])[i]; return s ? COLOURS[s.colour] : null; },
  hops(g, m) {
    const seat = seatOf(g);
    const player = g.state.seats[seat];
    const c = player.colour;
    const from = `s${seat}:${placeKey(player.pawns[m.pawn] || { at: 'yard' })}`;
    let to;
    if (m.action === 'enter') to = `T${(13 * c) % 52}`;
    else if (m.action === 'home') to = `H${c}`;
    else if (m.to <= 50) to = `T${(13 * c + m.to) % 52}`;
    else if (m.to <= 55) to = `C${c}-${m.to}`;
    else to = `H${c}`;
    return [{ from, to }];
  },
  describeKey(g, k) {
    let m = k.match(/^s(\d+):(.*)$/);
    if (m) {
      const c = g.state.seats[m[1]].colour;
      const where = m[2] === 'Y' ? 'in the yard' : m[2].startsWith('T') ? `on field ${m[2].slice(1)}` : m[2].startsWith('C') ? `in the home column (${m[2].slice(1)})` : 'home';
      return `${NAMES[c]} pawn ${where}`;
    }
    m = k.match(/^T(\d+)$/);
    if (m) return `field ${m[1]}${GLOBES.has(Number(m[1])) ? ' (globe)' : STARS.has(Number(m[1])) ? ' (star)' : ''}`;
    m = k.match(/^C(\d+)-(\d+)$/);
    if (m) return `${NAMES[m[1]]} home column ${Number(m[2]) - 50}`;
    m = k.match(/^H(\d+)$/);
    if (m) return `${NAMES[m[1]]} home`;
    return k;
  },
  describe: (g, m) => `pawn ${m.pawn + 1}: ${m.action}${m.to !== undefined ? ` to ${m.to}` : ''}`,
  diceFaces(g) {
    const r = g.state.last_roll;
    const d = g.last_dice;
    if (!d) return null;
    if (r && !r.roll_off && r.symbol) return [{ value: r.value, symbol: r.symbol, label: `die showing a ${r.symbol}` }];
    return d.values.map((v) => ({ value: v }));
  },
  extra(g) {
    const p = document.createElement('p');
    p.textContent = g.state.options && g.state.options.die === 'plain'
      ? 'Plain die: a 6 enters a pawn and rolls again.'
      : 'Special die: a globe enters a pawn or jumps to the next globe (and rolls again); a star jumps to the next star.';
    return p;
  },
  draw(g, ctx) {
    const s = g.state;
    // A frame around the cross, so that a field on the edge has room for a 44 px touch area.
    const m = FRAME * U;
    const svg = root(-m, -m, 15 * U + 2 * m, 15 * U + 2 * m, 'Ludo board');
    const P = ([x, y]) => [x * U, y * U];
    svg.append(el('rect', { x: -m, y: -m, width: 15 * U + 2 * m, height: 15 * U + 2 * m, fill: '#5b3a1e', rx: 10 }));
    svg.append(el('rect', { x: 0, y: 0, width: 15 * U, height: 15 * U, fill: '#ffffff' }));
    const used = new Set((s.seats || []).map((p) => p.colour));
    for (let c = 0; c < 4; c++) {
      const a = rot([0, 0], c);
      const b = rot([6, 6], c);
      const [x0, y0] = [Math.min(a[0], b[0]), Math.min(a[1], b[1])];
      svg.append(el('rect', { x: x0 * U, y: y0 * U, width: 6 * U, height: 6 * U, fill: COLOURS[c], 'fill-opacity': used.has(c) ? 1 : 0.35, stroke: '#222', 'stroke-width': 2 }));
      const ia = rot([0.8, 0.8], c);
      const ib = rot([5.2, 5.2], c);
      svg.append(el('rect', { x: Math.min(ia[0], ib[0]) * U, y: Math.min(ia[1], ib[1]) * U, width: 4.4 * U, height: 4.4 * U, fill: '#ffffff', rx: 10 }));
      for (let k = 0; k < 4; k++) {
        const [x, y] = P(yardPos(c, k));
        svg.append(el('circle', { cx: x, cy: y, r: U * 0.55, fill: COLOURS[c], 'fill-opacity': 0.35, stroke: COLOURS[c], 'stroke-width': 2 }));
      }
      // home column
      for (let f = 51; f <= 55; f++) {
        const [x, y] = P(columnPos(c, f));
        const gg = el('g', { 'data-target': `C${c}-${f}` });
        gg.append(el('rect', { x: x - U / 2, y: y - U / 2, width: U, height: U, fill: COLOURS[c], stroke: '#222', 'stroke-width': 1.5 }));
        overlays(gg, { x: x - U / 2 + 2, y: y - U / 2 + 2, w: U - 4, h: U - 4 });
        svg.append(gg);
      }
      // home triangle
      const tri = [[6, 6], [6, 9], [7.5, 7.5]].map((p) => P(rot(p, c)));
      const [hx, hy] = P(homePos(c));
      const hg = el('g', { 'data-target': `H${c}` });
      hg.append(el('polygon', { points: tri.map((p) => p.join(',')).join(' '), fill: COLOURS[c], stroke: '#222', 'stroke-width': 1.5 }));
      overlays(hg, { cx: hx, cy: hy, r: U * 0.45 });
      svg.append(hg);
    }
    for (let n = 0; n < 52; n++) {
      const [x, y] = P(trackPos(n));
      const start = n % 13 === 0 ? n / 13 : null;
      const gg = el('g', { 'data-target': `T${n}` });
      gg.append(el('rect', { x: x - U / 2, y: y - U / 2, width: U, height: U, fill: start !== null ? COLOURS[start] : '#ffffff', stroke: '#222', 'stroke-width': 1.5 }));
      const icon = start !== null ? ink(COLOURS[start]) : '#555';
      if (GLOBES.has(n)) gg.append(globe(x, y, U * 0.3, icon));
      if (STARS.has(n)) gg.append(star(x, y, U * 0.36, 'none', { stroke: icon, 'stroke-width': 2 }));
      overlays(gg, { x: x - U / 2 + 2, y: y - U / 2 + 2, w: U - 4, h: U - 4 });
      svg.append(gg);
    }
    const spot = (c, k, place) => {
      if (place.at === 'yard') return yardPos(c, k);
      if (place.at === 'track') return trackPos(place.track_field);
      if (place.at === 'home_column') return columnPos(c, place.field);
      return homePos(c);
    };
    (s.seats || []).forEach((player, seat) => {
      const c = player.colour;
      const groups = {};
      player.pawns.forEach((place, k) => { (groups[placeKey(place)] ||= []).push([k, place]); });
      for (const [pk, list] of Object.entries(groups)) {
        list.forEach(([k, place], i) => {
          const pos = spot(c, k, place);
          let [x, y] = P(pos);
          if (place.at !== 'yard' && list.length > 1) { x += (i - (list.length - 1) / 2) * 8; y -= (i - (list.length - 1) / 2) * 4; }
          const pg = el('g', { 'data-piece': `s${seat}:${pk}`, 'data-target': targetKey(c, place), class: 'pawn' });
          pg.append(el('title', {}, `${NAMES[c]} pawn ${k + 1}`));
          pg.append(el('circle', { cx: x, cy: y + 2, r: U * 0.36, fill: '#000', opacity: 0.25 }));
          pg.append(el('circle', { cx: x, cy: y, r: U * 0.34, fill: COLOURS[c], stroke: '#111', 'stroke-width': 2.5 }));
          pg.append(el('circle', { cx: x, cy: y, r: U * 0.14, fill: '#fff', opacity: 0.7 }));
          overlays(pg, { cx: x, cy: y, r: U * 0.38 });
          svg.append(pg);
        });
      }
    });
    // the other players' moves since mine: where each pawn was, and where it went
    markLast(svg, ctx, (entry) => {
      const m = entry.move;
      const player = ((entry.before.state || {}).seats || [])[entry.seat];
      const was = player && player.pawns[m.pawn];
      if (!was) return [];
      const c = player.colour;
      const [hop] = ludo.hops(entry.before, m);
      const to = hop.to;
      let b;
      if (to.startsWith('T')) b = trackPos(Number(to.slice(1)));
      else if (to.startsWith('C')) b = columnPos(c, Number(to.split('-')[1]));
      else b = homePos(c);
      return [[P(spot(c, m.pawn, was)), P(b), `${placeKey(was)}`, to]];
    }, U * 0.42, (e) => { const c = e.before.state.seats[e.seat].colour; return `${NAMES[c]} ${ludo.describe(e.before, e.move)}`; });
    return touchTargets(svg);
  },
};

export default ludo;
