//! The operations that change games: create, take a seat, move, resign, time out.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;
use worp_engine::{variant, Seat};

use super::changes::{Idempotency, Played};
use super::draft::Draft;
use super::refusal::Refusal;
use super::seats::chosen_seat;
use super::text;
use super::worp::Worp;
use worp_domain::bots::BotKind;
use worp_domain::dice;
use worp_domain::events::{Event, EventRow, RetireReason};
use worp_domain::table::{Status, Table};
use worp_store::Player;

/// A seat in a create request: a player id, a bot, or `null` for an open seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum SeatRequest {
    /// A player's id.
    Player(Uuid),
    /// A seat the computer plays: `{"bot": "greedy"}` (`GET /v1/bots` lists the bots).
    Bot { bot: BotKind },
}

/// The days a move may take (`days_per_move`).
pub const DAYS_PER_MOVE: [u32; 7] = [1, 2, 3, 5, 7, 10, 14];

/// `POST /v1/games`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"variant": "backgammon", "options": {}, "seats": ["6f1c6c1e-8d3a-4a53-9d55-0d6c4e6f9a11", {"bot": "greedy"}], "days_per_move": 3}))]
pub struct CreateGame {
    /// A registered variant name.
    pub variant: String,
    /// The variant's options; absent or `null` for the defaults.
    #[serde(default)]
    pub options: Value,
    /// One entry per seat: a player id (the creator's own, or another player's: an
    /// invitation), `{"bot": "greedy"}` for a seat the computer plays (`GET /v1/bots`
    /// lists the bots this server offers), or `null`
    /// for an open seat. The creator must be in at least one seat.
    pub seats: Vec<Option<SeatRequest>>,
    /// The clock: days each seat has for each move (1, 2, 3, 5, 7, 10 or 14); absent or
    /// `null` for none. A seat whose time runs out retires (in a two-seat game the other
    /// seat wins).
    #[serde(default)]
    pub days_per_move: Option<u32>,
    /// A seed the creator adds to the dice (for every seat the creator takes).
    #[serde(default)]
    pub client_seed: Option<String>,
    /// Whether the result changes the players' ratings. Default: rated unless a bot
    /// plays a seat (a game with a bot is never rated).
    #[serde(default)]
    pub rated: Option<bool>,
    /// Whether anyone may read the players' messages (default: only the players).
    #[serde(default)]
    pub public_chat: bool,
}

