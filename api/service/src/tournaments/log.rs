//! A tournament's log as the server writes it: the crate's events (`worp_tournament`)
//! with what only the server knows (the game, its clock, the games each round pairs),
//! and their fold, which checks the hash chain and every event as it goes.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;
use worp_domain::tournaments::TournamentEventRow;
use worp_tournament::{Event, Format, Outcome, PlayerId, Round, Rules, Tournament};

use crate::refusal::Refusal;

/// How a tournament's rounds are paired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TournamentFormat {
    /// Everyone meets everyone (Berger tables), once or twice with the seats swapped.
    RoundRobin {
        #[schema(minimum = 1, maximum = 2)]
        cycles: u32,
    },
    /// A fixed number of rounds, each paired by score (the Dutch system's criteria).
    Swiss {
        #[schema(minimum = 1, maximum = 64)]
        rounds: u32,
    },
    /// A seeded bracket; the winner of each table goes on. `match_points`: for
    /// backgammon, each pairing is a match to this many points.
    Knockout {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(minimum = 1, maximum = 25)]
        match_points: Option<u32>,
    },
}

impl From<TournamentFormat> for Format {
    fn from(f: TournamentFormat) -> Format {
        match f {
            TournamentFormat::RoundRobin { cycles } => Format::RoundRobin { cycles },
            TournamentFormat::Swiss { rounds } => Format::Swiss { rounds },
            TournamentFormat::Knockout { match_points } => Format::Knockout { match_points },
        }
    }
}

impl From<&Format> for TournamentFormat {
    fn from(f: &Format) -> TournamentFormat {
        match *f {
            Format::RoundRobin { cycles } => TournamentFormat::RoundRobin { cycles },
            Format::Swiss { rounds } => TournamentFormat::Swiss { rounds },
            Format::Knockout { match_points } => TournamentFormat::Knockout { match_points },
        }
    }
}

/// What a tournament is created with besides its pairing rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Settings {
    pub name: String,
    pub variant: String,
    /// The variant's options with every default filled in, for every game.
    pub options: Value,
    /// Every game's clock: days per move.
    pub days_per_move: u32,
    /// Days a round may last; at the end the seat to move in each unfinished game times
    /// out (absent: a round lasts until its games end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_days: Option<u32>,
    pub rated: bool,
    /// Only these players may register (empty: anyone).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invited: Vec<Uuid>,
    pub created_by: Uuid,
}

/// One event of a tournament's log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TournamentEvent {
    Created {
        settings: Settings,
        rules: Rules,
    },
    RulesChanged {
        rules: Rules,
    },
    Registered {
        player: Uuid,
        rating: i32,
    },
    Withdrawn {
        player: Uuid,
        after_round: u32,
    },
    /// A round and the id of each table's game, in table order; the games are created
    /// after this is stored (`driver.rs`), each naming its tournament, round and table.
    RoundPaired {
        round: Round,
        games: Vec<Uuid>,
        /// When the round's unfinished games are timed out (`Settings::round_days`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deadline: Option<DateTime<Utc>>,
    },
    /// The result of a table, read from its game's result.
    ResultRecorded {
        round: u32,
        table: u32,
        game_id: Uuid,
        outcome: Outcome,
    },
    Finished,
}

impl TournamentEvent {
    pub fn kind(&self) -> &'static str {
        match self {
            TournamentEvent::Created { .. } => "created",
            TournamentEvent::RulesChanged { .. } => "rules_changed",
            TournamentEvent::Registered { .. } => "registered",
            TournamentEvent::Withdrawn { .. } => "withdrawn",
            TournamentEvent::RoundPaired { .. } => "round_paired",
            TournamentEvent::ResultRecorded { .. } => "result_recorded",
            TournamentEvent::Finished => "finished",
        }
    }

    /// The crate's event this one folds as.
    fn pairing_event(&self) -> Event {
        match self {
            TournamentEvent::Created { rules, .. } => Event::Created {
                rules: rules.clone(),
            },
            TournamentEvent::RulesChanged { rules } => Event::RulesChanged {
                rules: rules.clone(),
            },
            TournamentEvent::Registered { player, rating } => Event::Registered {
                player: PlayerId(*player),
                rating: *rating,
            },
            TournamentEvent::Withdrawn {
                player,
                after_round,
            } => Event::Withdrawn {
                player: PlayerId(*player),
                after_round: *after_round,
            },
            TournamentEvent::RoundPaired { round, .. } => Event::RoundPaired(round.clone()),
            TournamentEvent::ResultRecorded {
                round,
                table,
                outcome,
                ..
            } => Event::ResultRecorded {
                round: *round,
                table: *table,
                outcome: outcome.clone(),
            },
            TournamentEvent::Finished => Event::Finished,
        }
    }
}

