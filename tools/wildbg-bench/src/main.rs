//! Worp's `Position::outcomes` (sorted positions) and the generator's count of distinct
//! positions against wildbg's `all_positions_after_moving`, on the oracle corpus and on
//! positions of random self-play: every case checked to agree, then the median of
//! interleaved rounds, each timing wildbg, `outcomes` and the count over the whole set.
//!
//! `wildbg-bench CORPUS [ROUNDS] [kinds]`: `kinds` adds a line per kind of roll (White or
//! Black, two numbers or doubles). With `PROFILE=wm|wd|bm|bd|all` it times one stage
//! (`STAGE=wildbg|outcomes|count`) on that kind for ten seconds, for a profiler.

use std::hint::black_box;
use std::time::Instant;

use lite::dice::Dice;
use lite::position::Position as Wildbg;
use serde::Deserialize;
use worp_engine::backgammon::{OutcomeCounter, Position, Side, Tally};

/// A corpus line: the position, the side to move, the dice and the sorted outcomes.
#[derive(Deserialize)]
struct Line {
    board: [i8; 24],
    bar: Tally,
    off: Tally,
    to_move: Side,
    dice: [u8; 2],
    outcomes: Vec<Position>,
}

/// One position and roll, in both engines' terms.
#[derive(Clone)]
struct Case {
    pos: Position,
    side: Side,
    dice: [u8; 2],
    wildbg: Wildbg,
    wildbg_dice: Dice,
}

impl Case {
    fn new(pos: Position, side: Side, dice: [u8; 2]) -> Case {
        let wildbg_dice = Dice::new(usize::from(dice[0]), usize::from(dice[1]));
        Case {
            pos,
            side,
            dice,
            wildbg: to_wildbg(&pos, side),
            wildbg_dice,
        }
    }

    /// "wm", "wd", "bm" or "bd": White or Black, two numbers (mixed) or doubles.
    fn kind(&self) -> &'static str {
        match (self.side, self.dice[0] == self.dice[1]) {
            (Side::White, false) => "wm",
            (Side::White, true) => "wd",
            (Side::Black, false) => "bm",
            (Side::Black, true) => "bd",
        }
    }
}

/// The opponent of `side`.
fn other(side: Side) -> Side {
    match side {
        Side::White => Side::Black,
        Side::Black => Side::White,
    }
}

/// `pos` as wildbg sees it with `side` to move: its pips count down from 24 to 1 for the
/// mover (positive), 25 is the mover's bar and 0 the opponent's (negative).
fn to_wildbg(pos: &Position, side: Side) -> Wildbg {
    let mut pips = [0i8; 26];
    for point in 1..=24usize {
        let v = pos.board[point - 1];
        match side {
            Side::White => pips[25 - point] = v,
            Side::Black => pips[point] = -v,
        }
    }
    pips[25] = pos.bar.get(side) as i8;
    pips[0] = -(pos.bar.get(other(side)) as i8);
    Wildbg::try_from(pips).expect("a corpus position wildbg takes")
}

/// A position wildbg found after `side` moved (its sides switched: the opponent to move).
fn from_wildbg(w: &Wildbg, side: Side) -> Position {
    let pips: [i8; 26] = (*w).into();
    let next = other(side);
    let mut board = [0i8; 24];
    for pip in 1..=24usize {
        match next {
            Side::White => board[24 - pip] = pips[pip],
            Side::Black => board[pip - 1] = -pips[pip],
        }
    }
    let mut bar = Tally::default();
    *bar.get_mut(next) = pips[25] as u8;
    *bar.get_mut(side) = (-pips[0]) as u8;
    let on = |s: Side| -> i32 {
        let sign = i32::from(s.sign());
        board
            .iter()
            .map(|&v| (i32::from(v) * sign).max(0))
            .sum::<i32>()
            + i32::from(bar.get(s))
    };
    let off = Tally {
        white: (15 - on(Side::White)) as u8,
        black: (15 - on(Side::Black)) as u8,
    };
    Position { board, bar, off }
}

/// `n` positions and rolls of games played at random (a fixed seed), either side to move.
fn self_play(n: usize) -> Vec<Case> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut pos, mut side, mut cases) = (Position::START, Side::White, Vec::new());
    while cases.len() < n {
        let dice = [(next() % 6) as u8 + 1, (next() % 6) as u8 + 1];
        if pos.off.white == 15 || pos.off.black == 15 {
            (pos, side) = (Position::START, Side::White);
            continue;
        }
        cases.push(Case::new(pos, side, dice));
        let outcomes = pos.outcomes(side, dice);
        pos = outcomes[(next() % outcomes.len() as u64) as usize];
        side = other(side);
    }
    cases
}

