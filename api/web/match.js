// Matching clicks to legal moves. A board module turns each legal move into hops
// ({from, to}: a piece's place and where it ends up; a backgammon move has one hop per
// checker step). The player's clicks are hops too, and may skip over intermediate
// places (13 -> 7 for the steps 13 -> 8 -> 7). A move fits the clicks when each click
// can be made from a chain of its not yet used hops.

/** A chain of hops in `rest` from `from` to `to`, as indexes into `rest`, or null. */
export function chain(rest, from, to, used = new Set()) {
  for (let i = 0; i < rest.length; i++) {
    if (used.has(i) || rest[i].from !== from) continue;
    if (rest[i].to === to) return [i];
    used.add(i);
    const more = chain(rest, rest[i].to, to, used);
    used.delete(i);
    if (more) return [i, ...more];
  }
  return null;
}

/** Every place reachable from `from` by a chain of hops in `rest`. */
export function reach(rest, from, used = new Set(), out = new Set()) {
  for (let i = 0; i < rest.length; i++) {
    if (used.has(i) || rest[i].from !== from) continue;
    out.add(rest[i].to);
    used.add(i);
    reach(rest, rest[i].to, used, out);
    used.delete(i);
  }
  return out;
}

/**
 * The moves that fit the clicks so far, each with its hops not yet used (`rest`).
 * `moves` is [{move, hops}], `clicks` is [{from, to}].
 */
export function matchMoves(moves, clicks) {
  const out = [];
  for (const m of moves) {
    let rest = m.hops.slice();
    let ok = true;
    for (const c of clicks) {
      const idx = chain(rest, c.from, c.to);
      if (!idx) { ok = false; break; }
      rest = rest.filter((_, i) => !idx.includes(i));
    }
    if (ok) out.push({ move: m.move, rest });
  }
  return out;
}

/** The places a piece may be clicked on next, and (with `source`) where it may go. */
export function choices(matched, source = null) {
  const sources = new Set();
  const targets = new Set();
  for (const c of matched) {
    for (const hp of c.rest) sources.add(hp.from);
    if (source !== null) for (const t of reach(c.rest, source)) targets.add(t);
  }
  return { sources, targets };
}

/** What the clicks decide: `play` one move, `choose` among several, or `more` clicks. */
export function decide(matched) {
  const done = matched.filter((c) => c.rest.length === 0);
  if (matched.length === 0) return { kind: 'none' };
  if (done.length === 1 && matched.length === 1) return { kind: 'play', move: done[0].move };
  if (done.length && done.length === matched.length) return { kind: 'choose', moves: done.map((c) => c.move) };
  return { kind: 'more' };
}
