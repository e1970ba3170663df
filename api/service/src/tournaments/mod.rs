//! Tournaments on the server: their logs (`log.rs`), what players ask of them (this
//! file), the driver that records results and pairs rounds as games end (`driver.rs`),
//! and what is shown of them (`views.rs`). The pairing rules are the crate
//! `worp-tournament`'s; the rules chosen are in `docs/tournaments.md`.

pub mod audit;
pub mod cache;
pub mod driver;
pub mod log;
pub mod queue;
pub mod views;

use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;
use worp_domain::tournaments::{TournamentAppend, TournamentEventRow, TournamentGame};
use worp_store::{Player, StoreError};
use worp_tournament::Rules;

use crate::games::DAYS_PER_MOVE;
use crate::refusal::Refusal;
use crate::text;
use crate::worp::Worp;
pub use log::{Folded, Settings, TournamentEvent, TournamentFormat};
pub use views::{TournamentSummary, TournamentView};

/// The longest name of a tournament, in characters.
pub const MAX_TOURNAMENT_NAME: usize = 100;
/// The most days a round may last.
pub const MAX_ROUND_DAYS: u32 = 90;
/// The most unfinished tournaments one player may have created: the lobby is not theirs
/// to fill.
pub const MAX_OPEN_TOURNAMENTS: i64 = 10;
/// The rating a player without one in the variant is seeded with.
pub const UNRATED: i32 = 1500;

/// `POST /v1/tournaments`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Winter Swiss", "variant": "backgammon", "format": {"kind": "swiss", "rounds": 5}, "max_players": 16, "days_per_move": 3}))]
pub struct CreateTournament {
    /// 1 to 100 characters.
    pub name: String,
    /// A registered variant name.
    pub variant: String,
    /// The variant's options for every game; absent or `null` for the defaults.
    #[serde(default)]
    pub options: Value,
    pub format: TournamentFormat,
    /// Players per game: 2 by default; up to the variant's seats (Mens-erger-je-niet,
    /// Ludo and Ali Baba seat more, and score by finishing place).
    #[serde(default)]
    pub table_size: Option<u32>,
    /// The fewest players to start with (default: the table size).
    #[serde(default)]
    pub min_players: Option<u32>,
    /// The most players (2 to 256).
    pub max_players: u32,
    /// Every game's clock: days per move (1, 2, 3, 5, 7, 10 or 14). A time-out is a loss.
    pub days_per_move: u32,
    /// Days each round may last (1 to 90): then the seat to move in each unfinished game
    /// times out. Absent: a round lasts until its games end.
    #[serde(default)]
    pub round_days: Option<u32>,
    /// Whether the games change the players' ratings (default: yes).
    #[serde(default)]
    pub rated: Option<bool>,
    /// Only these players may register (absent or empty: anyone).
    #[serde(default)]
    pub invited: Vec<Uuid>,
    /// Swiss only: a player may still register while fewer than this many rounds are
    /// paired (default 0: registration closes at the start).
    #[serde(default)]
    pub late_registration_rounds: u32,
}

/// `PUT /v1/tournaments/{id}/rules`: the creator's new rules, before the first round.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangeRules {
    pub format: TournamentFormat,
    pub min_players: u32,
    pub max_players: u32,
    #[serde(default)]
    pub late_registration_rounds: u32,
}

