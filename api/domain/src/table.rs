//! A game as the server sees it: the engine's game plus who sits where, the dice
//! commitment and the head of the event chain. A `Table` is only ever built by folding
//! events, so the log is the one source of truth.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;
use worp_engine::{variant, AnyGame, Awaiting, EndReason, GameResult, Seat};

use crate::events::{Event, LogEntry, RetireReason, TournamentTable};

mod deadline;
mod seats;
pub use deadline::{MoveClock, SeatVacation};
pub use seats::SeatInfo;

/// Why a stored log could not be folded into a game (a corrupt or foreign log).
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("event {seq}: {reason}")]
    Invalid { seq: i64, reason: String },
    /// The engine refused the event's dice or move, or could not write the game as JSON.
    #[error("event {seq}: {error}")]
    Engine {
        seq: i64,
        error: worp_engine::EngineError,
    },
}

fn invalid(seq: i64, reason: impl Into<String>) -> ReplayError {
    ReplayError::Invalid {
        seq,
        reason: reason.into(),
    }
}

/// Where a game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Some seat is still open.
    Waiting,
    /// Every seat is taken and the game is not over.
    Active,
    /// The game is over.
    Finished,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Waiting => "waiting",
            Status::Active => "active",
            Status::Finished => "finished",
        }
    }
}

/// Why a game ended, in words a front-end can show beside the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// The winner reached the game's goal: every pawn home, every checker borne off,
    /// every figure across.
    Goal,
    /// Hoofden: the loser has no pawns left.
    NoPawnsLeft,
    /// Hoofden: the loser had no legal move.
    CannotMove,
    /// Hoofden: 100 moves in a row without a fight: a draw.
    QuietMoves,
    /// Hoofden: both sides lost their last pawns: a draw.
    AllPawnsRemoved,
    /// The other seats resigned (the last to leave resigned).
    Resigned,
    /// The other seats ran out of time (the last to leave timed out).
    TimedOut,
    /// Backgammon with the cube: the loser passed a double (in a match: the last game).
    DoublePassed,
    /// Backgammon with the cube: the winner accepted the loser's offer to resign.
    ResignationAccepted,
}

/// The last dice rolled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LastDice {
    /// The seat they were rolled for.
    #[schema(value_type = u8)]
    pub seat: Seat,
    /// The die's name.
    pub die: String,
    /// The values shown.
    pub values: Vec<u8>,
    /// The index of the first of these dice in the game.
    pub index: u64,
}

/// A game folded from its events.
#[derive(Debug, Clone)]
pub struct Table {
    pub id: Uuid,
    pub variant: &'static str,
    pub options: Value,
    pub seats: Vec<SeatInfo>,
    pub game: Box<dyn AnyGame>,
    /// The last sequence number.
    pub version: i64,
    /// The sequence number of the last event that changed the game's state (every
    /// event but a message): a move judged against a version the board has not moved
    /// on from is not stale, whatever was said since.
    pub board_version: i64,
    /// The hash of the last event.
    pub head_hash: String,
    pub dice_commitment: String,
    /// How many dice have been rolled (the index of the next die).
    pub dice_rolled: u64,
    pub last_dice: Option<LastDice>,
    pub result: Option<GameResult>,
    /// Revealed when the game is finished.
    pub server_seed: Option<String>,
    pub created_by: Uuid,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// When the last move (or resignation) was made.
    pub last_move_at: Option<DateTime<Utc>>,
    /// The clock of the seat to move (`deadline.rs`).
    pub clock: MoveClock,
    /// Days each seat has for each move; `None`: no clock.
    pub days_per_move: Option<u32>,
    /// Why the seat that retired last left (what ended a game won by retirement).
    pub last_retirement: Option<RetireReason>,
    /// Whether the result changes the players' ratings.
    pub rated: bool,
    /// Whether anyone may read the players' messages (else only the players).
    pub public_chat: bool,
    /// How many messages the players wrote, and the seat that wrote the last.
    pub messages: u32,
    pub last_message_seat: Option<u8>,
    /// The moves each seat made (`move_played` events).
    pub moves: Vec<u32>,
    /// The tournament table this game is, if it is a tournament's.
    pub tournament: Option<TournamentTable>,
}

impl Table {
    /// Folds a game's events, in order, into its table.
    pub fn from_events<E: LogEntry>(events: &[E]) -> Result<Table, ReplayError> {
        let first = events.first().ok_or_else(|| invalid(1, "no events"))?;
        let mut table = Table::created(first)?;
        for e in &events[1..] {
            table.apply(e)?;
        }
        Ok(table)
    }

