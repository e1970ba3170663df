//! Seats played by the computer. A bot's move goes through the same event path as a
//! person's: it is chosen when the game awaits the bot's seat and recorded as a
//! `move_played` event.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use worp_engine::{AnyGame, EngineError, Seat};

/// The kinds of bot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BotKind {
    /// Picks any legal move, each equally likely.
    Random,
    /// Prefers the move that gains most on the opponents (captures, hits, progress),
    /// by the game's own measure of progress; ties are broken at random. A decision
    /// that progress cannot judge (backgammon's cube and resignations) it makes by the
    /// game's own stated heuristic (backgammon: by pip count, see
    /// `worp_engine::backgammon`'s `advice.rs`), so it doubles, takes and passes, and
    /// never offers to resign.
    Greedy,
    /// Looks one roll ahead: each legal move judged by the position after it, averaged
    /// over every roll of the next seat answering with its best move, by the greedy
    /// bot's measure (`worp_engine::search`); at most 20,000 positions a decision. In
    /// Hoofden, where the only dice are the fights', it searches a few plies deep
    /// instead, weighing each fight over its outcomes and scoring positions by the
    /// fighting strength on the board (`worp_engine::search::hoofden`); about 2,000
    /// positions a decision.
    Expectimax,
    /// Backgammon only: GNU Backgammon's "beginner" (0-ply, noise 0.060), with every
    /// cube and resignation decision; offered where `gnubg` is installed.
    #[serde(rename = "gnubg-beginner")]
    GnubgBeginner,
    /// GNU Backgammon's "intermediate" (0-ply, noise 0.040).
    #[serde(rename = "gnubg-intermediate")]
    GnubgIntermediate,
    /// GNU Backgammon's "expert" (0-ply, no noise).
    #[serde(rename = "gnubg-expert")]
    GnubgExpert,
    /// GNU Backgammon's "world class" (2-ply).
    #[serde(rename = "gnubg-world-class")]
    GnubgWorldClass,
}

impl BotKind {
    /// Every kind, weakest family first.
    pub const ALL: [BotKind; 7] = [
        BotKind::Random,
        BotKind::Greedy,
        BotKind::Expectimax,
        BotKind::GnubgBeginner,
        BotKind::GnubgIntermediate,
        BotKind::GnubgExpert,
        BotKind::GnubgWorldClass,
    ];

    /// Its name in the API (`"gnubg-expert"`).
    pub fn name(self) -> &'static str {
        match self {
            BotKind::Random => "random",
            BotKind::Greedy => "greedy",
            BotKind::Expectimax => "expectimax",
            BotKind::GnubgBeginner => "gnubg-beginner",
            BotKind::GnubgIntermediate => "gnubg-intermediate",
            BotKind::GnubgExpert => "gnubg-expert",
            BotKind::GnubgWorldClass => "gnubg-world-class",
        }
    }

    /// The kind named `name`.
    pub fn named(name: &str) -> Option<BotKind> {
        BotKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether GNU Backgammon plays it (backgammon only, where gnubg is installed).
    pub fn is_gnubg(self) -> bool {
        matches!(
            self,
            BotKind::GnubgBeginner
                | BotKind::GnubgIntermediate
                | BotKind::GnubgExpert
                | BotKind::GnubgWorldClass
        )
    }

    /// Whether its decisions take long enough to be made off the request that called
    /// for them (by the server's bot runner); `random` and `greedy` take microseconds
    /// and are played within the change that awaits them.
    pub fn thinks(self) -> bool {
        !matches!(self, BotKind::Random | BotKind::Greedy)
    }

    /// Whether it can play `variant`.
    pub fn plays(self, variant: &str) -> bool {
        !self.is_gnubg() || variant == "backgammon"
    }
}

/// The most positions the expectimax bot looks at for one decision.
pub const EXPECTIMAX_BUDGET: u64 = 20_000;

/// The positions the expectimax bot looks at for one decision in Hoofden (its own
/// search: deeper, each position costing more; a larger budget plays no better against
/// greedy and takes longer).
pub const HOOFDEN_BUDGET: u64 = 2_000;

/// The index of the legal move a bot of `kind` plays for `seat`; `entropy` is random
/// bits the caller supplies. `None` when there is no legal move; an error when the
/// legal moves cannot be written as JSON, or for a gnubg bot, which only the server's
/// gnubg pool plays (`worp_gnubg`).
pub fn choose(
    kind: BotKind,
    game: &dyn AnyGame,
    seat: Seat,
    seats: usize,
    entropy: u64,
) -> Result<Option<usize>, EngineError> {
    let moves = game.legal_moves()?;
    if moves.is_empty() {
        return Ok(None);
    }
    let pick = |n: usize| ((entropy >> 11) % n as u64) as usize;
    Ok(match kind {
        BotKind::Random => Some(pick(moves.len())),
        BotKind::Expectimax => {
            let budget = if game.variant()
                == <worp_engine::hoofden::Hoofden as worp_engine::Game>::VARIANT
            {
                HOOFDEN_BUDGET
            } else {
                EXPECTIMAX_BUDGET
            };
            worp_engine::search::expectimax_choice(game, seat, seats, budget)?
        }
        BotKind::GnubgBeginner
        | BotKind::GnubgIntermediate
        | BotKind::GnubgExpert
        | BotKind::GnubgWorldClass => {
            return Err(EngineError::state(format!(
                "{} is played by GNU Backgammon, not by the engine",
                kind.name()
            )))
        }
        BotKind::Greedy => {
            if let Some(i) = game.decision_hint().filter(|i| *i < moves.len()) {
                return Ok(Some(i));
            }
            let scores: Vec<i64> = moves
                .iter()
                .map(|mv| {
                    let mut after = game.clone_box();
                    if after.apply_move(mv).is_err() {
                        return i64::MIN;
                    }
                    worp_engine::search::progress_score(after.as_ref(), seat, seats)
                })
                .collect();
            let Some(best) = scores.iter().copied().max() else {
                return Ok(None);
            };
            let top: Vec<usize> = (0..moves.len()).filter(|i| scores[*i] == best).collect();
            top.get(pick(top.len())).copied()
        }
    })
}