impl Worp {
    /// Creates a tournament; the creator does not play in it unless they register.
    pub async fn create_tournament(
        &self,
        creator: &Player,
        req: CreateTournament,
    ) -> Result<TournamentView, Refusal> {
        let name = req.name.trim();
        if name.is_empty() || name.chars().count() > MAX_TOURNAMENT_NAME {
            return Err(Refusal::Invalid(format!(
                "name must be 1 to {MAX_TOURNAMENT_NAME} characters"
            )));
        }
        text::check_plain("name", name)?;
        text::check_shown_text("name", name)?;
        text::check_json("options", &req.options)?;
        let v = worp_engine::variant(&req.variant).map_err(Refusal::from)?;
        if !DAYS_PER_MOVE.contains(&req.days_per_move) {
            return Err(Refusal::Invalid(format!(
                "days_per_move must be one of {DAYS_PER_MOVE:?}, not {}",
                req.days_per_move
            )));
        }
        if req
            .round_days
            .is_some_and(|d| !(1..=MAX_ROUND_DAYS).contains(&d))
        {
            return Err(Refusal::Invalid(format!(
                "round_days must be 1 to {MAX_ROUND_DAYS}"
            )));
        }
        let table_size = req.table_size.unwrap_or(2.max(u32::from(v.min_seats)));
        if !(u32::from(v.min_seats)..=u32::from(v.max_seats)).contains(&table_size) {
            return Err(Refusal::Invalid(format!(
                "{} is played by {} to {} seats, not {table_size}",
                v.name, v.min_seats, v.max_seats
            )));
        }
        let mut options = req.options.clone();
        if let TournamentFormat::Knockout {
            match_points: Some(points),
        } = req.format
        {
            if v.name != "backgammon" {
                return Err(Refusal::Invalid(
                    "match_points is for backgammon knockouts".into(),
                ));
            }
            if options.is_null() {
                options = Value::Object(Default::default());
            }
            let Value::Object(map) = &mut options else {
                return Err(Refusal::Invalid("options must be an object".into()));
            };
            map.insert("match_length".into(), Value::from(points));
        }
        // Every game is made with these options: refused now rather than at round 1.
        let options = v.create(&options, table_size as u8)?.options()?;
        let mut invited = req.invited.clone();
        invited.sort();
        invited.dedup();
        if invited.len() > worp_tournament::rules::MAX_PLAYERS as usize {
            return Err(Refusal::Invalid(
                "at most 256 players may be invited".into(),
            ));
        }
        for p in &invited {
            if !self.store.player_exists(*p).await? {
                return Err(Refusal::Invalid(format!("no player {p}")));
            }
        }
        if self.store.unfinished_tournaments_of(creator.id).await? >= MAX_OPEN_TOURNAMENTS {
            return Err(Refusal::TooMany(format!(
                "you have {MAX_OPEN_TOURNAMENTS} tournaments that are not finished; \
                 finish or start one first"
            )));
        }
        let rules = rules_of(
            req.format,
            table_size,
            req.min_players.unwrap_or(table_size),
            req.max_players,
            req.late_registration_rounds,
        );
        if let Some(why) = rules.invalid() {
            return Err(Refusal::Invalid(format!("invalid rules: {why}")));
        }
        let settings = Settings {
            name: name.to_owned(),
            variant: v.name.to_owned(),
            options,
            days_per_move: req.days_per_move,
            round_days: req.round_days,
            rated: req.rated.unwrap_or(true),
            invited,
            created_by: creator.id,
        };
        let id = Uuid::new_v4();
        let new = Folded::new(id, settings.clone(), self.now());
        let t = self
            .change_tournament(id, Some(new), |_| {
                Ok(vec![TournamentEvent::Created {
                    settings: settings.clone(),
                    rules: rules.clone(),
                }])
            })
            .await?;
        self.tournament_view(&t).await
    }

    /// Registers the caller, seeded by their rating in the variant.
    pub async fn register_for_tournament(
        &self,
        player: &Player,
        id: Uuid,
    ) -> Result<TournamentView, Refusal> {
        let book = self.rating_book().await?;
        let current = self.tournament(id).await?;
        let rating = book
            .standing(player.id, &current.settings.variant)
            .map_or(UNRATED, |s| s.rating.round() as i32);
        let t = self
            .change_tournament(id, Some(current), |t| {
                if !t.settings.invited.is_empty() && !t.settings.invited.contains(&player.id) {
                    return Err(Refusal::NotYours(
                        "this tournament is by invitation, and you are not invited".into(),
                    ));
                }
                Ok(vec![TournamentEvent::Registered {
                    player: player.id,
                    rating,
                }])
            })
            .await?;
        self.tournament_queue.push(id);
        self.tournament_view(&t).await
    }

    /// Withdraws the caller: before the start they leave the list; after it they play no
    /// later round, and their unfinished game of this round is resigned (a loss).
    pub async fn withdraw_from_tournament(
        &self,
        player: &Player,
        id: Uuid,
    ) -> Result<TournamentView, Refusal> {
        let t = self
            .change_tournament(id, None, |t| {
                Ok(vec![TournamentEvent::Withdrawn {
                    player: player.id,
                    after_round: t.state.rounds_paired(),
                }])
            })
            .await?;
        if let Some(round) = t.state.rounds().last() {
            for table in &round.round.tables {
                if round.results.contains_key(&table.number)
                    || !table.seats.iter().any(|p| p.0 == player.id)
                {
                    continue;
                }
                if let Some(game) = t.games.get(&(round.round.number, table.number)) {
                    match self.resign(player, *game, None).await {
                        Ok(_) | Err(Refusal::Conflict(_)) | Err(Refusal::NotFound(_)) => {}
                        Err(e) => return Err(e),
                    }
                }
            }
        }
        // The resignation's result, and a round it completes, are on the page returned.
        self.advance_tournament(id).await?;
        self.tournament_page(id).await
    }

    /// The creator's new rules, before the first round is paired.
    pub async fn change_tournament_rules(
        &self,
        player: &Player,
        id: Uuid,
        req: ChangeRules,
    ) -> Result<TournamentView, Refusal> {
        let t = self
            .change_tournament(id, None, |t| {
                if t.settings.created_by != player.id {
                    return Err(Refusal::NotYours(
                        "only the tournament's creator changes its rules".into(),
                    ));
                }
                let table_size = t.rules()?.table_size;
                if let TournamentFormat::Knockout {
                    match_points: Some(points),
                } = req.format
                {
                    if t.settings.options.get("match_length") != Some(&Value::from(points)) {
                        return Err(Refusal::Invalid(
                            "a knockout's match_points are fixed when it is created".into(),
                        ));
                    }
                }
                Ok(vec![TournamentEvent::RulesChanged {
                    rules: rules_of(
                        req.format,
                        table_size,
                        req.min_players,
                        req.max_players,
                        req.late_registration_rounds,
                    ),
                }])
            })
            .await?;
        self.tournament_view(&t).await
    }

