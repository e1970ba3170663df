//! The next round from the state (`pair_next_round`), its audit (`check_round`), and
//! when a tournament is over.

use std::collections::BTreeSet;

use crate::events::Round;
use crate::groups;
use crate::history::History;
use crate::knockout;
use crate::player::PlayerId;
use crate::refusal::{PairingViolation, Refusal};
use crate::round_robin;
use crate::rules::{Format, Rules};
use crate::state::Tournament;
use crate::swiss;

impl Tournament {
    /// Whether every round the format has is played: all rounds paired with their
    /// results in, the bracket decided, or fewer than two players left to pair.
    pub fn is_complete(&self) -> bool {
        let Some(rules) = &self.rules else {
            return false;
        };
        if !self.has_started() || !self.results_in() {
            return false;
        }
        let next = self.rounds_paired() + 1;
        if self.players_in(next) < 2 {
            return true;
        }
        match rules.format {
            Format::RoundRobin { cycles } => {
                self.rounds_paired() >= round_robin::total_rounds(self.players_in(1), cycles)
            }
            Format::Swiss { rounds } => self.rounds_paired() >= rounds,
            Format::Knockout { .. } => {
                knockout::remaining(self, rules.table_size as usize).len() < 2
            }
        }
    }

    /// The next round may be paired: created, not finished nor complete, and every game
    /// of the latest round has its result.
    pub fn next_round_ready(&self) -> bool {
        self.rules.is_some() && !self.finished && self.results_in() && !self.is_complete()
    }

    /// A knockout's winner, once the bracket is decided.
    pub fn champion(&self) -> Option<PlayerId> {
        let rules = self.rules.as_ref()?;
        match rules.format {
            Format::Knockout { .. } => knockout::champion(self, rules.table_size as usize),
            _ => None,
        }
    }
}

/// The next round, as the rules pair it from the state: deterministic.
pub fn pair_next_round(tournament: &Tournament) -> Result<Round, Refusal> {
    let rules = tournament.rules.as_ref().ok_or(Refusal::NotCreated)?;
    if tournament.finished {
        return Err(Refusal::Finished);
    }
    if !tournament.results_in() {
        return Err(Refusal::RoundNotComplete {
            round: tournament.rounds_paired(),
        });
    }
    if tournament.is_complete() {
        return Err(Refusal::Complete);
    }
    let round = tournament.rounds_paired() + 1;
    let players = tournament.players_in(round);
    let needed = if round == 1 {
        rules.min_players as usize
    } else {
        2
    };
    if players < needed.max(2) {
        return Err(Refusal::NotEnoughPlayers);
    }
    let k = rules.table_size as usize;
    let paired = match rules.format {
        Format::RoundRobin { cycles } => round_robin::pair(tournament, round, cycles),
        Format::Knockout { .. } => knockout::pair(tournament, k, round),
        Format::Swiss { .. } => {
            let history = History::of(tournament);
            Some(if k == 2 {
                swiss::pair(tournament, &history, round, rules.sided)
            } else {
                groups::pair(tournament, &history, round, k)
            })
        }
    };
    paired.ok_or(Refusal::Complete)
}

/// Whether `round` is the round the rules pair next from `before` (the tournament as it
/// was when the round was paired). The hard rules are checked one by one, so that an
/// audit names the broken one; the rest by pairing again and comparing, since the
/// pairing is deterministic.
pub fn check_round(before: &Tournament, round: &Round) -> Result<(), PairingViolation> {
    let rules = before.rules.as_ref().ok_or(PairingViolation::NoRoundDue)?;
    let expected = before.rounds_paired() + 1;
    if round.number != expected {
        return Err(PairingViolation::WrongNumber {
            given: round.number,
            expected,
        });
    }
    let pairing = pair_next_round(before).map_err(|_| PairingViolation::NoRoundDue)?;
    check_players(before, rules, round)?;
    if matches!(rules.format, Format::Swiss { .. }) {
        check_swiss(before, rules, round)?;
    }
    if *round != pairing {
        return Err(PairingViolation::NotTheRulesPairing);
    }
    Ok(())
}

/// Every player of the round plays in it, exactly once; tables seat 2 to k.
fn check_players(
    before: &Tournament,
    rules: &Rules,
    round: &Round,
) -> Result<(), PairingViolation> {
    let playing: BTreeSet<PlayerId> = before.seeded_players(round.number).into_iter().collect();
    let mut seen = BTreeSet::new();
    for player in round.players() {
        if !playing.contains(&player) {
            return Err(PairingViolation::NotAPlayer(player));
        }
        if !seen.insert(player) {
            return Err(PairingViolation::Twice(player));
        }
    }
    let missing = playing.iter().find(|p| !seen.contains(p));
    let knockout = matches!(rules.format, Format::Knockout { .. });
    if let (Some(p), false) = (missing, knockout) {
        return Err(PairingViolation::Missing(*p));
    }
    let mut numbers = BTreeSet::new();
    for table in &round.tables {
        if !(2..=rules.table_size as usize).contains(&table.seats.len()) {
            return Err(PairingViolation::TableSize {
                size: table.seats.len(),
                max: rules.table_size,
            });
        }
        if table.number == 0 || !numbers.insert(table.number) {
            return Err(PairingViolation::TableNumbers);
        }
    }
    Ok(())
}

/// The Swiss hard rules: byes, no second bye, no avoidable rematch, even tables.
fn check_swiss(before: &Tournament, rules: &Rules, round: &Round) -> Result<(), PairingViolation> {
    let history = History::of(before);
    let n = before.players_in(round.number);
    let k = rules.table_size as usize;
    if k > 2 {
        let mut sizes: Vec<usize> = round.tables.iter().map(|t| t.seats.len()).collect();
        sizes.sort_by(|a, b| b.cmp(a));
        if sizes != groups::table_sizes(n, k) {
            return Err(PairingViolation::UnevenTables);
        }
        return Ok(());
    }
    if round.byes.len() != n % 2 {
        return Err(PairingViolation::Byes {
            given: round.byes.len(),
            expected: n % 2,
        });
    }
    let playing = before.seeded_players(round.number);
    let anyone_without_bye = playing.iter().any(|p| history.byes(*p) == 0);
    if let Some(p) = round.byes.iter().find(|p| history.byes(**p) > 0) {
        if anyone_without_bye {
            return Err(PairingViolation::SecondBye(*p));
        }
    }
    for table in &round.tables {
        if let [a, b] = table.seats[..] {
            if history.meetings(a, b) > 0
                && swiss::rematch_avoidable(before, &history, round.number)
            {
                return Err(PairingViolation::AvoidableRematch(a, b));
            }
        }
    }
    Ok(())
}