/// How many cases disagree: `outcomes` against wildbg's positions sorted (and against
/// `expected` where given), and the generator's count against both.
fn disagreements(cases: &[Case], expected: Option<&[Vec<Position>]>) -> usize {
    let mut counter = OutcomeCounter::default();
    let mut bad = 0;
    for (i, c) in cases.iter().enumerate() {
        let ours = c.pos.outcomes(c.side, c.dice);
        let all = c.wildbg.all_positions_after_moving(&c.wildbg_dice);
        let mut theirs: Vec<Position> = all.iter().map(|w| from_wildbg(w, c.side)).collect();
        theirs.sort();
        theirs.dedup();
        let count = c.pos.count_outcomes(c.side, c.dice, &mut counter).max(1);
        let want = expected.map_or(&theirs, |e| &e[i]);
        if ours != theirs || &ours != want || count != ours.len() {
            bad += 1;
            eprintln!("disagree: {:?} {:?} {:?}", c.pos, c.side, c.dice);
        }
    }
    bad
}

/// The stages timed.
#[derive(Clone, Copy, PartialEq)]
enum Stage {
    Wildbg,
    Outcomes,
    Count,
}

/// Seconds to run `stage` over every case.
fn time(cases: &[Case], stage: Stage, counter: &mut OutcomeCounter) -> f64 {
    let start = Instant::now();
    let mut found = 0usize;
    for c in cases {
        found += match stage {
            Stage::Wildbg => black_box(&c.wildbg)
                .all_positions_after_moving(&c.wildbg_dice)
                .len(),
            Stage::Outcomes => black_box(&c.pos).outcomes(c.side, black_box(c.dice)).len(),
            Stage::Count => black_box(&c.pos).count_outcomes(c.side, c.dice, counter),
        };
    }
    black_box(found);
    start.elapsed().as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The medians over `rounds` of wildbg's time over ours, for `outcomes` and the count.
fn bench(name: &str, cases: &[Case], rounds: usize) {
    let mut counter = OutcomeCounter::default();
    let (mut sorted, mut distinct, mut wildbg, mut ours) = (vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        let w = time(cases, Stage::Wildbg, &mut counter);
        let o = time(cases, Stage::Outcomes, &mut counter);
        let c = time(cases, Stage::Count, &mut counter);
        sorted.push(w / o);
        distinct.push(w / c);
        wildbg.push(w);
        ours.push(o);
    }
    let per_case = |t: Vec<f64>| median(t) / cases.len() as f64 * 1e9;
    println!(
        "{name:>10} {:5} cases: outcomes {:.3}x, distinct {:.3}x (wildbg {:.0} ns, outcomes {:.0} ns a case)",
        cases.len(),
        median(sorted),
        median(distinct),
        per_case(wildbg),
        per_case(ours),
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .expect("usage: wildbg-bench CORPUS [ROUNDS] [kinds]");
    let rounds: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(400);
    let text = std::fs::read_to_string(path).expect("the oracle corpus");
    let (mut corpus, mut expected) = (Vec::new(), Vec::new());
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let l: Line = serde_json::from_str(line).expect("a corpus line");
        let pos = Position {
            board: l.board,
            bar: l.bar,
            off: l.off,
        };
        corpus.push(Case::new(pos, l.to_move, l.dice));
        expected.push(if l.outcomes.is_empty() {
            vec![pos]
        } else {
            l.outcomes
        });
    }
    let play = self_play(6000);
    if let Ok(kind) = std::env::var("PROFILE") {
        let wanted = |c: &&Case| kind == "all" || c.kind() == kind;
        let set: Vec<Case> = corpus.iter().chain(&play).filter(wanted).cloned().collect();
        let stage = match std::env::var("STAGE").as_deref() {
            Ok("wildbg") => Stage::Wildbg,
            Ok("count") => Stage::Count,
            _ => Stage::Outcomes,
        };
        let (start, mut counter) = (Instant::now(), OutcomeCounter::default());
        while start.elapsed().as_secs() < 10 {
            time(&set, stage, &mut counter);
        }
        return;
    }
    let bad = disagreements(&corpus, Some(&expected)) + disagreements(&play, None);
    println!(
        "disagreements: {bad} of {} cases",
        corpus.len() + play.len()
    );
    bench("corpus", &corpus, rounds);
    bench("self-play", &play, rounds);
    if args.get(3).map(String::as_str) == Some("kinds") {
        for kind in ["wm", "wd", "bm", "bd"] {
            for (name, set) in [("corpus", &corpus), ("self-play", &play)] {
                let cases: Vec<Case> = set.iter().filter(|c| c.kind() == kind).cloned().collect();
                bench(&format!("{name} {kind}"), &cases, rounds / 2);
            }
        }
    }
}
