// Clicks to moves, without a browser: the board modules' hops and the matcher of
// api/web/match.js on real legal-move lists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchMoves, choices, decide } from '../../api/web/match.js';
import backgammon from '../../api/web/boards/backgammon.js';
import hoofden from '../../api/web/boards/hoofden.js';
import ludo from '../../api/web/boards/ludo.js';
import mejn from '../../api/web/boards/mens_erger_je_niet.js';
import aliBaba from '../../api/web/boards/ali_baba.js';
import { pointFor, viewerSide, pips, notation, diceCaption } from '../../api/web/boards/backgammon.js';
import { movesToMark, placesPieces } from '../../api/web/last_move.js';

const start = [2, 0, 0, 0, 0, -5, 0, -3, 0, 0, 0, 5, -5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, -2];
const bg = (board, to_move, legal) => ({
  variant: 'backgammon', to_move: to_move === 'white' ? 0 : 1, legal_moves: legal,
  state: { board, bar: { white: 0, black: 0 }, off: { white: 0, black: 0 }, to_move, dice: [1, 5] },
});
const steps = (...pairs) => ({ steps: pairs.map(([from, to]) => ({ from, to })) });
const run = (board, g, clicks) => matchMoves(g.legal_moves.map((m) => ({ move: m, hops: board.hops(g, m) })), clicks);

test('backgammon: one checker can be clicked straight to where both numbers take it', () => {
  // Black 5-1 from the start (a real list from the server).
  const g = bg(start, 'black', [
    steps([13, 8], [24, 23]), steps([13, 8], [8, 7]), steps([13, 8], [6, 5]), steps([8, 3], [24, 23]),
    steps([8, 3], [8, 7]), steps([8, 3], [6, 5]), steps([8, 3], [3, 2]), steps([24, 23], [23, 18]),
  ]);
  const first = choices(run(backgammon, g, []), 'p13');
  assert.deepEqual([...first.targets].sort(), ['p7', 'p8']);
  const m = run(backgammon, g, [{ from: 'p13', to: 'p7' }]);
  assert.deepEqual(decide(m), { kind: 'play', move: steps([13, 8], [8, 7]) });
  // Step by step: 24 -> 23, then the next checker.
  let after = run(backgammon, g, [{ from: 'p24', to: 'p23' }]);
  assert.equal(decide(after).kind, 'more');
  assert.deepEqual([...choices(after).sources].sort(), ['p13', 'p23', 'p8']);
  after = run(backgammon, g, [{ from: 'p24', to: 'p23' }, { from: 'p8', to: 'p3' }]);
  assert.deepEqual(decide(after), { kind: 'play', move: steps([8, 3], [24, 23]) });
  // The tentative board shows the first checker moved; an empty point cannot start a step.
  const t = backgammon.tentative(g, [{ from: 'p24', to: 'p23' }]);
  assert.equal(t.state.board[22], -1);
  assert.equal(t.state.board[23], -1);
  assert.equal(backgammon.canStart(t, 'p23'), true);
  assert.equal(backgammon.canStart(g, 'p23'), false);
});

test('backgammon: two moves with the same clicks but a different path get a chooser; bar and off', () => {
  // White on 1 with a 5-1; a black blot on 2: 1 -> 2 (hit) -> 7 or 1 -> 6 -> 7.
  const board = start.slice();
  board[1] = -1;
  board[5] = 0;
  const g = bg(board, 'white', [steps([1, 2], [2, 7]), steps([1, 6], [6, 7]), steps(['bar', 5], [19, 'off'])]);
  const m = run(backgammon, g, [{ from: 'p1', to: 'p7' }]);
  const d = decide(m);
  assert.equal(d.kind, 'choose');
  assert.equal(d.moves.length, 2);
  const bar = run(backgammon, g, [{ from: 'bar-white', to: 'p5' }, { from: 'p19', to: 'off-white' }]);
  assert.deepEqual(decide(bar), { kind: 'play', move: steps(['bar', 5], [19, 'off']) });
});

