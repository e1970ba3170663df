//! The expectimax bot's search when it plays Hoofden.
//!
//! One roll ahead sees nothing there: the only dice are the fights', and the greedy
//! measure of progress never attacks. So this search looks a few plies deep instead:
//! every move of either seat (the other seat answering with the move worst for the
//! bot, by the bot's own measure: alpha-beta), each fight weighed over its exact ends
//! (`fight_ends`: the chance of every way the combat dice can settle it), then the
//! attacks the seat to move has at the last ply, and the position scored by the
//! evaluation of `hoofden_eval` (strength share, threats, closing in, the quiet-moves
//! rule). Deepened one ply at a time while the budget of positions lasts; the deepest
//! search that finished decides.
//!
//! Pure and deterministic: the same position and budget give the same move. Equal
//! values go to the first move in the engine's order for Blue and the last for Red,
//! the same move seen from either side, so that neither seat plays differently for its
//! colour.

use crate::hoofden::{Hoofden, Move, BLUE};
use crate::Game;

pub use super::hoofden_eval::Params;

use super::hoofden_eval::{evaluate, fight_gain};
use super::hoofden_model::{fight_ends, Pos, Status, FIGHT_TOTAL, HEADS};
use crate::Seat;

/// More than any position is worth.
const INF: i64 = 1 << 40;
/// A won game (less the plies it takes, so that the quicker win is preferred).
const WIN: i64 = 1_000_000;
/// The deepest full-width search tried.
const MAX_DEPTH: u32 = 8;

/// The index of the legal move of `game` (which awaits a move) that the search finds
/// best, looking at about `budget` positions (the first ply is always searched whole);
/// `None` when there is no legal move.
pub fn choice(game: &Hoofden, budget: u64) -> Option<usize> {
    decide(game, budget, &Params::DEFAULT).map(|d| d.index)
}

/// What a search decided, and how far it looked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// The index of the chosen move among the legal moves.
    pub index: usize,
    /// Its value to the seat to move, in thousandths of a won game (a won game is
    /// worth 1,000,000).
    pub value: i64,
    /// The plies searched whole by the deepest search that finished (0: one legal move).
    pub depth: u32,
    /// The positions looked at.
    pub nodes: u64,
}

/// [`choice`] with the evaluation's weights, telling how far it looked.
pub fn decide(game: &Hoofden, budget: u64, params: &Params) -> Option<Decision> {
    let moves = game.legal_moves();
    if moves.len() <= 1 {
        return (!moves.is_empty()).then_some(Decision {
            index: 0,
            value: 0,
            depth: 0,
            nodes: 0,
        });
    }
    let root = Pos::of(game);
    let mut search = Search::new(params, root.turn);
    // Both seats look at their moves in the same order seen from their own side (Red's
    // is the engine's backwards), so that neither plays differently for its colour.
    let mut order: Vec<usize> = (0..moves.len()).collect();
    if root.turn != BLUE {
        order.reverse();
    }
    let rank: Vec<usize> = {
        let mut rank = vec![0; order.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r;
        }
        rank
    };
    let mut decision = Decision {
        index: 0,
        value: 0,
        depth: 0,
        nodes: 0,
    };
    for depth in 1..=MAX_DEPTH {
        let Some(values) = search.root(&root, &moves, &order, depth) else {
            break;
        };
        // Best first for the next depth; equal values keep the engine's order.
        let mut ranked: Vec<(i64, usize)> = values.into_iter().zip(order).collect();
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(rank[a.1].cmp(&rank[b.1])));
        decision.index = ranked[0].1;
        decision.value = ranked[0].0;
        decision.depth = depth;
        order = ranked.into_iter().map(|(_, i)| i).collect();
        search.budget = budget;
        if search.nodes >= budget {
            break;
        }
    }
    decision.nodes = search.nodes;
    Some(decision)
}

/// One decision's search: the weights, the positions looked at and the budget, and a
/// list of moves for each ply.
struct Search<'p> {
    params: &'p Params,
    /// The seat the search decides for: a draw is worth `-params.contempt` to it.
    seat: Seat,
    /// The expected gain of an attack by the two heads, by [`fight_gain`].
    gains: [[i64; 4]; 4],
    nodes: u64,
    budget: u64,
    stopped: bool,
    buffers: Vec<Vec<Move>>,
}