    fn created(e: &impl LogEntry) -> Result<Table, ReplayError> {
        let seq = e.seq();
        if seq != 1 {
            return Err(invalid(seq, "the first event must have sequence 1"));
        }
        let Event::GameCreated {
            variant: name,
            options,
            seats,
            invited,
            client_seeds,
            bots,
            days_per_move,
            dice_commitment,
            created_by,
            rated,
            public_chat,
            tournament,
        } = e.event().map_err(|err| invalid(seq, err.to_string()))?
        else {
            return Err(invalid(seq, "the first event must be game_created"));
        };
        let v = variant(&name).map_err(|err| invalid(seq, err.to_string()))?;
        let count = u8::try_from(seats.len()).map_err(|_| invalid(seq, "too many seats"))?;
        let game = v
            .create(&options, count)
            .map_err(|err| invalid(seq, err.to_string()))?;
        let moves = vec![0; seats.len()];
        let seats = seats
            .iter()
            .enumerate()
            .map(|(i, p)| SeatInfo {
                player_id: *p,
                retired: false,
                client_seed: client_seeds.get(i).cloned().flatten(),
                bot: bots.get(i).copied().flatten(),
                invited: invited.get(i).copied().flatten(),
                vacation: None,
            })
            .collect();
        Ok(Table {
            id: e.game_id(),
            variant: v.name,
            options: game
                .options()
                .map_err(|error| ReplayError::Engine { seq, error })?,
            seats,
            game,
            version: 1,
            board_version: 1,
            head_hash: e.hash().to_owned(),
            dice_commitment,
            dice_rolled: 0,
            last_dice: None,
            result: None,
            server_seed: None,
            created_by,
            created_at: e.recorded_at(),
            updated_at: e.recorded_at(),
            last_move_at: None,
            clock: MoveClock::starting(e.recorded_at()),
            days_per_move,
            last_retirement: None,
            rated,
            public_chat,
            messages: 0,
            last_message_seat: None,
            moves,
            tournament,
        })
    }

    /// Applies the next event of the log.
    pub fn apply(&mut self, e: &impl LogEntry) -> Result<(), ReplayError> {
        let event = e.event().map_err(|err| invalid(e.seq(), err.to_string()))?;
        self.apply_event(e, event)
    }

    /// Applies the next event of the log, already decoded (`event` is `e.event()`).
    pub fn apply_event(&mut self, e: &impl LogEntry, event: Event) -> Result<(), ReplayError> {
        let seq = self.next_seq(e)?;
        let engine = |error: worp_engine::EngineError| ReplayError::Engine { seq, error };
        if event.changes_the_game() {
            self.board_version = seq;
            self.clock = MoveClock::starting(e.recorded_at());
        }
        match event {
            Event::GameCreated { .. } => return Err(invalid(seq, "a second game_created")),
            Event::SeatTaken {
                seat,
                player_id,
                client_seed,
            } => {
                let s = self
                    .seats
                    .get_mut(usize::from(seat))
                    .ok_or_else(|| invalid(seq, "no such seat"))?;
                if !s.is_empty() {
                    return Err(invalid(seq, "seat already taken"));
                }
                if s.invited.is_some_and(|p| p != player_id) {
                    return Err(invalid(seq, "seat reserved for another player"));
                }
                s.player_id = Some(player_id);
                s.invited = None;
                s.client_seed = client_seed;
            }
            Event::InvitationDeclined { seat, player_id } => {
                let s = self
                    .seats
                    .get_mut(usize::from(seat))
                    .ok_or_else(|| invalid(seq, "no such seat"))?;
                if s.invited != Some(player_id) || !s.is_empty() {
                    return Err(invalid(seq, "no invitation of that player to decline"));
                }
                s.invited = None;
            }
            Event::DiceRolled {
                seat,
                die,
                values,
                index,
            } => {
                if index != self.dice_rolled {
                    return Err(invalid(
                        seq,
                        format!("expected die index {}", self.dice_rolled),
                    ));
                }
                match self.game.awaiting() {
                    Awaiting::Dice { seat: s, .. } if s == Seat(seat) => {}
                    _ => return Err(invalid(seq, "dice not awaited for that seat")),
                }
                self.game.apply_dice(&values).map_err(engine)?;
                self.dice_rolled += values.len() as u64;
                self.last_dice = Some(LastDice {
                    seat: Seat(seat),
                    die,
                    values,
                    index,
                });
            }
            Event::MovePlayed { seat, mv } => self.move_played(e, seat, &mv)?,
            Event::SeatRetired { seat, reason } => {
                self.game.retire(Seat(seat)).map_err(engine)?;
                self.last_retirement = Some(reason);
                if let Some(s) = self.seats.get_mut(usize::from(seat)) {
                    s.retired = true;
                    s.vacation = None;
                }
                self.last_move_at = Some(e.recorded_at());
            }
            Event::MessagePosted {
                seat,
                text,
                salt,
                text_sha256,
            } => {
                let seated = self
                    .seats
                    .get(usize::from(seat))
                    .is_some_and(|s| s.player_id.is_some());
                if !seated {
                    return Err(invalid(seq, "a message from a seat without a player"));
                }
                if let Some(text) = text {
                    if crate::events::message_commitment(salt.as_deref(), &text).as_deref()
                        != Some(text_sha256.as_str())
                    {
                        return Err(invalid(seq, "the message does not match its hash"));
                    }
                }
                self.messages += 1;
                self.last_message_seat = Some(seat);
            }
            Event::GameFinished {
                result,
                server_seed,
            } => {
                match self.game.awaiting() {
                    Awaiting::Finished { result: r } if r == result => {}
                    _ => return Err(invalid(seq, "game_finished does not match the game")),
                }
                self.result = Some(result);
                self.server_seed = Some(server_seed);
                // A vacation pauses nothing in a finished game.
                self.seats.iter_mut().for_each(|s| s.vacation = None);
            }
            Event::VacationStarted { seat, until } => {
                self.vacation_started(seq, seat, until, e.recorded_at())?;
            }
            Event::VacationEnded { seat } => self.vacation_ended(seq, seat, e.recorded_at())?,
        }
        self.advance_to(e);
        Ok(())
    }

