//! The Hoofden search's own light copy of a position: the board, the seat to move, the
//! quiet plies and the options, with a move played and a fight settled in one step by
//! its outcome (weighed by the exact chance of the combat dice) instead of roll by roll.
//! It follows the engine's rules (RULES.md §4); `hoofden_tests` plays whole games through
//! both and checks that they never part.

use std::sync::OnceLock;

use crate::hoofden::board::opponent;
use crate::hoofden::{moves, Board, Head, Hoofden, Move, Options, Pawn, BLUE};
use crate::{Game, Seat};

/// How a fight ends: the pawn that is left (with its head then) or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FightEnd {
    /// The attacker is left, with this head, on the defender's square.
    Attacker(Head),
    /// The defender is left, with this head, on its square.
    Defender(Head),
    /// Both pawns were removed (a tie between two blue heads).
    Both,
}

/// The weight of every sequence of rolls: a fight has at most four rounds (each tie
/// lowers both heads), each of 6 × 6 equally likely pairs of rolls.
pub(crate) const FIGHT_TOTAL: u32 = 36 * 36 * 36 * 36;

/// The ends of a fight of an attacking `a` against a defending `d` head, with weights
/// out of [`FIGHT_TOTAL`], every possible end once, in a fixed order.
pub(crate) fn fight_ends(a: Head, d: Head) -> &'static [(FightEnd, u32)] {
    static TABLE: OnceLock<Vec<Vec<(FightEnd, u32)>>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut table = Vec::with_capacity(16);
        for a in HEADS {
            for d in HEADS {
                let mut ends: Vec<(FightEnd, u32)> = Vec::new();
                rounds(a, d, FIGHT_TOTAL / 36, &mut ends);
                table.push(ends);
            }
        }
        table
    });
    &table[a as usize * 4 + d as usize]
}

/// The four heads, lowest first.
pub(crate) const HEADS: [Head; 4] = [Head::Blue, Head::Green, Head::Red, Head::Yellow];

/// Adds the ends of a round of `a` against `d`, each pair of rolls weighing `weight`.
fn rounds(a: Head, d: Head, weight: u32, ends: &mut Vec<(FightEnd, u32)>) {
    let mut add = |end: FightEnd, w: u32| match ends.iter_mut().find(|(e, _)| *e == end) {
        Some(entry) => entry.1 += w,
        None => ends.push((end, w)),
    };
    let mut ties = 0;
    for x in a.die().faces {
        for y in d.die().faces {
            if x > y {
                add(FightEnd::Attacker(a.up()), weight);
            } else if x < y {
                add(FightEnd::Defender(d.up()), weight);
            } else {
                ties += 1;
            }
        }
    }
    if ties == 0 {
        return;
    }
    match (a.down(), d.down()) {
        (Some(a2), Some(d2)) => {
            for _ in 0..ties {
                rounds(a2, d2, weight / 36, ends);
            }
        }
        (Some(a2), None) => add(FightEnd::Attacker(a2), weight * ties),
        (None, Some(d2)) => add(FightEnd::Defender(d2), weight * ties),
        (None, None) => add(FightEnd::Both, weight * ties),
    }
}

/// A position between moves: who is to move, the pawns, the plies without a fight.
#[derive(Debug, Clone)]
pub(crate) struct Pos {
    pub board: Board,
    pub turn: Seat,
    pub quiet: u16,
    pub options: Options,
}

/// How a position stands before its seat moves: the game's end checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// The game goes on.
    Playing,
    /// Drawn (both sides without pawns, or the quiet-moves rule).
    Draw,
    /// The seat to move has won (the other side has no pawns).
    Won,
    /// The seat to move has lost (no pawns or no legal move).
    Lost,
}

impl Pos {
    /// The position of `game`, which awaits a move.
    pub(crate) fn of(game: &Hoofden) -> Pos {
        let turn = game.awaiting().seat().unwrap_or(BLUE);
        Pos {
            board: game.board().clone(),
            turn,
            quiet: game.plies_without_fight(),
            options: *Game::options(game),
        }
    }

    /// The end checks of RULES.md §4 after the other seat's move, in their order, given
    /// the legal moves `moves` of the seat to move.
    pub(crate) fn status(&self, moves: &[Move]) -> Status {
        let (mine, theirs) = (
            self.board.count(self.turn),
            self.board.count(opponent(self.turn)),
        );
        if mine == 0 && theirs == 0 {
            Status::Draw
        } else if mine == 0 {
            Status::Lost
        } else if theirs == 0 {
            Status::Won
        } else if moves.is_empty() {
            Status::Lost
        } else if self.quiet >= crate::hoofden::PLIES_WITHOUT_FIGHT_FOR_DRAW {
            Status::Draw
        } else {
            Status::Playing
        }
    }

    /// The legal moves of the seat to move, into `out`, in the engine's order.
    pub(crate) fn moves(&self, out: &mut Vec<Move>) {
        moves::generate(&self.board, self.turn, &self.options, out);
    }

    /// Whether `mv` ends on an opposing pawn (starts a fight).
    pub(crate) fn is_attack(&self, mv: &Move) -> bool {
        self.board.occupied_by(opponent(self.turn)) & mv.to.bit() != 0
    }

    /// The position after the quiet move `mv` (onto an empty square).
    pub(crate) fn after_quiet(&self, mv: &Move) -> Pos {
        let mut next = self.clone();
        if let Some(pawn) = next.board.remove(mv.from) {
            next.arrive(mv.to, pawn);
        }
        next.quiet = next.quiet.saturating_add(1);
        next.turn = opponent(self.turn);
        next
    }

    /// The position after the attack `mv` ended in `end`.
    pub(crate) fn after_fight(&self, mv: &Move, end: FightEnd) -> Pos {
        let mut next = self.clone();
        let attacker = next.board.remove(mv.from);
        match end {
            FightEnd::Attacker(head) => {
                next.board.remove(mv.to);
                if let Some(pawn) = attacker {
                    next.arrive(mv.to, Pawn { head, ..pawn });
                }
            }
            FightEnd::Defender(head) => next.board.set_head(mv.to, head),
            FightEnd::Both => {
                next.board.remove(mv.to);
            }
        }
        next.quiet = 0;
        next.turn = opponent(self.turn);
        next
    }

    /// Puts `pawn` on `to`, with a yellow head on the opponent's back row.
    fn arrive(&mut self, to: crate::hoofden::Square, mut pawn: Pawn) {
        if to.rank() == promotion_rank(pawn.owner) {
            pawn.head = Head::Yellow;
        }
        self.board.put(to, pawn);
    }
}

/// The rank on which `seat`'s pawns get a yellow head.
pub(crate) fn promotion_rank(seat: Seat) -> u8 {
    if seat == BLUE {
        9
    } else {
        0
    }
}