impl Worp {
    /// Creates a game.
    #[tracing::instrument(name = "service.create_game", level = "info", skip_all)]
    pub async fn create_game(
        &self,
        creator: &Player,
        req: CreateGame,
    ) -> Result<Arc<Table>, Refusal> {
        // The game waits for players when a seat is open or names another player.
        let opens = req.seats.iter().any(|s| match s {
            None => true,
            Some(SeatRequest::Player(p)) => *p != creator.id,
            Some(SeatRequest::Bot { .. }) => false,
        });
        let _open = self
            .open_games
            .reserve(&self.store, creator.id, opens)
            .await?;
        let v = variant(&req.variant).map_err(Refusal::from)?;
        let count = u8::try_from(req.seats.len())
            .ok()
            .filter(|n| (v.min_seats..=v.max_seats).contains(n))
            .ok_or_else(|| {
                Refusal::Invalid(format!(
                    "{} is played by {} to {} seats, not {}",
                    v.name,
                    v.min_seats,
                    v.max_seats,
                    req.seats.len()
                ))
            })?;
        let players: Vec<Option<Uuid>> = req
            .seats
            .iter()
            .map(|s| match s {
                Some(SeatRequest::Player(p)) => Some(*p),
                _ => None,
            })
            .collect();
        let bots: Vec<Option<BotKind>> = req
            .seats
            .iter()
            .map(|s| match s {
                Some(SeatRequest::Bot { bot }) => Some(*bot),
                _ => None,
            })
            .collect();
        for bot in bots.iter().flatten() {
            self.check_bot(*bot, v.name)?;
        }
        if let Some(d) = req.days_per_move {
            if !DAYS_PER_MOVE.contains(&d) {
                return Err(Refusal::Invalid(format!(
                    "days_per_move must be one of {DAYS_PER_MOVE:?}, not {d}"
                )));
            }
        }
        if !players.contains(&Some(creator.id)) {
            return Err(Refusal::Invalid(
                "the creator must take at least one seat".into(),
            ));
        }
        text::check_client_seed(&req.client_seed)?;
        text::check_json("options", &req.options)?;
        let has_bot = req
            .seats
            .iter()
            .any(|s| matches!(s, Some(SeatRequest::Bot { .. })));
        let rated = match req.rated {
            Some(true) if has_bot => {
                return Err(Refusal::Invalid(
                    "a game with a bot in it cannot be rated".into(),
                ))
            }
            Some(rated) => rated,
            None => !has_bot,
        };
        for p in players.iter().flatten() {
            if *p != creator.id && !self.store.player_exists(*p).await? {
                return Err(Refusal::Invalid(format!("no player {p}")));
            }
            // An invitation a deleted player can never take would keep the game waiting.
            if *p != creator.id && self.is_deleted(*p).await? {
                return Err(Refusal::Invalid(format!(
                    "player {p} deleted their account: they cannot be invited"
                )));
            }
        }
        // Validates the options against the rules before anything is stored.
        let game = v.create(&req.options, count)?;
        let seed = dice::new_server_seed()
            .map_err(|e| Refusal::Internal(format!("no randomness available: {e}")))?;
        let id = Uuid::new_v4();
        let now = self.now();
        // The creator sits down; every other player named is invited: the seat is theirs
        // to take or decline, and nothing of the game reaches them before they take it.
        let seated: Vec<Option<Uuid>> = players
            .iter()
            .map(|p| p.filter(|p| *p == creator.id))
            .collect();
        let invited: Vec<Option<Uuid>> = players
            .iter()
            .map(|p| p.filter(|p| *p != creator.id))
            .collect();
        let created = Event::GameCreated {
            variant: v.name.to_owned(),
            options: game.options()?,
            seats: seated,
            invited: if invited.iter().any(Option::is_some) {
                invited
            } else {
                Vec::new()
            },
            bots: if bots.iter().any(Option::is_some) {
                bots
            } else {
                Vec::new()
            },
            days_per_move: req.days_per_move,
            client_seeds: players
                .iter()
                .map(|p| {
                    if *p == Some(creator.id) {
                        req.client_seed.clone()
                    } else {
                        None
                    }
                })
                .collect(),
            dice_commitment: dice::commitment(&seed),
            created_by: creator.id,
            rated,
            public_chat: req.public_chat,
            tournament: None,
        };
        let first = EventRow::new(id, 1, &created, now, "").map_err(Refusal::unwritable_event)?;
        let table = Table::from_events(std::slice::from_ref(&first))?;
        let mut draft = Draft {
            table,
            events: vec![first],
            now,
            seed: seed.to_vec(),
            passed: Vec::new(),
        };
        // A creator on vacation sits down paused.
        if req.days_per_move.is_some() {
            let mine =
                (0..count).filter(|s| players.get(usize::from(*s)) == Some(&Some(creator.id)));
            for event in self.vacation_of_seats(creator.id, mine, now).await? {
                draft.push(event)?;
            }
        }
        draft.advance()?;
        self.record(None, draft, 0, Some(&seed), None, false)
            .await
            .map(|p| p.table)
    }

    /// Plays a move for the caller's seat, given as the request's JSON text: read into a
    /// value once for each judgement (a second only where the first, on a cached table,
    /// was refused), and typed by the engine from it. The answer, the game's view, is
    /// written while the move's commit is in flight.
    #[tracing::instrument(name = "service.play", level = "info", skip_all)]
    pub async fn play(
        &self,
        player: &Player,
        id: Uuid,
        mv: &RawValue,
        if_match: Option<i64>,
        idempotency: Option<Idempotency<'_>>,
    ) -> Result<Played, Refusal> {
        let read = || -> Result<Value, Refusal> {
            let mv = serde_json::from_str(mv.get())
                .map_err(|e| Refusal::Invalid(format!("the move is not JSON: {e}")))?;
            text::check_json("move", &mv)?;
            Ok(mv)
        };
        let mut unjudged = Some(read()?);
        // The newest cached state is trusted without reading the log first: if another
        // process appended since, the append's version check refuses this one, and so
        // does any refusal judged on a state that may be old. Either way the move is
        // judged once more on the state read from the log, and that answer stands.
        let cached = self.cache.newest(id);
        let mut refused = None;
        if let (Some(cached), Some(mv)) = (&cached, unjudged.take()) {
            match self
                .play_on(cached, player, mv, if_match, idempotency)
                .await
            {
                Ok(p) => return Ok(p),
                Err(e @ (Refusal::Unavailable(_) | Refusal::Internal(_))) => return Err(e),
                Err(e) => refused = Some((cached.version, e)),
            }
        }
        // Boxed, as is the second judgement below: both are rare, and kept in place they
        // would widen the future of every move.
        let table = Box::pin(self.load(id)).await?;
        match refused {
            // The log has not moved on: judged on this very state already.
            Some((version, e)) if version == table.version => Err(e),
            _ => {
                let mv = match unjudged {
                    Some(mv) => mv,
                    None => read()?,
                };
                Box::pin(self.play_on(&table, player, mv, if_match, idempotency)).await
            }
        }
    }