    /// Applies the next event, a `move_played` by `seat` of `mv`, read where it lies.
    pub fn apply_move_played(
        &mut self,
        e: &impl LogEntry,
        seat: u8,
        mv: &Value,
    ) -> Result<(), ReplayError> {
        self.board_version = self.next_seq(e)?;
        self.clock = MoveClock::starting(e.recorded_at());
        self.move_played(e, seat, mv)?;
        self.advance_to(e);
        Ok(())
    }

    /// `e`'s sequence number, if it is the next of this game.
    fn next_seq(&self, e: &impl LogEntry) -> Result<i64, ReplayError> {
        let seq = e.seq();
        if e.game_id() != self.id || seq != self.version + 1 {
            return Err(invalid(
                seq,
                format!("expected sequence {}", self.version + 1),
            ));
        }
        Ok(seq)
    }

    fn move_played(&mut self, e: &impl LogEntry, seat: u8, mv: &Value) -> Result<(), ReplayError> {
        let seq = e.seq();
        match self.game.awaiting() {
            Awaiting::Move { seat: s } if s == Seat(seat) => {}
            _ => return Err(invalid(seq, "no move awaited from that seat")),
        }
        self.game
            .apply_move(mv)
            .map_err(|error| ReplayError::Engine { seq, error })?;
        if let Some(m) = self.moves.get_mut(usize::from(seat)) {
            *m += 1;
        }
        self.last_move_at = Some(e.recorded_at());
        Ok(())
    }

    /// The table's place in the log after `e`.
    fn advance_to(&mut self, e: &impl LogEntry) {
        self.version = e.seq();
        self.head_hash = e.hash().to_owned();
        self.updated_at = e.recorded_at();
    }

    /// Whether the game ended before every seat made its first moves: aborted, it
    /// changes no rating (`ratings::aborted`).
    pub fn aborted(&self) -> bool {
        self.result.is_some() && crate::ratings::aborted(self.variant, &self.moves)
    }

    /// Why the game ended, once it has.
    pub fn finish_reason(&self) -> Option<FinishReason> {
        self.result.as_ref()?;
        Some(match self.game.end_reason()? {
            EndReason::Goal => FinishReason::Goal,
            EndReason::NoPawnsLeft => FinishReason::NoPawnsLeft,
            EndReason::CannotMove => FinishReason::CannotMove,
            EndReason::QuietMoves => FinishReason::QuietMoves,
            EndReason::AllPawnsRemoved => FinishReason::AllPawnsRemoved,
            EndReason::DoublePassed => FinishReason::DoublePassed,
            EndReason::ResignationAccepted => FinishReason::ResignationAccepted,
            EndReason::OpponentsRetired => match self.last_retirement {
                Some(RetireReason::TimedOut) => FinishReason::TimedOut,
                _ => FinishReason::Resigned,
            },
        })
    }

    /// Waiting, active or finished.
    pub fn status(&self) -> Status {
        if self.result.is_some() {
            Status::Finished
        } else if self.seats.iter().any(SeatInfo::is_empty) {
            Status::Waiting
        } else {
            Status::Active
        }
    }

    /// The seat whose decision the game waits for (only while active).
    pub fn to_move(&self) -> Option<Seat> {
        if self.status() != Status::Active {
            return None;
        }
        match self.game.awaiting() {
            Awaiting::Move { seat } => Some(seat),
            _ => None,
        }
    }

    /// The player whose decision the game waits for.
    pub fn to_move_player(&self) -> Option<Uuid> {
        self.to_move()
            .and_then(|s| self.seats.get(s.index()))
            .and_then(|s| s.player_id)
    }
}

#[cfg(test)]
mod tests;