test('the other games: one click on the piece, one on its target', () => {
  const h = { state: { board: {} }, legal_moves: [{ from: 'c3', to: 'd4' }, { from: 'c3', to: 'b4' }] };
  const c = choices(run(hoofden, h, []), 'c3');
  assert.deepEqual([...c.sources], ['c3']);
  assert.deepEqual([...c.targets].sort(), ['b4', 'd4']);
  assert.deepEqual(decide(run(hoofden, h, [{ from: 'c3', to: 'b4' }])), { kind: 'play', move: { from: 'c3', to: 'b4' } });

  const l = { to_move: 1, state: { turn: { phase: 'move', seat: 1, roll: 3 }, seats: [
    { colour: 0, pawns: [{ at: 'yard' }] },
    { colour: 2, pawns: [{ at: 'yard' }, { at: 'track', field: 45, track_field: 19 }, { at: 'track', field: 50, track_field: 24 }] },
  ] }, legal_moves: [{ action: 'enter', pawn: 0 }, { action: 'move', pawn: 1, to: 47 }, { action: 'home', pawn: 2 }] };
  assert.deepEqual(ludo.hops(l, l.legal_moves[0]), [{ from: 's1:Y', to: 'T26' }]);
  assert.deepEqual(ludo.hops(l, l.legal_moves[1]), [{ from: 's1:T19', to: 'T21' }]);
  assert.deepEqual(ludo.hops(l, l.legal_moves[2]), [{ from: 's1:T24', to: 'H2' }]);
  const plain = { ...l, legal_moves: [{ action: 'move', pawn: 2, to: 53 }] };
  assert.deepEqual(ludo.hops(plain, plain.legal_moves[0]), [{ from: 's1:T24', to: 'C2-53' }]);

  const mv = { colour: 2, pawn: 1, to: { at: 'home', circle: 'b' } };
  assert.deepEqual(mejn.hops({}, mv), [{ from: 'c2p1', to: 'h2b' }]);
  assert.deepEqual(mejn.hops({}, { colour: 0, pawn: 3, to: { at: 'track', field: 0, step: 0 } }), [{ from: 'c0p3', to: 'f0' }]);

  assert.deepEqual(aliBaba.hops({ to_move: 1 }, { figure: 'lady', from: 0, to: 2 }), [{ from: 's1-lady', to: 'pos2' }]);
});

test('backgammon: decisions of the cube and resignations have no clicks and are named', () => {
  const g = { to_move: 0, state: { to_move: 'white' } };
  const moves = ['roll', 'double', { resign: 'gammon' }, { steps: [{ from: 1, to: 4 }] }];
  assert.deepEqual(moves.map((m) => backgammon.hops(g, m).length), [0, 0, 0, 1]);
  assert.deepEqual(moves.slice(0, 3).map((m) => backgammon.describe(g, m)),
    ['Roll the dice', 'Double: offer the cube at 2', 'Offer to resign a gammon (2 points)']);
  // A click never plays a decision.
  const cands = matchMoves(moves.map((m) => ({ move: m, hops: backgammon.hops(g, m) })), [{ from: 'p1', to: 'p4' }]);
  assert.deepEqual(decide(cands), { kind: 'play', move: moves[3] });
});

test('backgammon: each player counts the points from his own home board; spectators get White\'s count', () => {
  // The engine's point 24 is White's 1-point (his home board is 19-24), Black's 24-point.
  assert.deepEqual([24, 19, 13, 12, 1].map((p) => pointFor('white', p)), [1, 6, 12, 13, 24]);
  assert.deepEqual([24, 19, 13, 12, 1].map((p) => pointFor('black', p)), [24, 19, 13, 12, 1]);
  const g = { to_move: 1, state: { to_move: 'black' } };
  assert.equal(viewerSide(g, [0]), 'white');
  assert.equal(viewerSide(g, [1]), 'black');
  assert.equal(viewerSide(g, []), 'white');
  assert.equal(viewerSide(g, [0, 1]), 'black', 'a player holding both seats sees the mover\'s count');
  // Moves in the mover's own count, as GNU Backgammon writes them: White's 24/18 13/11
  // is the engine's 1 -> 7 and 12 -> 14.
  const white = steps([1, 7], [12, 14]);
  assert.equal(notation('white', white), '24/18 13/11');
  assert.equal(notation('black', steps([24, 18], [13, 11])), '24/18 13/11');
  assert.equal(notation('white', steps(['bar', 3], [22, 'off'])), 'bar/22 3/off');
  assert.equal(backgammon.describe({ to_move: 0, state: { to_move: 'white' } }, white), '24/18 13/11');
  // Keyboard labels: the engine's point 8 (3 black) is Black's 8 and White's 17.
  const bgs = { state: { board: start, to_move: 'black' }, to_move: 1 };
  assert.equal(backgammon.describeKey(bgs, 'p8'), 'point 8 (3 black)');
  assert.equal(backgammon.describeKey({ ...bgs, to_move: 0, state: { board: start, to_move: 'white' } }, 'p8'), 'point 17 (3 black)');
});