    /// The creator starts the tournament: the first round is paired and its games made.
    pub async fn start_tournament(
        &self,
        player: &Player,
        id: Uuid,
    ) -> Result<TournamentView, Refusal> {
        let now = self.now();
        self.change_tournament(id, None, |t| {
            if t.settings.created_by != player.id {
                return Err(Refusal::NotYours(
                    "only the tournament's creator starts it".into(),
                ));
            }
            if t.state.has_started() {
                return Err(Refusal::Conflict("the tournament has started".into()));
            }
            let rules = t.rules()?;
            let playing = t.state.players_in(1);
            if playing < rules.min_players as usize {
                return Err(Refusal::Conflict(format!(
                    "{playing} players are registered; the tournament needs {}",
                    rules.min_players
                )));
            }
            driver::next_round(t, now)
        })
        .await?;
        self.advance_tournament(id).await?;
        self.tournament_page(id).await
    }

    /// Tournament `id` as its log now stands: the cached fold brought up to date with the
    /// events after it (folding checks each round by pairing it again: a Swiss of 256
    /// players costs a matching per round), or folded from the start.
    pub async fn tournament(&self, id: Uuid) -> Result<Folded, Refusal> {
        let cached = self.tournament_cache.get(id);
        let after = cached.as_ref().map_or(0, |t| t.version);
        let rows = self.store.tournament_events(id, after).await?;
        let t = match cached {
            Some(t) if rows.is_empty() => return Ok(t),
            Some(mut t) => {
                t.extend(&rows)?;
                t
            }
            None => Folded::from_rows(&rows)?,
        };
        self.tournament_cache.put(&t);
        Ok(t)
    }

    /// Tournament `id`'s log as stored.
    pub async fn tournament_log(&self, id: Uuid) -> Result<Vec<TournamentEventRow>, Refusal> {
        let rows = self.store.tournament_events(id, 0).await?;
        if rows.is_empty() {
            return Err(Refusal::NotFound(format!("no tournament {id}")));
        }
        Ok(rows)
    }

    /// Appends the events `decide` gives on the tournament as it stands (`current` if its
    /// log has not moved on, else read now; `current` is a new one when its log is
    /// empty), retrying on a lost race; returns the tournament after them. Each event is
    /// checked by folding it before anything is stored.
    pub(crate) async fn change_tournament(
        &self,
        id: Uuid,
        mut current: Option<Folded>,
        decide: impl Fn(&Folded) -> Result<Vec<TournamentEvent>, Refusal>,
    ) -> Result<Folded, Refusal> {
        for _ in 0..8 {
            let mut after = match current.take() {
                // A new tournament, or one read by the caller: the append checks it is
                // still the log's end.
                Some(t) => t,
                None => self.tournament(id).await?,
            };
            let now = self.now();
            let events = decide(&after)?;
            if events.is_empty() {
                // Nothing to record (another process was first).
                return Ok(after);
            }
            let expected = after.version;
            let mut rows = Vec::with_capacity(events.len());
            let mut games = Vec::new();
            for event in &events {
                after.apply(event)?;
                let row = TournamentEventRow::new(
                    id,
                    after.version + 1,
                    event.kind(),
                    log::payload(event)?,
                    now,
                    &after.head_hash,
                );
                after.version = row.seq;
                after.head_hash = row.hash.clone();
                after.updated_at = row.recorded_at;
                if row.seq == 1 {
                    after.created_at = row.recorded_at;
                }
                if let TournamentEvent::RoundPaired {
                    round, games: ids, ..
                } = event
                {
                    for (table, game) in round.tables.iter().zip(ids) {
                        games.push(TournamentGame {
                            game_id: *game,
                            tournament_id: id,
                            round: round.number,
                            table: table.number,
                        });
                    }
                }
                rows.push(row);
            }
            let append = TournamentAppend {
                expected_version: expected,
                events: rows,
                row: views::row_of(&after)?,
                games,
            };
            match self.store.append_tournament(&append).await {
                Ok(()) => {
                    self.tournament_cache.put(&after);
                    return Ok(after);
                }
                Err(StoreError::Conflict) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(Refusal::Conflict(
            "the tournament changed under this request too often; try again".into(),
        ))
    }
}

/// The crate's rules from a request's.
fn rules_of(
    format: TournamentFormat,
    table_size: u32,
    min_players: u32,
    max_players: u32,
    late_registration_rounds: u32,
) -> Rules {
    Rules {
        format: format.into(),
        table_size,
        min_players,
        max_players,
        // Two seats: the first seat moves first (or wins the opening roll's ties).
        sided: table_size == 2,
        // A drawn game counts half for each (knockouts settle a draw, `driver.rs`).
        draws: !matches!(format, TournamentFormat::Knockout { .. }),
        late_registration_rounds,
    }
}