impl<'p> Search<'p> {
    fn new(params: &'p Params, seat: Seat) -> Search<'p> {
        let mut gains = [[0; 4]; 4];
        for a in HEADS {
            for d in HEADS {
                gains[a as usize][d as usize] = fight_gain(a, d, params);
            }
        }
        Search {
            params,
            seat,
            gains,
            nodes: 0,
            // The first ply is searched whole, whatever the budget.
            budget: u64::MAX,
            stopped: false,
            buffers: Vec::new(),
        }
    }

    /// What a draw is worth to the seat to move in `pos`.
    fn draw(&self, pos: &Pos) -> i64 {
        let contempt = i64::from(self.params.contempt);
        if pos.turn == self.seat {
            -contempt
        } else {
            contempt
        }
    }

    /// The value of each of `moves` (in `order`) searched `depth` plies deep, exact for
    /// the best and an upper bound for the others; `None` when the budget ran out.
    fn root(
        &mut self,
        root: &Pos,
        moves: &[Move],
        order: &[usize],
        depth: u32,
    ) -> Option<Vec<i64>> {
        let mut values = Vec::with_capacity(order.len());
        let mut alpha = -INF;
        for &i in order {
            let value = self.move_value(root, &moves[i], depth, 0, alpha, INF);
            if self.stopped {
                return None;
            }
            alpha = alpha.max(value);
            values.push(value);
        }
        Some(values)
    }

    /// What playing `mv` in `pos` is worth to `pos`'s seat to move: the position after
    /// it searched `depth - 1` plies more, or for an attack the average over the fight's
    /// ends.
    fn move_value(
        &mut self,
        pos: &Pos,
        mv: &Move,
        depth: u32,
        ply: usize,
        alpha: i64,
        beta: i64,
    ) -> i64 {
        if !pos.is_attack(mv) {
            let next = pos.after_quiet(mv);
            return -self.node(&next, depth - 1, ply + 1, -beta, -alpha);
        }
        let (Some(a), Some(d)) = (pos.board.get(mv.from), pos.board.get(mv.to)) else {
            return -INF;
        };
        let mut sum = 0i64;
        for (end, weight) in fight_ends(a.head, d.head) {
            let next = pos.after_fight(mv, *end);
            sum += -self.node(&next, depth - 1, ply + 1, -INF, INF) * i64::from(*weight);
            if self.stopped {
                return 0;
            }
        }
        sum / i64::from(FIGHT_TOTAL)
    }

    /// The legal moves of `pos` in the list of `ply`, attacks first (the most promising
    /// first), then the quiet moves in the engine's order.
    fn take_moves(&mut self, pos: &Pos, ply: usize) -> Vec<Move> {
        while self.buffers.len() <= ply {
            self.buffers.push(Vec::with_capacity(64));
        }
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        pos.moves(&mut moves);
        if pos.turn != BLUE {
            moves.reverse();
        }
        let gains = &self.gains;
        moves.sort_by_key(|mv| match (pos.board.get(mv.from), pos.board.get(mv.to)) {
            (Some(a), Some(d)) => -gains[a.head as usize][d.head as usize],
            _ => INF,
        });
        moves
    }

    /// Counts `pos` against the budget and lists its moves (in `ply`'s buffer, to be
    /// given back), with its value if the game is over there; `None` once the budget is
    /// spent.
    fn enter(&mut self, pos: &Pos, ply: usize) -> Option<(Vec<Move>, Option<i64>)> {
        self.nodes += 1;
        if self.nodes > self.budget {
            self.stopped = true;
            return None;
        }
        let moves = self.take_moves(pos, ply);
        let end = match pos.status(&moves) {
            Status::Draw => Some(self.draw(pos)),
            Status::Won => Some(WIN - ply as i64),
            Status::Lost => Some(-(WIN - ply as i64)),
            Status::Playing => None,
        };
        Some((moves, end))
    }

    /// The value of `pos` to its seat to move, searched `depth` plies (alpha-beta
    /// between `alpha` and `beta`), then on through the attacks.
    fn node(&mut self, pos: &Pos, depth: u32, ply: usize, mut alpha: i64, beta: i64) -> i64 {
        let Some((moves, end)) = self.enter(pos, ply) else {
            return 0;
        };
        let value = match end {
            Some(value) => value,
            None if depth == 0 => {
                self.quiesce(pos, &moves, self.params.quiescence, ply, alpha, beta)
            }
            None => {
                let mut best = -INF;
                for mv in &moves {
                    let value = self.move_value(pos, mv, depth, ply, alpha, beta);
                    if self.stopped {
                        break;
                    }
                    best = best.max(value);
                    alpha = alpha.max(value);
                    if alpha >= beta {
                        break;
                    }
                }
                best
            }
        };
        self.buffers[ply] = moves;
        value
    }

    /// The value of the quiet-enough `pos` (with its legal `moves`): its evaluation, or
    /// better for its seat to move one of its attacks, each followed by `left - 1`
    /// more plies of attacks.
    fn quiesce(
        &mut self,
        pos: &Pos,
        moves: &[Move],
        left: u32,
        ply: usize,
        mut alpha: i64,
        beta: i64,
    ) -> i64 {
        let mut best = evaluate(pos, self.params, self.draw(pos));
        if left == 0 || best >= beta {
            return best;
        }
        alpha = alpha.max(best);
        for mv in moves.iter().filter(|mv| pos.is_attack(mv)) {
            let (Some(a), Some(d)) = (pos.board.get(mv.from), pos.board.get(mv.to)) else {
                continue;
            };
            let mut sum = 0i64;
            for (end, weight) in fight_ends(a.head, d.head) {
                let next = pos.after_fight(mv, *end);
                sum += -self.quiet_node(&next, left - 1, ply + 1) * i64::from(*weight);
                if self.stopped {
                    return best;
                }
            }
            let value = sum / i64::from(FIGHT_TOTAL);
            best = best.max(value);
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// [`Search::quiesce`] of `pos`, after its end checks.
    fn quiet_node(&mut self, pos: &Pos, left: u32, ply: usize) -> i64 {
        let Some((moves, end)) = self.enter(pos, ply) else {
            return 0;
        };
        let value = match end {
            Some(value) => value,
            None => self.quiesce(pos, &moves, left, ply, -INF, INF),
        };
        self.buffers[ply] = moves;
        value
    }
}
