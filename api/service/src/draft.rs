//! A draft of one change of a game: the events a request makes, then every roll the
//! server owes and every move a quick bot plays, until the game awaits a person, a
//! thinking bot (`bots/`), or ends.

use chrono::{DateTime, Utc};
use worp_engine::Awaiting;

use super::refusal::Refusal;
use crate::checkpoints::stored;
use worp_domain::bots;
use worp_domain::dice;
use worp_domain::events::{Event, EventRow};
use worp_domain::table::{ReplayError, Status, Table};

/// The new events of one change of a game, chained and applied to a copy of its table as
/// they are made. Nothing is stored until the service appends the finished draft.
pub(super) struct Draft {
    pub(super) table: Table,
    pub(super) events: Vec<EventRow>,
    pub(super) now: DateTime<Utc>,
    /// The secret server seed: dice and bots draw from it.
    pub(super) seed: Vec<u8>,
    /// A copy of the table at each multiple of [`stored::STORED_EVERY`] events the change
    /// passed: the checkpoints to store once it is committed.
    pub(super) passed: Vec<Table>,
}

impl Draft {
    pub(super) fn push(&mut self, event: Event) -> Result<(), Refusal> {
        let (id, seq, at) = (self.table.id, self.table.version + 1, self.now);
        let prev = &self.table.head_hash;
        let (row, applied) = match event {
            // The move goes into the payload as it is, and is applied from there.
            Event::MovePlayed { seat, mv } => {
                let row = EventRow::move_played(id, seq, seat, mv, at, prev);
                let applied = self
                    .table
                    .apply_move_played(&row.event, seat, row.played_move());
                (row, applied)
            }
            event => {
                let row =
                    EventRow::new(id, seq, &event, at, prev).map_err(Refusal::unwritable_event)?;
                let applied = self.table.apply_event(&row.event, event);
                (row, applied)
            }
        };
        applied.map_err(|e| match e {
            // A player's move the rules refuse (the draft is dropped: nothing is stored).
            ReplayError::Engine { error, .. } => Refusal::from(error),
            other => Refusal::Internal(format!("an event the server made does not apply: {other}")),
        })?;
        self.events.push(row);
        if stored::is_stored(self.table.version) {
            self.passed.push(self.table.clone());
        }
        Ok(())
    }

    /// Rolls every die the engine awaits (only once all seats are taken), then records
    /// the end of the game with the revealed seed.
    pub(super) fn advance(&mut self) -> Result<(), Refusal> {
        if self.table.status() == Status::Waiting {
            return Ok(());
        }
        loop {
            match self.table.game.awaiting() {
                Awaiting::Dice { seat, die, count } => {
                    let seed = &self.seed;
                    let seeds = self.table.client_seeds();
                    let index = self.table.dice_rolled;
                    let values = (0..u64::from(count))
                        .map(|i| dice::roll(seed, &seeds, index + i, &die))
                        .collect();
                    self.push(Event::DiceRolled {
                        seat: seat.0,
                        die: die.name.to_owned(),
                        values,
                        index,
                    })?;
                }
                Awaiting::Move { seat } => {
                    let Some(kind) = self.table.seats.get(seat.index()).and_then(|s| s.bot) else {
                        return Ok(());
                    };
                    // A bot that thinks moves later, through the bot runner (`bots/`).
                    if kind.thinks() {
                        return Ok(());
                    }
                    let seed = &self.seed;
                    let entropy = dice::bot_entropy(seed, self.table.version);
                    let seats = self.table.seats.len();
                    let i = bots::choose(kind, self.table.game.as_ref(), seat, seats, entropy)?
                        .ok_or_else(|| Refusal::Internal("a bot has no legal move".into()))?;
                    let mv = self
                        .table
                        .game
                        .legal_moves()?
                        .into_iter()
                        .nth(i)
                        .ok_or_else(|| Refusal::Internal("a bot chose no move".into()))?;
                    self.push(Event::MovePlayed { seat: seat.0, mv })?;
                    worp_telemetry::metrics::bot_move();
                }
                Awaiting::Finished { result } if self.table.result.is_none() => {
                    let seed = &self.seed;
                    self.push(Event::GameFinished {
                        result,
                        server_seed: hex::encode(seed),
                    })?;
                }
                _ => return Ok(()),
            }
        }
    }
}