/// A tournament folded from its log.
#[derive(Debug, Clone)]
pub struct Folded {
    pub id: Uuid,
    pub settings: Settings,
    pub state: Tournament,
    /// The game of each (round, table).
    pub games: BTreeMap<(u32, u32), Uuid>,
    /// Each round's deadline, by round.
    pub deadlines: BTreeMap<u32, DateTime<Utc>>,
    pub version: i64,
    pub head_hash: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Folded {
    /// A tournament with no events yet (its `created` is next).
    pub fn new(id: Uuid, settings: Settings, now: DateTime<Utc>) -> Folded {
        Folded {
            id,
            settings,
            state: Tournament::new(),
            games: BTreeMap::new(),
            deadlines: BTreeMap::new(),
            version: 0,
            head_hash: String::new(),
            created_at: now,
            updated_at: now,
        }
    }

    /// Folds a tournament's stored events, checking the chain and each event.
    pub fn from_rows(rows: &[TournamentEventRow]) -> Result<Folded, Refusal> {
        let Some(first) = rows.first() else {
            return Err(Refusal::NotFound("no such tournament".into()));
        };
        let created = read(first).map_err(|e| corrupt(1, e))?;
        let TournamentEvent::Created { settings, .. } = &created else {
            return Err(corrupt(1, "the first event must be created".into()));
        };
        let mut t = Folded::new(first.tournament_id, settings.clone(), first.recorded_at);
        t.extend(rows)?;
        Ok(t)
    }

    /// Folds the stored events that follow this state's version, checking the chain and
    /// each event (a cached state catches up with its log this way).
    pub fn extend(&mut self, rows: &[TournamentEventRow]) -> Result<(), Refusal> {
        for row in rows {
            if row.seq != self.version + 1 || row.tournament_id != self.id {
                return Err(corrupt(row.seq, "out of sequence".into()));
            }
            if !row.hash_holds(&self.head_hash) {
                return Err(corrupt(row.seq, "its hash does not chain".into()));
            }
            let event = read(row).map_err(|e| corrupt(row.seq, e))?;
            self.apply(&event)
                .map_err(|e| corrupt(row.seq, e.to_string()))?;
            self.version = row.seq;
            self.head_hash = row.hash.clone();
            self.updated_at = row.recorded_at;
        }
        Ok(())
    }

    /// Folds `event` in, or refuses it with nothing changed.
    pub fn apply(&mut self, event: &TournamentEvent) -> Result<(), Refusal> {
        match event {
            TournamentEvent::Created { .. } if self.state.rules().is_some() => {
                return Err(Refusal::Conflict("the tournament exists".into()))
            }
            TournamentEvent::RoundPaired { round, games, .. }
                if games.len() != round.tables.len() =>
            {
                return Err(Refusal::Invalid(
                    "a round names one game for each table".into(),
                ))
            }
            TournamentEvent::ResultRecorded {
                round,
                table,
                game_id,
                ..
            } if self.games.get(&(*round, *table)) != Some(game_id) => {
                return Err(Refusal::Conflict(format!(
                    "game {game_id} is not the game of round {round}, table {table}"
                )))
            }
            _ => {}
        }
        self.state
            .apply(&event.pairing_event())
            .map_err(refusal_of)?;
        if let TournamentEvent::RoundPaired {
            round,
            games,
            deadline,
        } = event
        {
            for (table, game) in round.tables.iter().zip(games) {
                self.games.insert((round.number, table.number), *game);
            }
            if let Some(d) = deadline {
                self.deadlines.insert(round.number, *d);
            }
        }
        Ok(())
    }

    /// `registering`, `running` or `finished`.
    pub fn status(&self) -> &'static str {
        if self.state.is_finished() {
            "finished"
        } else if self.state.has_started() {
            "running"
        } else {
            "registering"
        }
    }

