// Mens-erger-je-niet: the cross-shaped 4-colour board (40 fields) and the six-armed
// 6-colour board (48 fields), with each colour's waiting area B and home circles a-d.
import { el, root, overlays, label, ink, touchTargets, markLast } from './common.js';

const COLOURS = ['#d32f2f', '#1565c0', '#f9a825', '#2e7d32', '#7b1fa2', '#ef6c00'];
const NAMES = ['Red', 'Blue', 'Yellow', 'Green', 'Purple', 'Orange'];
const CIRCLES = ['a', 'b', 'c', 'd'];

/** Field centres, home circles and waiting spots of a side, in board units. */
function layout(six) {
  const L = { track: [], home: [], wait: [], unit: 1 };
  if (!six) {
    const t0 = [[0, 4], [1, 4], [2, 4], [3, 4], [4, 4], [4, 3], [4, 2], [4, 1], [4, 0], [5, 0]];
    const h0 = [[1, 5], [2, 5], [3, 5], [4, 5]];
    const b0 = [[0, 0], [1, 0], [0, 1], [1, 1]];
    const rot = ([x, y], n) => { let p = [x, y]; for (let i = 0; i < n; i++) p = [10 - p[1], p[0]]; return p; };
    for (let c = 0; c < 4; c++) {
      for (const p of t0) L.track.push(rot(p, c));
      L.home.push(h0.map((p) => rot(p, c)));
      L.wait.push(b0.map((p) => rot(p, c)));
    }
    L.box = [-0.7, -0.7, 11.4, 11.4];
    return L;
  }
  const pol = (r, a) => [r * Math.cos(a), r * Math.sin(a)];
  const add = (p, q, k = 1) => [p[0] + k * q[0], p[1] + k * q[1]];
  for (let c = 0; c < 6; c++) {
    const a = Math.PI + (c * Math.PI) / 3;
    const b = a + Math.PI / 3;
    const u = pol(1, a);
    const v = pol(1, a + Math.PI / 2);
    const u2 = pol(1, b);
    const v2 = pol(1, b + Math.PI / 2);
    for (const r of [5.6, 4.6, 3.6]) L.track.push(add(pol(r, a), v));
    L.track.push(pol(2.77, a + Math.PI / 6));
    for (const r of [3.6, 4.6, 5.6]) L.track.push(add(pol(r, b), v2, -1));
    L.track.push(pol(5.6, b));
    L.home.push([4.6, 3.6, 2.6, 1.6].map((r) => pol(r, a)));
    const m = pol(5.9, a + Math.PI / 6);
    L.wait.push([[-0.55, -0.55], [0.55, -0.55], [-0.55, 0.55], [0.55, 0.55]].map((d) => add(m, d)));
    void u; void u2;
  }
  L.box = [-7, -7, 14, 14];
  return L;
}

function placeKey(colour, pawn, place) {
  if (place.at === 'track') return `f${place.field}`;
  if (place.at === 'home') return `h${colour}${place.circle}`;
  return `b${colour}-${pawn}`;
}

const describe = (g, m) => `${NAMES[m.colour]} pawn ${m.pawn + 1} to ${m.to.at === 'home' ? `home ${m.to.circle}` : `field ${m.to.field}`}`;

