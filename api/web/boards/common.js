// Shared SVG helpers for the board drawings.
export const NS = 'http://www.w3.org/2000/svg';

/** An SVG element with attributes and children. */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null && v !== false) e.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return e;
}

/** The root <svg> of a board, scaled to its container. */
export function root(x, y, w, h, title) {
  const svg = el('svg', { viewBox: `${x} ${y} ${w} ${h}`, role: 'group', 'aria-label': title });
  svg.append(el('title', {}, title));
  return svg;
}

/**
 * Overlays for an interactive spot: a selection ring (hl), a target marker (tg) and a
 * keyboard focus ring (fo). `shape` is {cx, cy, r} or {x, y, w, h}.
 */
export function overlays(g, shape, pad = 0) {
  const mk = (cls, extra) => {
    if (shape.r !== undefined) {
      return el('circle', { class: cls, cx: shape.cx, cy: shape.cy, r: shape.r + extra });
    }
    return el('rect', { class: cls, x: shape.x - extra, y: shape.y - extra, width: shape.w + 2 * extra,
      height: shape.h + 2 * extra, rx: Math.min(shape.w, shape.h) * 0.12 });
  };
  g.append(mk('hl', pad), mk('tg', pad), mk('fo', pad + 3));
  return g;
}

/** Text centred on a point. */
export function label(x, y, text, attrs = {}) {
  return el('text', { x, y, 'text-anchor': 'middle', 'dominant-baseline': 'central', ...attrs }, text);
}

/** Black or white, whichever reads better on `hex`. */
export function ink(hex) {
  const h = hex.replace('#', '');
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return lum > 0.18 ? '#111111' : '#ffffff';
}

/** A die face: pips for 1-6, otherwise the value (or a symbol) written on it. */
export function dieFace(value, opts = {}) {
  const size = 44;
  const fill = opts.fill || '#ffffff';
  const fg = opts.ink || ink(fill);
  const svg = el('svg', { class: 'die', viewBox: `0 0 ${size} ${size}`, role: 'img',
    'aria-label': opts.label || `die showing ${value}` });
  svg.append(el('rect', { x: 2, y: 2, width: size - 4, height: size - 4, rx: 8, fill, stroke: '#222', 'stroke-width': 2 }));
  const pips = { 1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]], 4: [[1, 1], [3, 1], [1, 3], [3, 3]],
    5: [[1, 1], [3, 1], [2, 2], [1, 3], [3, 3]], 6: [[1, 1], [3, 1], [1, 2], [3, 2], [1, 3], [3, 3]] };
  if (opts.symbol === 'globe') {
    svg.append(globe(22, 22, 13, fg));
  } else if (opts.symbol === 'star') {
    svg.append(star(22, 22, 14, fg));
  } else if (!opts.text && pips[value]) {
    for (const [i, j] of pips[value]) svg.append(el('circle', { cx: i * 10 + 2, cy: j * 10 + 2, r: 4, fill: fg }));
  } else {
    svg.append(label(22, 23, String(value), { 'font-size': 22, 'font-weight': 700, fill: fg }));
  }
  return svg;
}

/** A five-pointed star path centred on (cx, cy). */
export function star(cx, cy, r, fill, attrs = {}) {
  const pts = [];
  for (let i = 0; i < 10; i++) {
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    const rr = i % 2 === 0 ? r : r * 0.45;
    pts.push(`${(cx + rr * Math.cos(a)).toFixed(2)},${(cy + rr * Math.sin(a)).toFixed(2)}`);
  }
  return el('polygon', { points: pts.join(' '), fill, ...attrs });
}

/** A globe: a circle with a meridian and the equator. */
export function globe(cx, cy, r, stroke, attrs = {}) {
  return el('g', { fill: 'none', stroke, 'stroke-width': Math.max(1, r / 7), ...attrs },
    el('circle', { cx, cy, r }),
    el('ellipse', { cx, cy, rx: r * 0.45, ry: r }),
    el('line', { x1: cx - r, y1: cy, x2: cx + r, y2: cy }));
}
