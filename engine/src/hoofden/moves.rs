//! A move and the generation of the legal moves.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::board::{opponent, Board, BLUE};
use super::head::Head;
use super::options::{Movement, Options};
use super::square::{Diagonal, Square};
use crate::Seat;

/// A move: a pawn goes from one square to another. When the other square holds an
/// opposing pawn, the move is an attack and a fight follows. Under `movement = by_head`
/// the path between the two does not matter: every path to the same square is one move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Move {
    /// The square the pawn leaves, e.g. `c3`.
    pub from: Square,
    /// The square the pawn goes to (or attacks), e.g. `d4`.
    pub to: Square,
}

/// The directions `seat` calls forward.
fn forward(seat: Seat) -> [Diagonal; 2] {
    if seat == BLUE {
        Diagonal::UP
    } else {
        Diagonal::DOWN
    }
}

/// The squares the pawn on `from` can end its move on (empty or holding an opposing
/// pawn), as a bit set.
pub fn destinations(board: &Board, from: Square, movement: Movement) -> u64 {
    let Some(pawn) = board.get(from) else {
        return 0;
    };
    let enemies = board.occupied_by(opponent(pawn.owner));
    let free = !board.occupied();
    let ahead = forward(pawn.owner);
    match (movement, pawn.head) {
        (Movement::Basic, Head::Yellow) => one_step(from, &Diagonal::ALL, free | enemies),
        (Movement::Basic, _) | (Movement::ByHead, Head::Blue) => {
            one_step(from, &ahead, free | enemies)
        }
        (Movement::ByHead, head) => {
            let mut found = 0;
            paths(from, head.steps(), from.bit(), free, enemies, &mut found);
            found
        }
    }
}

fn one_step(from: Square, directions: &[Diagonal], targets: u64) -> u64 {
    directions
        .iter()
        .filter_map(|d| from.step(*d))
        .fold(0, |acc, to| acc | (to.bit() & targets))
}

/// Walks every path of `steps` single diagonal steps from `at` that never enters a square
/// in `visited`, passes over `free` squares only and ends on a free or `enemies` square.
fn paths(at: Square, steps: u8, visited: u64, free: u64, enemies: u64, found: &mut u64) {
    for d in Diagonal::ALL {
        let Some(next) = at.step(d) else { continue };
        if visited & next.bit() != 0 {
            continue;
        }
        if steps == 1 {
            *found |= next.bit() & (free | enemies);
        } else if free & next.bit() != 0 {
            paths(next, steps - 1, visited | next.bit(), free, enemies, found);
        }
    }
}

/// Every legal move of `seat`, ordered by start square then end square (square order
/// a1, c1, ..., j10), into `out` (cleared first). With `forced_attack`, only the attacks
/// when there is at least one.
pub fn generate(board: &Board, seat: Seat, options: &Options, out: &mut Vec<Move>) {
    out.clear();
    let enemies = board.occupied_by(opponent(seat));
    let mut any_attack = false;
    for from in board.squares_of(seat) {
        let mut targets = destinations(board, from, options.movement);
        if options.forced_attack {
            let attacks = targets & enemies;
            if attacks != 0 && !any_attack {
                any_attack = true;
                out.clear();
            }
            if any_attack {
                targets = attacks;
            }
        }
        while targets != 0 {
            let index = targets.trailing_zeros() as usize;
            targets &= targets - 1;
            if let Some(to) = Square::from_index(index) {
                out.push(Move { from, to });
            }
        }
    }
}
