//! What a Hoofden position is worth to the seat to move, in thousandths of a won game.
//!
//! - **Lead**: its share of the strength on the board, `(mine - theirs) / (mine +
//!   theirs)`, a pawn counting by its head (blue 10 to yellow 20: a game is won by
//!   removing pawns, whatever their heads) and part of the way to a yellow head by the
//!   ranks it has left to go. A share, not a difference, so that an even trade is good
//!   for the side ahead (three pawns against two, after a trade two against one), as it
//!   is in a series of even fights.
//! - **Threat**: the other side's best attack counts in part against the seat to move
//!   (its own attacks the search plays out).
//! - **Closing in**: the side ahead wants to stand near the pawns it can attack, and
//!   its yellow heads near any opposing pawn; the further away, the less its lead
//!   counts (the lead shrinks, so a bigger lead is always worth more).
//! - **The quiet-moves rule**: once fewer plies are left before the draw than the
//!   walk to the nearest possible fight takes, plus a margin, the worth fades towards
//!   a draw's, which the search sets below nothing for the seat it plays for
//!   ([`Params::contempt`]): ahead or level, it goes for a fight rather than the draw.

use crate::hoofden::board::{opponent, side};
use crate::hoofden::{moves, Board, Head, Options, Square};
use crate::Seat;

use super::hoofden_model::{fight_ends, promotion_rank, FightEnd, Pos, FIGHT_TOTAL};

/// The weights of the evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// The fighting strength of a pawn by its head, blue to yellow.
    pub strength: [i32; 4],
    /// How much of the way to yellow a non-yellow pawn counts, in 256ths, by the ranks it
    /// still has to go (index 1 = one rank from the back row).
    pub promotion: [i32; 10],
    /// How much of the other side's best threat counts against the seat to move, in
    /// 256ths of its expected gain.
    pub threat: i32,
    /// The side ahead's lead is divided by 1 + `hunt` / 1000 for each move, on average
    /// over the opposing pawns, that its nearest pawn needs to attack one...
    pub hunt: i32,
    /// ... and by 1 + `chase` / 1000 (together, added) for each step, on average over
    /// its yellow heads, to the nearest opposing pawn.
    pub chase: i32,
    /// The worth fades linearly to a draw's over the last `100 - fade_from` plies before
    /// the quiet-moves rule would draw, counted from when the nearest fight is reached.
    pub fade_from: u16,
    /// Plies of attacks searched past the full-width plies.
    pub quiescence: u32,
    /// What a draw costs the seat searched for, in thousandths of a game (the other seat
    /// gains as much): it plays on rather than draw unless it stands worse than that.
    pub contempt: i32,
}

impl Params {
    /// The weights the bot plays with.
    pub const DEFAULT: Params = Params {
        strength: [10, 12, 15, 20],
        promotion: [256, 128, 77, 46, 26, 13, 6, 3, 0, 0],
        threat: 128,
        hunt: 80,
        chase: 80,
        fade_from: 40,
        contempt: 500,
        quiescence: 1,
    };
}

/// Thousandths of a game: the scale of [`evaluate`].
pub(crate) const GAME: i64 = 1000;

/// The strength `seat` has on `board`: its heads, and the way to yellow done.
fn strength(board: &Board, seat: Seat, p: &Params) -> i64 {
    let yellow = p.strength[Head::Yellow as usize];
    let promo = promotion_rank(seat);
    let mut total = 0i64;
    for sq in board.squares_of(seat) {
        let Some(pawn) = board.get(sq) else { continue };
        let own = p.strength[pawn.head as usize];
        let to_go = usize::from(sq.rank().abs_diff(promo));
        let lift = if pawn.head == Head::Yellow {
            0
        } else {
            (yellow - own) * p.promotion[to_go.min(9)] / 256
        };
        total += i64::from(own + lift);
    }
    total
}

/// The expected gain in strength (attacker's less defender's) of a fight of `a` against
/// `d`, by the heads alone.
pub(crate) fn fight_gain(a: Head, d: Head, p: &Params) -> i64 {
    let s = |h: Head| i64::from(p.strength[h as usize]);
    let mut sum = 0i64;
    for (end, w) in fight_ends(a, d) {
        let delta = match *end {
            FightEnd::Attacker(h) => s(h) - s(a) + s(d),
            FightEnd::Defender(h) => -(s(h) - s(d)) - s(a),
            FightEnd::Both => s(d) - s(a),
        };
        sum += delta * i64::from(*w);
    }
    sum / i64::from(FIGHT_TOTAL)
}

/// The best expected gain of an attack `seat` has on `board` (0 if none gains).
fn best_threat(board: &Board, seat: Seat, options: &Options, p: &Params) -> i64 {
    let enemies = board.occupied_by(opponent(seat));
    let mut best = 0;
    for from in board.squares_of(seat) {
        let mut targets = moves::destinations(board, from, options.movement) & enemies;
        let Some(attacker) = board.get(from) else {
            continue;
        };
        while targets != 0 {
            let index = targets.trailing_zeros() as usize;
            targets &= targets - 1;
            let defender = Square::from_index(index).and_then(|sq| board.get(sq));
            if let Some(defender) = defender {
                best = best.max(fight_gain(attacker.head, defender.head, p));
            }
        }
    }
    best
}

