// The opponents' last move, from the event log: the moves the other seats played since
// the viewer's own last move (a spectator: the newest move), each with the game as it
// was just before it (`GET /v1/games/{id}/state?at=SEQ-1`), so that a board can tell
// where each piece came from. The boards draw them from `ctx.last` (see markLast in
// boards/common.js).

/** How many events back to look for the viewer's own last move. */
const WINDOW = 120;
/** At most this many moves are marked (a long run of extra rolls in Ludo). */
const MOST = 8;

const cache = new Map();

/** Whether a move places pieces (backgammon's cube and resignation decisions do not). */
export function placesPieces(move) {
  return move !== null && typeof move === 'object' && !('resign' in move);
}

/**
 * Which of `events` (oldest first, the log's tail) to mark for a viewer holding the seats
 * `me`: the piece moves of other seats after the viewer's own last piece move, newest
 * last; for a spectator only the newest piece move.
 */
export function movesToMark(events, me = []) {
  const moves = events.filter((e) => e.type === 'move_played' && placesPieces(e.payload.move));
  if (!me.length) return moves.slice(-1);
  const out = [];
  for (let i = moves.length - 1; i >= 0 && out.length < MOST; i--) {
    if (me.includes(moves[i].payload.seat)) break;
    out.unshift(moves[i]);
  }
  return out;
}

/** A game's round of play: a new game of a backgammon match starts with a clean board. */
function round(g) {
  const m = g && g.state && g.state.match;
  return m && typeof m.game === 'number' ? m.game : 0;
}

async function compute(g, me, get) {
  const after = Math.max(0, g.version - WINDOW);
  const page = await get(`/v1/games/${g.id}/events?after=${after}&limit=${Math.min(WINDOW, Math.max(1, g.version - after))}`);
  const marked = movesToMark((page && page.events) || [], me);
  const out = [];
  for (const e of marked) {
    const before = await get(`/v1/games/${g.id}/state?at=${e.seq - 1}`);
    if (round(before) !== round(g)) continue;
    out.push({ seat: e.payload.seat, move: e.payload.move, seq: e.seq, before });
  }
  return out;
}

/** Nothing yet: the moves are being fetched. */
function pending() {
  return Object.assign([], { pending: true });
}

/**
 * The moves to mark on `g` for the viewer with seats `me`, as [{seat, move, seq,
 * before}], or an empty list marked `pending` while they are being fetched: `onReady`
 * is called once they are here. `get(path)` reads the API. Results are kept per game
 * version.
 */
export function lastMoves(g, me, { get, onReady }) {
  if (!g || !g.id || !g.version) return [];
  const key = `${g.id}@${g.version}:${[...me].sort().join(',')}`;
  const hit = cache.get(key);
  if (hit && hit.done) return hit.value;
  if (!hit) {
    const entry = { done: false, value: pending() };
    cache.set(key, entry);
    if (cache.size > 50) cache.delete(cache.keys().next().value);
    compute(g, me, get).then((v) => {
      entry.value = v;
      entry.done = true;
      if (onReady) onReady();
    }, () => { entry.value = []; entry.done = true; if (onReady) onReady(); });
  }
  return pending();
}
