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

// ---------------------------------------------------------------- touch targets

/** The smallest touch target, in CSS pixels (WCAG 2.5.5). */
export const TOUCH_PX = 44;

/**
 * Invisible hit areas of at least TOUCH_PX × TOUCH_PX CSS pixels under every piece and
 * place of `svg` (a `<g class="hits">` drawn first), sized once the board is laid out
 * and again whenever its size changes. Each copies its group's `data-piece` and
 * `data-target` and its `movable`/`target` classes, so a tap on it is a tap on the
 * group; style.css lets only the active ones take taps, and makes everything that is not
 * active let taps through to them while the board awaits a click.
 */
export function touchTargets(svg) {
  if (typeof ResizeObserver === 'undefined') return svg;
  const layer = el('g', { class: 'hits', 'aria-hidden': 'true' });
  svg.insertBefore(layer, svg.firstChild);
  let ro;
  let mo;
  const fit = () => {
    // A board replaced by the next drawing lets go of its observers.
    if (!svg.isConnected) { ro.disconnect(); mo.disconnect(); return; }
    const box = svg.viewBox && svg.viewBox.baseVal;
    const r = svg.getBoundingClientRect();
    if (!box || !r.width || !r.height) return;
    // CSS pixels per board unit (the drawing keeps its proportions inside the box).
    const scale = Math.min(r.width / box.width, r.height / box.height);
    const min = TOUCH_PX / scale;
    const rects = [];
    for (const g of svg.querySelectorAll('[data-piece], [data-target]')) {
      if (layer.contains(g)) continue;
      let b;
      try { b = g.getBBox(); } catch { continue; }
      if (!b.width && !b.height) continue;
      const w = Math.max(b.width, min);
      const h = Math.max(b.height, min);
      // Rounded to a disc (a stadium when longer than wide): where two pieces stand close
      // the finger reaches the nearer one, not the one whose square corner reaches out. A
      // radius of exactly half a side leaves a seam Chromium does not hit (points on the
      // middle line, right of the centre): a hair less.
      const round = (Math.min(w, h) / 2) * 0.98;
      const attrs = { x: b.x + b.width / 2 - w / 2, y: b.y + b.height / 2 - h / 2, width: w, height: h,
        rx: round, ry: round, fill: 'transparent', class: [...g.classList].filter((c) => c === 'movable' || c === 'target').join(' ') || null };
      for (const a of ['data-piece', 'data-target']) if (g.hasAttribute(a)) attrs[a] = g.getAttribute(a);
      rects.push(el('rect', attrs));
    }
    // Where two areas overlap, a place to move to wins over a piece to pick (the one
    // already picked is still tapped on its drawing): targets last, drawn on top.
    const rank = (r) => (r.classList.contains('target') ? 2 : r.classList.contains('movable') ? 1 : 0);
    layer.replaceChildren(...rects.sort((a, b) => rank(a) - rank(b)));
  };
  ro = new ResizeObserver(fit);
  ro.observe(svg);
  // The page adds its classes (movable, target) after drawing; copy them when they change.
  mo = new MutationObserver(() => {
    for (const r of layer.children) {
      const k = r.getAttribute('data-piece') ?? r.getAttribute('data-target');
      const attr = r.hasAttribute('data-piece') ? 'data-piece' : 'data-target';
      const g = [...svg.querySelectorAll(`[${attr}]`)].find((e) => !layer.contains(e) && e.getAttribute(attr) === k);
      if (!g) continue;
      for (const c of ['movable', 'target']) r.classList.toggle(c, g.classList.contains(c));
    }
  });
  mo.observe(svg, { subtree: true, attributes: true, attributeFilter: ['class'] });
  return svg;
}

// ---------------------------------------------------------------- the last move

/**
 * Marks a move on the board: a ring where the piece was, a ring where it went and an
 * arrow between them. `from` and `to` are [x, y] in the board's units; `fromKey` and
 * `toKey` name the places (for tests).
 */
export function lastMoveMark(from, to, { fromKey = '', toKey = '', r = 16 } = {}) {
  return moveMark('last', from, to, { fromKey, toKey, r });
}

/**
 * A move drawn as `lastMoveMark` does, its classes and data attributes named after
 * `kind` (`last`, `played`, `best`): `<g class="KIND-move" data-KIND-from data-KIND-to>`
 * with `KIND-from`, `KIND-arrow`, `KIND-head` and `KIND-to` inside, styled in style.css.
 */
export function moveMark(kind, from, to, { fromKey = '', toKey = '', r = 16 } = {}) {
  const g = el('g', { class: `${kind}-move`, [`data-${kind}-from`]: fromKey, [`data-${kind}-to`]: toKey, 'aria-hidden': 'true' });
  if (from) g.append(el('circle', { class: `${kind}-from`, cx: from[0], cy: from[1], r, fill: 'none' }));
  if (from && to) {
    const [x1, y1] = from;
    const [x2, y2] = to;
    const len = Math.hypot(x2 - x1, y2 - y1);
    if (len > 2 * r) {
      const ux = (x2 - x1) / len;
      const uy = (y2 - y1) / len;
      const [ax, ay] = [x1 + ux * r, y1 + uy * r];
      const [bx, by] = [x2 - ux * (r + 2), y2 - uy * (r + 2)];
      const head = Math.min(14, len / 3);
      g.append(el('line', { class: `${kind}-arrow`, x1: ax, y1: ay, x2: bx - ux * head * 0.6, y2: by - uy * head * 0.6 }));
      g.append(el('polygon', { class: `${kind}-head`, points: [[bx, by], [bx - ux * head - uy * head * 0.5, by - uy * head + ux * head * 0.5],
        [bx - ux * head + uy * head * 0.5, by - uy * head - ux * head * 0.5]].map((p) => p.map((v) => v.toFixed(1)).join(',')).join(' ') }));
    }
  }
  if (to) g.append(el('circle', { class: `${kind}-to`, cx: to[0], cy: to[1], r: r + 2, fill: 'none' }));
  return g;
}

/**
 * The marks of `ctx.last` (the moves of the other seats since the viewer's own last one,
 * from last_move.js): `places(entry)` gives [[from, to, fromKey, toKey], …] in the
 * board's units for one of them, and `say(entry)` the move in words (the board's
 * description). Appended last, so they are drawn on top.
 */
export function markLast(svg, ctx, places, r, say) {
  const last = (ctx && ctx.last) || [];
  // Whether the marks are drawn or still being read (for tests and screen readers).
  if (ctx && ctx.last) svg.setAttribute('data-last', last.pending ? 'loading' : 'ready');
  if (!last.length) return svg;
  const layer = el('g', { class: 'last-moves' });
  const said = [];
  for (const entry of last) {
    let segs = [];
    try { segs = places(entry) || []; } catch { segs = []; }
    for (const [from, to, fromKey, toKey] of segs) layer.append(lastMoveMark(from, to, { fromKey, toKey, r }));
    try { if (say) said.push(say(entry)); } catch { /* the marks say it too */ }
  }
  svg.append(layer);
  // Said in words too: the board's description, read with its name.
  if (said.length) svg.append(el('desc', { class: 'last-said' }, `Last move${said.length > 1 ? 's' : ''}: ${said.join('; ')}.`));
  return svg;
}