/// Diagonal steps between two dark squares.
fn distance(a: Square, b: Square) -> i32 {
    i32::from(a.file().abs_diff(b.file()).max(a.rank().abs_diff(b.rank())))
}

/// The moves the pawn of `seat` with `head` on `from` needs to attack `to` (were `to`
/// to stay): a yellow head goes any way, the others forward only, and to a pawn behind
/// them by way of the opponent's back row, where they get a yellow head.
fn reach(seat: Seat, head: Head, from: Square, to: Square) -> i64 {
    let straight = i64::from(distance(from, to));
    if head == Head::Yellow {
        return straight;
    }
    let ahead = if seat == crate::hoofden::BLUE {
        i64::from(to.rank()) - i64::from(from.rank())
    } else {
        i64::from(from.rank()) - i64::from(to.rank())
    };
    if ahead > 0 && ahead >= i64::from(from.file().abs_diff(to.file())) {
        return straight;
    }
    let promotion = promotion_rank(seat);
    i64::from(from.rank().abs_diff(promotion)) + i64::from(to.rank().abs_diff(promotion))
}

/// How far apart the two sides stand, in moves (see [`reach`]).
struct Distances {
    /// By side (Blue, Red): the sum over the opposing pawns of the moves the nearest of
    /// the side's pawns needs to attack it, and the number of those pawns.
    hunt: [(i64, i64); 2],
    /// By side: the sum over its yellow heads of the steps to the nearest opposing pawn,
    /// and the number of its yellow heads.
    chase: [(i64, i64); 2],
    /// The moves before the first fight can happen (the fewest either side needs).
    fight: i64,
}

/// At most this many pawns a side (the set-up's; no rule adds any).
const PAWNS: usize = 14;

fn distances(board: &Board) -> Distances {
    use crate::hoofden::{BLUE, RED};
    let mut fight = 20;
    // For each pawn of each side (by its place in the side's square order): the moves
    // the nearest opposing pawn needs to attack it, and the steps to the nearest
    // opposing pawn.
    let mut attacked_in = [[20i64; PAWNS]; 2];
    let mut nearest = [[20i64; PAWNS]; 2];
    let mut yellow = [[false; PAWNS]; 2];
    for (i, a) in board.squares_of(BLUE).take(PAWNS).enumerate() {
        let Some(pa) = board.get(a) else { continue };
        yellow[0][i] = pa.head == Head::Yellow;
        for (j, b) in board.squares_of(RED).take(PAWNS).enumerate() {
            let Some(pb) = board.get(b) else { continue };
            yellow[1][j] = pb.head == Head::Yellow;
            let (ab, ba) = (reach(BLUE, pa.head, a, b), reach(RED, pb.head, b, a));
            attacked_in[1][j] = attacked_in[1][j].min(ab);
            attacked_in[0][i] = attacked_in[0][i].min(ba);
            fight = fight.min(ab.min(ba) - 1);
            let steps = i64::from(distance(a, b));
            nearest[0][i] = nearest[0][i].min(steps);
            nearest[1][j] = nearest[1][j].min(steps);
        }
    }
    let count = [BLUE, RED].map(|seat| (board.count(seat) as usize).min(PAWNS));
    let chase = |s: usize| {
        (0..count[s])
            .filter(|i| yellow[s][*i])
            .fold((0, 0), |(sum, n), i| (sum + nearest[s][i], n + 1))
    };
    Distances {
        hunt: [
            (attacked_in[1][..count[1]].iter().sum(), count[1] as i64),
            (attacked_in[0][..count[0]].iter().sum(), count[0] as i64),
        ],
        chase: [chase(0), chase(1)],
        fight,
    }
}

/// What `pos` is worth to its seat to move, in thousandths of a won game (see the
/// module's text), where a draw is worth `draw` to it. Not for finished positions: the
/// search scores those itself.
pub(crate) fn evaluate(pos: &Pos, p: &Params, draw: i64) -> i64 {
    let me = pos.turn;
    let them = opponent(me);
    let threat = best_threat(&pos.board, them, &pos.options, p) * i64::from(p.threat) / 256;
    let mine = strength(&pos.board, me, p) - threat;
    let theirs = strength(&pos.board, them, p);
    let mut lead = (mine - theirs) * GAME / (mine + theirs).max(1);
    // The side ahead wants to close in: its lead is divided by 1 + (hunt × the average
    // hunting distance + chase × the average chasing distance) / 1000.
    let far = distances(&pos.board);
    let ahead = side(if lead >= 0 { me } else { them });
    let average = |(sum, n): (i64, i64)| sum * 16 / n.max(1);
    let shrink = (i64::from(p.hunt) * average(far.hunt[ahead])
        + i64::from(p.chase) * average(far.chase[ahead]))
        / 16;
    lead = lead * GAME / (GAME + shrink);
    // The quiet-moves rule: the fewer plies are left before the draw once the nearest
    // fight has been walked to (two plies a move), the more the worth fades to a
    // draw's: in full at none left, not at all from `limit - fade_from` left.
    let limit = i64::from(crate::hoofden::PLIES_WITHOUT_FIGHT_FOR_DRAW);
    let span = limit - i64::from(p.fade_from);
    let left = limit - i64::from(pos.quiet) - 2 * far.fight;
    if left < span {
        draw + (lead - draw) * left.max(0) / span
    } else {
        lead
    }
}
