//! `Tournament::apply`: one event folded into the state, or refused with the state
//! unchanged. Every check comes before the first change.

use std::sync::Arc;

use crate::events::{Event, Outcome, Round};
use crate::pairing::check_round;
use crate::player::PlayerId;
use crate::refusal::Refusal;
use crate::rules::{Format, Rules};
use crate::state::{Entrant, RoundRecord, Tournament};

impl Tournament {
    /// The fold of `events` from nothing; the first refused event stops it.
    pub fn from_events<'a>(events: impl IntoIterator<Item = &'a Event>) -> Result<Self, Refusal> {
        let mut tournament = Tournament::new();
        for event in events {
            tournament.apply(event)?;
        }
        Ok(tournament)
    }

    /// Fold one event in; a refused event changes nothing.
    pub fn apply(&mut self, event: &Event) -> Result<(), Refusal> {
        if let Event::Created { rules } = event {
            if self.rules.is_some() {
                return Err(Refusal::AlreadyCreated);
            }
            if let Some(why) = rules.invalid() {
                return Err(Refusal::InvalidRules(why));
            }
            self.rules = Some(rules.clone());
            return Ok(());
        }
        let rules = self.rules.clone().ok_or(Refusal::NotCreated)?;
        if self.finished {
            return Err(Refusal::Finished);
        }
        match event {
            Event::Created { .. } => Err(Refusal::AlreadyCreated),
            Event::RulesChanged { rules } => self.change_rules(rules),
            Event::Registered { player, rating } => self.register(&rules, *player, *rating),
            Event::Withdrawn {
                player,
                after_round,
            } => self.withdraw(*player, *after_round),
            Event::RoundPaired(round) => self.pair(round),
            Event::ResultRecorded {
                round,
                table,
                outcome,
            } => self.record(&rules, *round, *table, outcome),
            Event::Finished => {
                if !self.is_complete() {
                    return Err(Refusal::NotComplete);
                }
                self.finished = true;
                Ok(())
            }
        }
    }

    fn change_rules(&mut self, rules: &Rules) -> Result<(), Refusal> {
        if self.has_started() {
            return Err(Refusal::RulesAfterStart);
        }
        if let Some(why) = rules.invalid() {
            return Err(Refusal::InvalidRules(why));
        }
        if self.active_count() > rules.max_players as usize {
            return Err(Refusal::InvalidRules(
                "fewer places than registered players",
            ));
        }
        self.rules = Some(rules.clone());
        Ok(())
    }

    fn register(&mut self, rules: &Rules, player: PlayerId, rating: i32) -> Result<(), Refusal> {
        if self.entrant(player).is_some() {
            return Err(Refusal::AlreadyRegistered(player));
        }
        let late_allowed = matches!(rules.format, Format::Swiss { .. })
            && self.rounds_paired() < rules.late_registration_rounds;
        if self.has_started() && !late_allowed {
            return Err(Refusal::RegistrationClosed);
        }
        if self.active_count() >= rules.max_players as usize {
            return Err(Refusal::Full);
        }
        self.entrants.push(Entrant {
            player,
            rating,
            joined_after: self.rounds_paired(),
            withdrawn_after: None,
        });
        Ok(())
    }

    fn withdraw(&mut self, player: PlayerId, after_round: u32) -> Result<(), Refusal> {
        let current = self.rounds_paired();
        let Some(entrant) = self.entrants.iter_mut().find(|e| e.player == player) else {
            return Err(Refusal::NotRegistered(player));
        };
        if entrant.withdrawn_after.is_some() {
            return Err(Refusal::AlreadyWithdrawn(player));
        }
        if after_round != current {
            return Err(Refusal::WrongRound {
                given: after_round,
                current,
            });
        }
        entrant.withdrawn_after = Some(current);
        Ok(())
    }

    fn pair(&mut self, round: &Round) -> Result<(), Refusal> {
        if !self.results_in() {
            return Err(Refusal::RoundNotComplete {
                round: self.rounds_paired(),
            });
        }
        if self.is_complete() {
            return Err(Refusal::Complete);
        }
        check_round(self, round)?;
        self.rounds.push(Arc::new(RoundRecord {
            round: round.clone(),
            results: Default::default(),
        }));
        Ok(())
    }

    fn record(
        &mut self,
        rules: &Rules,
        round: u32,
        table: u32,
        outcome: &Outcome,
    ) -> Result<(), Refusal> {
        let unknown = Refusal::UnknownTable { round, table };
        let index = (round as usize).checked_sub(1).ok_or(unknown.clone())?;
        let record = self.rounds.get_mut(index).ok_or(unknown.clone())?;
        let seats = &record.round.table(table).ok_or(unknown)?.seats;
        if record.results.contains_key(&table) {
            return Err(Refusal::ResultRecordedTwice { round, table });
        }
        fits(rules, seats, outcome)?;
        Arc::make_mut(record).results.insert(table, outcome.clone());
        Ok(())
    }
}

/// Whether `outcome` can end a game of `seats` under `rules`.
fn fits(rules: &Rules, seats: &[PlayerId], outcome: &Outcome) -> Result<(), Refusal> {
    match outcome {
        Outcome::Winner { player } => {
            if seats.len() != 2 {
                return Err(Refusal::ResultDoesNotFit(
                    "a table of more than two needs the places",
                ));
            }
            if !seats.contains(player) {
                return Err(Refusal::ResultDoesNotFit("the winner is not at the table"));
            }
        }
        Outcome::Draw => {
            if !rules.draws || matches!(rules.format, Format::Knockout { .. }) {
                return Err(Refusal::DrawNotAllowed);
            }
        }
        Outcome::Places { order } => {
            let mut given = order.clone();
            given.sort();
            given.dedup();
            let mut seated = seats.to_vec();
            seated.sort();
            if order.is_empty()
                || given.len() != order.len()
                || !given.iter().all(|p| seated.binary_search(p).is_ok())
            {
                return Err(Refusal::ResultDoesNotFit(
                    "the places must name seated players, each once, the first at least",
                ));
            }
        }
    }
    Ok(())
}