    pub fn rules(&self) -> Result<&Rules, Refusal> {
        self.state
            .rules()
            .ok_or_else(|| Refusal::Internal("a tournament without rules".into()))
    }
}

/// The server's refusal for the crate's.
pub fn refusal_of(e: worp_tournament::Refusal) -> Refusal {
    use worp_tournament::Refusal as R;
    match e {
        R::InvalidRules(why) => Refusal::Invalid(format!("invalid rules: {why}")),
        R::NotRegistered(_) => Refusal::Conflict("you are not registered".into()),
        R::AlreadyRegistered(_) => Refusal::Conflict("you are registered already".into()),
        R::AlreadyWithdrawn(_) => Refusal::Conflict("you have withdrawn already".into()),
        other => Refusal::Conflict(other.to_string()),
    }
}

fn corrupt(seq: i64, why: String) -> Refusal {
    Refusal::Internal(format!("tournament event {seq} does not fold: {why}"))
}

/// The event stored in `row`.
fn read(row: &TournamentEventRow) -> Result<TournamentEvent, String> {
    let event: TournamentEvent = serde_json::from_str(&row.payload).map_err(|e| e.to_string())?;
    if event.kind() != row.kind {
        return Err(format!("a {} stored as {}", event.kind(), row.kind));
    }
    Ok(event)
}

/// The payload's text of `event`, as stored and hashed.
pub fn payload(event: &TournamentEvent) -> Result<String, Refusal> {
    serde_json::to_string(event).map_err(|e| Refusal::unwritable("a tournament event", e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use worp_tournament::{Format, Table};

    fn started() -> (Folded, Uuid) {
        let (a, b) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let settings = Settings {
            name: "t".into(),
            variant: "backgammon".into(),
            options: Value::Null,
            days_per_move: 3,
            round_days: None,
            rated: true,
            invited: Vec::new(),
            created_by: a,
        };
        let rules = Rules {
            format: Format::Swiss { rounds: 2 },
            table_size: 2,
            min_players: 2,
            max_players: 4,
            sided: true,
            draws: true,
            late_registration_rounds: 0,
        };
        let game = Uuid::from_u128(9);
        let mut t = Folded::new(Uuid::from_u128(7), settings.clone(), DateTime::UNIX_EPOCH);
        for e in [
            TournamentEvent::Created { settings, rules },
            TournamentEvent::Registered {
                player: a,
                rating: 1500,
            },
            TournamentEvent::Registered {
                player: b,
                rating: 1500,
            },
            TournamentEvent::RoundPaired {
                round: Round {
                    number: 1,
                    tables: vec![Table {
                        number: 1,
                        seats: vec![PlayerId(a), PlayerId(b)],
                    }],
                    byes: Vec::new(),
                },
                games: vec![game],
                deadline: None,
            },
        ] {
            t.apply(&e).expect("folds");
        }
        (t, game)
    }

    fn result(game: Uuid) -> TournamentEvent {
        TournamentEvent::ResultRecorded {
            round: 1,
            table: 1,
            game_id: game,
            outcome: Outcome::Winner {
                player: PlayerId(Uuid::from_u128(1)),
            },
        }
    }

    #[test]
    fn a_game_outside_the_tournament_is_not_counted_and_changes_nothing() {
        let (mut t, _) = started();
        let before = t.state.clone();
        let refused = t.apply(&result(Uuid::from_u128(10)));
        assert!(matches!(refused, Err(Refusal::Conflict(_))), "{refused:?}");
        assert_eq!(t.state, before);
    }

    #[test]
    fn a_result_recorded_twice_is_refused_and_changes_nothing() {
        let (mut t, game) = started();
        t.apply(&result(game)).expect("the first");
        let before = t.state.clone();
        assert!(matches!(t.apply(&result(game)), Err(Refusal::Conflict(_))));
        assert_eq!(t.state, before);
    }

    #[test]
    fn a_round_must_name_a_game_for_each_table() {
        let (mut t, game) = started();
        t.apply(&result(game)).expect("the result");
        let round = worp_tournament::pair_next_round(&t.state).expect("round 2");
        let refused = t.apply(&TournamentEvent::RoundPaired {
            round,
            games: Vec::new(),
            deadline: None,
        });
        assert!(matches!(refused, Err(Refusal::Invalid(_))), "{refused:?}");
    }
}