export default {
  seatName(g, i) {
    const seat = (g.state.seats || [])[i];
    return seat ? seat.colours.map((c) => NAMES[c]).join(' + ') : null;
  },
  seatColour(g, i) {
    const seat = (g.state.seats || [])[i];
    return seat && seat.colours.length ? COLOURS[seat.colours[0]] : null;
  },
  hops: (g, m) => [{ from: `c${m.colour}p${m.pawn}`, to: placeKey(m.colour, m.pawn, m.to) }],
  describeKey(g, k) {
    let m = k.match(/^c(\d+)p(\d+)$/);
    if (m) return `${NAMES[m[1]]} pawn ${Number(m[2]) + 1}`;
    m = k.match(/^f(\d+)$/);
    if (m) return `field ${m[1]}`;
    m = k.match(/^h(\d+)([a-d])$/);
    if (m) return `${NAMES[m[1]]} home circle ${m[2]}`;
    return k;
  },
  describe,
  draw(g, ctx) {
    const s = g.state;
    const six = s.side === 'six_colours';
    const n = six ? 6 : 4;
    const L = layout(six);
    const U = 40;
    const [bx, by, bw, bh] = L.box;
    const svg = root(bx * U, by * U, bw * U, bh * U, `Mens-erger-je-niet board, ${n} colours`);
    const R = U * 0.4;
    const P = (p) => [p[0] * U, p[1] * U];
    svg.append(el('rect', { x: bx * U, y: by * U, width: bw * U, height: bh * U, fill: '#f3e7c9', rx: 16 }));
    // the track as a line through the fields
    svg.append(el('polygon', { points: L.track.map((p) => P(p).join(',')).join(' '), fill: 'none', stroke: '#6b5a3a', 'stroke-width': 3 }));
    const perColour = six ? 8 : 10;
    L.track.forEach((p, f) => {
      const [x, y] = P(p);
      const start = f % perColour === 0 ? f / perColour : null;
      const gg = el('g', { 'data-target': `f${f}` });
      gg.append(el('circle', { cx: x, cy: y, r: R, fill: start !== null ? COLOURS[start] : '#ffffff', stroke: '#222', 'stroke-width': 2 }));
      if (start !== null) gg.append(label(x, y, 'A', { 'font-size': 14, 'font-weight': 700, fill: ink(COLOURS[start]) }));
      overlays(gg, { cx: x, cy: y, r: R });
      svg.append(gg);
    });
    for (let c = 0; c < n; c++) {
      L.home[c].forEach((p, i) => {
        const [x, y] = P(p);
        const gg = el('g', { 'data-target': `h${c}${CIRCLES[i]}` });
        gg.append(el('circle', { cx: x, cy: y, r: R, fill: COLOURS[c], 'fill-opacity': 0.45, stroke: '#222', 'stroke-width': 2 }));
        gg.append(label(x, y, CIRCLES[i], { 'font-size': 13, fill: '#111' }));
        overlays(gg, { cx: x, cy: y, r: R });
        svg.append(gg);
      });
      L.wait[c].forEach((p) => {
        const [x, y] = P(p);
        svg.append(el('circle', { cx: x, cy: y, r: R * 0.95, fill: COLOURS[c], 'fill-opacity': 0.3, stroke: COLOURS[c], 'stroke-width': 3 }));
      });
    }
    const spot = (colour, pawn, place) => {
      if (place.at === 'track') return L.track[place.field];
      if (place.at === 'home') return L.home[colour][CIRCLES.indexOf(place.circle)];
      return L.wait[colour][pawn];
    };
    for (const col of s.colours || []) {
      if (col.status === 'absent') continue;
      col.pawns.forEach((place, pawn) => {
        const p = spot(col.colour, pawn, place);
        if (!p) return;
        const [x, y] = P(p);
        const pg = el('g', { 'data-piece': `c${col.colour}p${pawn}`, 'data-target': placeKey(col.colour, pawn, place), class: 'pawn' });
        pg.append(el('title', {}, `${NAMES[col.colour]} pawn ${pawn + 1}`));
        pg.append(el('circle', { cx: x, cy: y + 2, r: R * 0.78, fill: '#000', opacity: 0.25 }));
        pg.append(el('circle', { cx: x, cy: y, r: R * 0.75, fill: COLOURS[col.colour], stroke: '#111', 'stroke-width': 2.5 }));
        pg.append(el('circle', { cx: x - R * 0.2, cy: y - R * 0.2, r: R * 0.22, fill: '#fff', opacity: 0.55 }));
        overlays(pg, { cx: x, cy: y, r: R * 0.8 });
        svg.append(pg);
      });
    }
    // the other players' moves since mine: where each pawn was, and where it went
    markLast(svg, ctx, (entry) => {
      const m = entry.move;
      const col = ((entry.before.state || {}).colours || []).find((c) => c.colour === m.colour);
      const was = col && col.pawns[m.pawn];
      const a = was && spot(m.colour, m.pawn, was);
      const b = spot(m.colour, m.pawn, m.to);
      return a && b ? [[P(a), P(b), placeKey(m.colour, m.pawn, was), placeKey(m.colour, m.pawn, m.to)]] : [];
    }, R, (e) => describe(e.before, e.move));
    return touchTargets(svg);
  },
};