    async fn play_on(
        &self,
        table: &Table,
        player: &Player,
        mv: Value,
        if_match: Option<i64>,
        idempotency: Option<Idempotency<'_>>,
    ) -> Result<Played, Refusal> {
        if let Some(v) = if_match {
            // The precondition concerns the board: a version the board has not moved on
            // from passes, whatever messages came after it.
            if v < table.board_version || v > table.version {
                return Err(Refusal::Stale(format!(
                    "the game is at version {} (its board at {}), not {v}",
                    table.version, table.board_version
                )));
            }
        }
        let seat = self.seat_to_act(table, player)?;
        self.change_answered(
            table,
            Event::MovePlayed { seat: seat.0, mv },
            self.now(),
            idempotency.map(|i| (player.id, i)),
            true,
        )
        .await
    }

    fn seat_to_act(&self, table: &Table, player: &Player) -> Result<Seat, Refusal> {
        let mine = table.seats_of(player.id);
        if mine.is_empty() {
            return Err(Refusal::NotYours("you have no seat in this game".into()));
        }
        if table.status() != Status::Active {
            return Err(Refusal::Conflict(format!(
                "the game is {}",
                table.status().as_str()
            )));
        }
        match table.to_move() {
            Some(seat) if mine.contains(&seat) => Ok(seat),
            _ => Err(Refusal::Conflict("it is not your turn".into())),
        }
    }

    /// The caller gives up `seat` (or their only seat).
    #[tracing::instrument(name = "service.resign", level = "info", skip_all)]
    pub async fn resign(
        &self,
        player: &Player,
        id: Uuid,
        seat: Option<u8>,
    ) -> Result<Arc<Table>, Refusal> {
        let table = self.load(id).await?;
        let held = table.seats_of(player.id);
        let mine: Vec<Seat> = held
            .iter()
            .copied()
            .filter(|s| !table.seats[s.index()].retired)
            .collect();
        if held.is_empty() {
            return Err(Refusal::NotYours("you have no seat in this game".into()));
        }
        if table.status() != Status::Active {
            return Err(Refusal::Conflict(format!(
                "the game is {}",
                table.status().as_str()
            )));
        }
        let seat = chosen_seat(
            seat,
            &mine,
            |s| match held.contains(&Seat(s)) {
                true => Refusal::Conflict(format!("seat {s} has retired already")),
                false => Refusal::NotYours(format!("seat {s} is not yours to resign")),
            },
            || Refusal::Conflict("you have already resigned".into()),
            "you hold several seats: say which one resigns",
        )?;
        let event = Event::SeatRetired {
            seat: seat.0,
            reason: RetireReason::Resigned,
        };
        self.change(&table, event, self.now(), None).await
    }

    /// Records a time-out for the seat to move of game `id` if its deadline has passed
    /// by the clock. Returns whether it did (another process may have been first: then
    /// the expected-version append fails and this is a no-op).
    #[tracing::instrument(name = "service.time_out", level = "info", skip_all)]
    pub async fn time_out(&self, id: Uuid) -> Result<bool, Refusal> {
        let table = self.load(id).await?;
        let now = self.now();
        let (Some(deadline), Some(seat)) = (table.deadline(), table.to_move()) else {
            return Ok(false);
        };
        if deadline > now {
            return Ok(false);
        }
        let event = Event::SeatRetired {
            seat: seat.0,
            reason: RetireReason::TimedOut,
        };
        match self.change(&table, event, now, None).await {
            Ok(_) => Ok(true),
            Err(Refusal::Conflict(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Times out every game whose deadline has passed; returns how many.
    /// A game that cannot be timed out (its log does not replay) is logged and skipped;
    /// the sweep stops early only when the database is away.
    pub async fn sweep_deadlines(&self) -> Result<usize, Refusal> {
        let mut n = 0;
        for id in self.store.overdue_games(self.now(), 500).await? {
            match self.time_out(id).await {
                Ok(true) => n += 1,
                Ok(false) => {}
                Err(e @ Refusal::Unavailable(_)) => return Err(e),
                Err(e) => tracing::error!("game {id} could not be timed out: {e}"),
            }
        }
        worp_telemetry::metrics::deadline_sweep(n);
        Ok(n)
    }
}