test('backgammon: the pip count of both sides', () => {
  const s = { board: start, bar: { white: 0, black: 0 }, off: { white: 0, black: 0 } };
  assert.deepEqual(pips(s), { white: 167, black: 167 });
  const b = start.slice();
  b[0] = 1; // one white checker on the bar: 24 pips less on the board, 25 more on the bar
  assert.deepEqual(pips({ ...s, board: b, bar: { white: 1, black: 0 } }), { white: 168, black: 167 });
});

test('backgammon: the opening roll names who rolled which die', () => {
  const g = (state, last) => ({ state: { opening_roll: {}, dice: [], ...state }, last_dice: last });
  assert.match(diceCaption(g({ phase: 'opening_roll' }, null)), /White rolls one die, then Black/);
  assert.match(diceCaption(g({ phase: 'opening_roll', opening_roll: { white: 6 } }, { seat: 0, values: [6] })),
    /White rolled 6; Black rolls next/);
  // Black's die was the last rolled, but White rolled the 6 and starts.
  const done = g({ phase: 'move', to_move: 'white', opening_roll: { white: 6, black: 3 }, dice: [6, 3] }, { seat: 1, values: [3] });
  assert.match(diceCaption(done), /White rolled 6, Black rolled 3: White starts with 6-3/);
  const faces = backgammon.diceFaces(done);
  assert.deepEqual(faces.map((f) => [f.value, f.label]), [[6, "White's die showing 6"], [3, "Black's die showing 3"]]);
  const tie = g({ phase: 'opening_roll', opening_roll: {}, dice: [4, 4] }, { seat: 1, values: [4] });
  assert.match(diceCaption(tie), /White 4, Black 4, a tie: both roll again/);
  // Later rolls: the roller's two dice, no caption of the board's own.
  const later = g({ phase: 'move', to_move: 'black', opening_roll: { white: 6, black: 3 }, dice: [5, 2] }, { seat: 1, values: [5, 2] });
  assert.equal(diceCaption(later), null);
  assert.deepEqual(backgammon.diceFaces(later).map((f) => f.label), ["Black's die showing 5", "Black's die showing 2"]);
});

test('the last move: the other seats\' moves since mine, a spectator the newest', () => {
  const ev = (seq, seat, move) => ({ seq, type: 'move_played', payload: { seat, move } });
  const roll = (seq, seat) => ({ seq, type: 'dice_rolled', payload: { seat, values: [3] } });
  const log = [ev(3, 0, { steps: [] }), roll(4, 1), ev(5, 1, { a: 1 }), ev(6, 2, { a: 2 }), ev(7, 0, 'roll'), ev(8, 3, { a: 3 })];
  assert.deepEqual(movesToMark(log, [0]).map((e) => e.seq), [5, 6, 8], 'decisions neither count nor show');
  assert.deepEqual(movesToMark(log, [2]).map((e) => e.seq), [8]);
  assert.deepEqual(movesToMark(log, [3]).map((e) => e.seq), []);
  assert.deepEqual(movesToMark(log, []).map((e) => e.seq), [8]);
  assert.equal(placesPieces('double'), false);
  assert.equal(placesPieces({ resign: 'single' }), false);
  assert.equal(placesPieces({ from: 'c3', to: 'd4' }), true);
});
