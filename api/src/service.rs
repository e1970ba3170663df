//! What players can do to games: every operation loads the game from its events, checks
//! the request against the rules, writes the new events (and the rolls the server makes
//! after them) in one append that states the version it expects, and answers with the
//! game as it now is.

use std::sync::Arc;

use chrono::{DateTime, SubsecRound, Utc};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;
use uuid::Uuid;
use worp_engine::{variant, Awaiting, GameResult, Seat};

use crate::bots::{self, BotKind};
use crate::cache::StateCache;
use crate::dice;
use crate::events::{Event, RetireReason, StoredEvent};
use crate::live::{Change, Live};
use crate::problem::ApiError;
use crate::store::{
    Append, GameFilter, GameRow, JsonText, Player, PlayerNotice, SavedResponse, Store,
};
use crate::table::{LastDice, SeatInfo, Status, Table};

/// Where the time comes from (one injectable clock, so tests can move it).
pub trait Clock: Send + Sync + std::fmt::Debug {
    fn now(&self) -> DateTime<Utc>;
}

/// The system's clock.
#[derive(Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// The longest client seed accepted, in bytes.
pub const MAX_CLIENT_SEED: usize = 256;
/// The longest player name accepted, in characters.
pub const MAX_NAME: usize = 64;

/// The server's shared state.
#[derive(Debug)]
pub struct Worp {
    pub store: Store,
    pub cache: StateCache,
    pub clock: Arc<dyn Clock>,
    pub live: Live,
    /// How long a live stream may stay silent before a keep-alive comment.
    pub keepalive: std::time::Duration,
}

/// A seat in a game view.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SeatView {
    /// The seat number.
    pub seat: u8,
    /// The player in it; absent while open.
    pub player_id: Option<Uuid>,
    /// Whether the seat left the game.
    pub retired: bool,
    /// The bot playing this seat, if the computer plays it.
    pub bot: Option<BotKind>,
}

/// A game as the API shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GameView {
    pub id: Uuid,
    /// The registered variant name (see `GET /v1/variants`).
    pub variant: String,
    /// The options, every default filled in.
    pub options: Value,
    pub status: Status,
    /// The last sequence number of the game's events; also the ETag.
    pub version: i64,
    pub seats: Vec<SeatView>,
    /// The seat whose move the game awaits, if any.
    pub to_move: Option<u8>,
    /// When the seat to move runs out of time (games with a clock).
    pub deadline: Option<DateTime<Utc>>,
    /// Days each seat has per move; absent: no clock.
    pub days_per_move: Option<u32>,
    /// What the engine waits for next.
    pub awaiting: Awaiting,
    /// The engine's state; its schema is the variant's `state_schema`.
    #[schema(value_type = Value)]
    pub state: Box<RawValue>,
    /// The last dice the server rolled.
    pub last_dice: Option<LastDice>,
    /// The legal moves of the seat to move; send one back exactly as listed.
    #[schema(value_type = Vec<Value>)]
    pub legal_moves: Box<RawValue>,
    /// How the game ended, when finished.
    pub result: Option<GameResult>,
    /// Hex SHA-256 of the secret server seed.
    pub dice_commitment: String,
    /// The server seed, revealed once the game is finished.
    pub server_seed: Option<String>,
    /// The hash of the newest event (the head of the chain).
    pub head_hash: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub last_move_at: Option<DateTime<Utc>>,
}

impl GameView {
    pub fn of(t: &Table) -> GameView {
        let status = t.status();
        GameView {
            id: t.id,
            variant: t.variant.to_owned(),
            options: t.options.clone(),
            status,
            version: t.version,
            seats: t
                .seats
                .iter()
                .enumerate()
                .map(|(i, s)| SeatView {
                    seat: i as u8,
                    player_id: s.player_id,
                    retired: s.retired,
                    bot: s.bot,
                })
                .collect(),
            to_move: t.to_move().map(|s| s.0),
            deadline: t.deadline(),
            days_per_move: t.days_per_move,
            awaiting: t.game.awaiting(),
            // Written straight from the engine's types: building `Value`s first cost a
            // tenth of a move's time on the server.
            state: t.game.state_json(),
            last_dice: t.last_dice.clone(),
            legal_moves: if status == Status::Active {
                t.game.legal_moves_json()
            } else {
                empty_list()
            },
            result: t.result.clone(),
            dice_commitment: t.dice_commitment.clone(),
            server_seed: t.server_seed.clone(),
            head_hash: t.head_hash.clone(),
            created_at: t.created_at,
            updated_at: t.updated_at,
            last_move_at: t.last_move_at,
        }
    }
}

/// `[]`, as JSON text.
fn empty_list() -> Box<RawValue> {
    serde_json::value::to_raw_value::<[u8]>(&[]).unwrap_or_else(|_| RawValue::NULL.to_owned())
}

/// A game in a listing.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GameSummary {
    pub id: Uuid,
    pub variant: String,
    pub status: String,
    pub version: i64,
    /// The player of each seat (`null` = open).
    pub seats: Vec<Option<Uuid>>,
    pub to_move: Option<u8>,
    pub to_move_player: Option<Uuid>,
    /// When the seat to move runs out of time (games with a clock).
    pub deadline: Option<DateTime<Utc>>,
    pub result: Option<GameResult>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub last_move_at: Option<DateTime<Utc>>,
}

/// The read-model row of a table.
pub fn game_row(t: &Table) -> GameRow {
    let summary = GameSummary {
        id: t.id,
        variant: t.variant.to_owned(),
        status: t.status().as_str().to_owned(),
        version: t.version,
        seats: t.seats.iter().map(|s| s.player_id).collect(),
        to_move: t.to_move().map(|s| s.0),
        to_move_player: t.to_move_player(),
        deadline: t.deadline(),
        result: t.result.clone(),
        created_at: t.created_at,
        updated_at: t.updated_at,
        last_move_at: t.last_move_at,
    };
    GameRow {
        id: t.id,
        variant: t.variant.to_owned(),
        status: t.status().as_str().to_owned(),
        version: t.version,
        to_move_seat: t.to_move().map(|s| i32::from(s.0)),
        to_move_player: t.to_move_player(),
        summary: JsonText::of(&summary),
        seats: summary.seats.clone(),
        created_at: t.created_at,
        updated_at: t.updated_at,
        deadline: t.deadline(),
    }
}

/// What players should hear about after a change from `before` to `after`: the player
/// whose turn it now is (when it was not theirs already), or everybody seated when the
/// game ended.
pub fn notices(before: Option<&Table>, after: &Table) -> Vec<PlayerNotice> {
    let status = after.status();
    let payload = |kind: &str| {
        JsonText::of(&NoticePayload {
            deadline: after.deadline(),
            game_id: after.id,
            result: &after.result,
            seat: after.to_move().map(|s| s.0),
            status: status.as_str(),
            kind,
            url: format!("/v1/games/{}", after.id),
            variant: after.variant,
            version: after.version,
        })
    };
    let base = |kind: &str, player: Uuid, payload: JsonText| PlayerNotice {
        player_id: player,
        game_id: after.id,
        version: after.version,
        kind: kind.to_owned(),
        payload,
    };
    let was_finished = before.is_some_and(|b| b.result.is_some());
    if after.result.is_some() && !was_finished {
        let mut players: Vec<Uuid> = after.seats.iter().filter_map(|s| s.player_id).collect();
        players.sort();
        players.dedup();
        let text = payload("game_finished");
        return players
            .into_iter()
            .map(|p| base("game_finished", p, text.clone()))
            .collect();
    }
    match after.to_move_player() {
        Some(p) if before.and_then(Table::to_move_player) != Some(p) => {
            vec![base("your_turn", p, payload("your_turn"))]
        }
        _ => Vec::new(),
    }
}

/// What a notice says (webhook body, stream data), serialised straight from the table.
/// Its members stay in alphabetical order, the order they had when the payload was a
/// `serde_json::Value`.
#[derive(Serialize)]
struct NoticePayload<'a> {
    deadline: Option<DateTime<Utc>>,
    game_id: Uuid,
    result: &'a Option<GameResult>,
    seat: Option<u8>,
    status: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    url: String,
    variant: &'a str,
    version: i64,
}

/// The SHA-256 of a bearer token, as stored.
pub fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// New events for one table, chained and applied as they are made.
struct Batch {
    table: Table,
    events: Vec<StoredEvent>,
    now: DateTime<Utc>,
    /// The secret server seed: dice and bots draw from it.
    seed: Vec<u8>,
}

impl Batch {
    fn push(&mut self, event: Event) -> Result<(), ApiError> {
        let stored = StoredEvent::new(
            self.table.id,
            self.table.version + 1,
            &event,
            self.now,
            &self.table.head_hash,
        );
        self.table
            .apply_event(&stored, event)
            .map_err(|e| match e {
                // A player's move the rules refuse (the batch is dropped: nothing is stored).
                crate::table::ReplayError::Engine { error, .. } => ApiError::from(error),
                other => {
                    ApiError::Internal(format!("an event the server made does not apply: {other}"))
                }
            })?;
        self.events.push(stored);
        Ok(())
    }

    /// Rolls every die the engine awaits (only once all seats are taken), then records
    /// the end of the game with the revealed seed.
    fn advance(&mut self) -> Result<(), ApiError> {
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
                    let seed = &self.seed;
                    let entropy = dice::bot_entropy(seed, self.table.version);
                    let seats = self.table.seats.len();
                    let i = bots::choose(kind, self.table.game.as_ref(), seat, seats, entropy)
                        .ok_or_else(|| ApiError::Internal("a bot has no legal move".into()))?;
                    let mv = self
                        .table
                        .game
                        .legal_moves()
                        .into_iter()
                        .nth(i)
                        .ok_or_else(|| ApiError::Internal("a bot chose no move".into()))?;
                    self.push(Event::MovePlayed { seat: seat.0, mv })?;
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

/// A seat in a create request: a player id, a bot, or `null` for an open seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum SeatRequest {
    /// A player's id.
    Player(Uuid),
    /// A seat the computer plays: `{"bot": "random"}` or `{"bot": "greedy"}`.
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
    /// One entry per seat: a player id, `{"bot": "random" | "greedy"}` for a seat the
    /// computer plays, or `null` for an open seat. The creator must be in at least one seat.
    pub seats: Vec<Option<SeatRequest>>,
    /// The clock: days each seat has for each move (1, 2, 3, 5, 7, 10 or 14); absent or
    /// `null` for none. A seat whose time runs out retires (in a two-seat game the other
    /// seat wins).
    #[serde(default)]
    pub days_per_move: Option<u32>,
    /// A seed the creator adds to the dice (for every seat the creator takes).
    #[serde(default)]
    pub client_seed: Option<String>,
}

fn check_client_seed(seed: &Option<String>) -> Result<(), ApiError> {
    match seed {
        Some(s) if s.len() > MAX_CLIENT_SEED => Err(ApiError::BadRequest(format!(
            "client_seed is {} bytes; at most {MAX_CLIENT_SEED} are allowed",
            s.len()
        ))),
        _ => Ok(()),
    }
}

impl Worp {
    pub fn new(store: Store, cache_size: usize, clock: Arc<dyn Clock>) -> Worp {
        Worp {
            store,
            cache: StateCache::new(cache_size),
            clock,
            live: Live::new(),
            keepalive: std::time::Duration::from_secs(15),
        }
    }

    fn now(&self) -> DateTime<Utc> {
        self.clock.now().trunc_subsecs(6)
    }

    /// Registers a player; returns the player and the token (shown only now).
    pub async fn create_player(&self, name: &str) -> Result<(Player, String), ApiError> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > MAX_NAME || name.chars().any(char::is_control)
        {
            return Err(ApiError::BadRequest(format!(
                "name must be 1 to {MAX_NAME} characters without control characters"
            )));
        }
        let secret = dice::new_server_seed()
            .map_err(|e| ApiError::Internal(format!("no randomness available: {e}")))?;
        let token = format!("worp_{}", hex::encode(secret));
        let player = Player {
            id: Uuid::new_v4(),
            name: name.to_owned(),
            token_hash: token_hash(&token),
        };
        self.store.create_player(&player, self.now()).await?;
        Ok((player, token))
    }

    /// The player a bearer token belongs to.
    pub async fn authenticate(&self, token: &str) -> Result<Player, ApiError> {
        let hash = token_hash(token);
        let player = match self.cache.player(&hash) {
            Some(p) => p,
            None => {
                let p = self
                    .store
                    .player_by_token_hash(&hash)
                    .await?
                    .ok_or_else(|| ApiError::Unauthorized("unknown token".into()))?;
                self.cache.put_player(&p);
                p
            }
        };
        // The lookup is by hash; compare once more in constant time.
        if subtle::ConstantTimeEq::ct_eq(player.token_hash.as_slice(), hash.as_slice()).into() {
            Ok(player)
        } else {
            Err(ApiError::Unauthorized("unknown token".into()))
        }
    }

    /// The newest state of a game.
    pub async fn load(&self, id: Uuid) -> Result<Arc<Table>, ApiError> {
        let cached = self.cache.newest(id);
        let after = cached.as_ref().map_or(0, |t| t.version);
        let mut events = self.store.events(id, after, 1000).await?;
        if events.is_empty() {
            // Nothing new since the cached state (the common case): no copy, no replay.
            return cached.ok_or_else(|| ApiError::NotFound(format!("no game {id}")));
        }
        let mut table = match cached {
            Some(t) => (*t).clone(),
            None => Table::from_events(&events[..1]).map_err(corrupt)?,
        };
        let mut skip = usize::from(after == 0);
        loop {
            for e in &events[skip..] {
                table.apply(e).map_err(corrupt)?;
            }
            if events.len() < 1000 {
                break;
            }
            events = self.store.events(id, table.version, 1000).await?;
            skip = 0;
            if events.is_empty() {
                break;
            }
        }
        let table = Arc::new(table);
        self.cache.put(table.clone());
        Ok(table)
    }

    /// The state of a game right after event `at`.
    pub async fn load_at(&self, id: Uuid, at: i64) -> Result<Arc<Table>, ApiError> {
        if let Some(t) = self.cache.get(id, at) {
            return Ok(t);
        }
        if at < 1 {
            return Err(ApiError::BadRequest("at must be 1 or more".into()));
        }
        let mut events = Vec::new();
        while (events.len() as i64) < at {
            let batch = self
                .store
                .events(
                    id,
                    events.len() as i64,
                    (at - events.len() as i64).min(1000),
                )
                .await?;
            if batch.is_empty() {
                break;
            }
            events.extend(batch);
        }
        if events.is_empty() {
            return Err(ApiError::NotFound(format!("no game {id}")));
        }
        if (events.len() as i64) < at {
            return Err(ApiError::NotFound(format!(
                "game {id} has only {} events",
                events.len()
            )));
        }
        let table = Arc::new(Table::from_events(&events).map_err(corrupt)?);
        self.cache.put(table.clone());
        Ok(table)
    }

    /// A batch of new events for `table`, with its secret seed.
    async fn batch(&self, table: &Table, now: DateTime<Utc>) -> Result<Batch, ApiError> {
        // The secret never changes once stored: cached after the first read.
        let seed = match self.cache.secret(table.id) {
            Some(s) => s,
            None => {
                let s = self.store.secret(table.id).await?.ok_or_else(|| {
                    ApiError::Internal(format!("game {} has no dice seed", table.id))
                })?;
                self.cache.put_secret(table.id, &s);
                s
            }
        };
        Ok(Batch {
            table: table.clone(),
            events: Vec::new(),
            now,
            seed,
        })
    }

    async fn commit(
        &self,
        before: Option<&Table>,
        batch: Batch,
        expected_version: i64,
        secret: Option<&[u8]>,
        idempotency: Option<(Uuid, &str)>,
    ) -> Result<Arc<Table>, ApiError> {
        let table = batch.table;
        let row = game_row(&table);
        let notices = notices(before, &table);
        // The answer is kept only for an Idempotency-Key (serialising it costs).
        let saved = idempotency.map(|_| SavedResponse {
            status: 200,
            body: serde_json::to_value(GameView::of(&table)).unwrap_or(Value::Null),
        });
        self.store
            .append(Append {
                game_id: table.id,
                expected_version,
                events: batch.events,
                row,
                secret: secret.map(<[u8]>::to_vec),
                idempotency: idempotency
                    .zip(saved)
                    .map(|((p, k), r)| (p, k.to_owned(), r)),
                notices: notices.clone(),
            })
            .await?;
        if let Some(s) = secret {
            self.cache.put_secret(table.id, s);
        }
        let table = Arc::new(table);
        self.cache.put(table.clone());
        self.live
            .publish(
                &self.store,
                Change {
                    origin: self.live.origin,
                    game_id: table.id,
                    version: table.version,
                    notices,
                },
            )
            .await;
        Ok(table)
    }

    /// Creates a game.
    pub async fn create_game(
        &self,
        creator: &Player,
        req: CreateGame,
    ) -> Result<Arc<Table>, ApiError> {
        let v = variant(&req.variant).map_err(ApiError::from)?;
        let count = u8::try_from(req.seats.len())
            .ok()
            .filter(|n| (v.min_seats..=v.max_seats).contains(n))
            .ok_or_else(|| {
                ApiError::BadRequest(format!(
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
        if let Some(d) = req.days_per_move {
            if !DAYS_PER_MOVE.contains(&d) {
                return Err(ApiError::BadRequest(format!(
                    "days_per_move must be one of {DAYS_PER_MOVE:?}, not {d}"
                )));
            }
        }
        if !players.contains(&Some(creator.id)) {
            return Err(ApiError::BadRequest(
                "the creator must take at least one seat".into(),
            ));
        }
        check_client_seed(&req.client_seed)?;
        for p in players.iter().flatten() {
            if *p != creator.id && !self.store.player_exists(*p).await? {
                return Err(ApiError::BadRequest(format!("no player {p}")));
            }
        }
        // Validates the options against the rules before anything is stored.
        let game = v.create(&req.options, count)?;
        let seed = dice::new_server_seed()
            .map_err(|e| ApiError::Internal(format!("no randomness available: {e}")))?;
        let id = Uuid::new_v4();
        let now = self.now();
        let created = Event::GameCreated {
            variant: v.name.to_owned(),
            options: game.options(),
            seats: players.clone(),
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
        };
        let first = StoredEvent::new(id, 1, &created, now, "");
        let table = Table::from_events(std::slice::from_ref(&first)).map_err(corrupt)?;
        let mut batch = Batch {
            table,
            events: vec![first],
            now,
            seed: seed.to_vec(),
        };
        batch.advance()?;
        self.commit(None, batch, 0, Some(&seed), None).await
    }

    /// Takes an open seat.
    pub async fn take_seat(
        &self,
        player: &Player,
        id: Uuid,
        seat: u8,
        client_seed: Option<String>,
    ) -> Result<Arc<Table>, ApiError> {
        check_client_seed(&client_seed)?;
        let table = self.load(id).await?;
        let info: &SeatInfo = table
            .seats
            .get(usize::from(seat))
            .ok_or_else(|| ApiError::NotFound(format!("game {id} has no seat {seat}")))?;
        if table.status() != Status::Waiting || !info.is_open() {
            return Err(ApiError::Conflict(format!("seat {seat} is already taken")));
        }
        let expected = table.version;
        let mut batch = self.batch(&table, self.now()).await?;
        batch.push(Event::SeatTaken {
            seat,
            player_id: player.id,
            client_seed,
        })?;
        batch.advance()?;
        self.commit(Some(&table), batch, expected, None, None).await
    }

    /// Plays a move for the caller's seat.
    pub async fn play(
        &self,
        player: &Player,
        id: Uuid,
        mv: Value,
        if_match: Option<i64>,
        idempotency_key: Option<&str>,
    ) -> Result<Arc<Table>, ApiError> {
        // The newest cached state is trusted without reading the log first: if another
        // process appended since, the append's version check refuses this one, and so
        // does any refusal judged on a state that may be old. Either way the move is
        // judged once more on the state read from the log, and that answer stands.
        let cached = self.cache.newest(id);
        let mut refused = None;
        if let Some(cached) = &cached {
            match self
                .play_on(cached, player, mv.clone(), if_match, idempotency_key)
                .await
            {
                Ok(t) => return Ok(t),
                Err(e @ (ApiError::Unavailable(_) | ApiError::Internal(_))) => return Err(e),
                Err(e) => refused = Some((cached.version, e)),
            }
        }
        let table = self.load(id).await?;
        match refused {
            // The log has not moved on: judged on this very state already.
            Some((version, e)) if version == table.version => Err(e),
            _ => {
                self.play_on(&table, player, mv, if_match, idempotency_key)
                    .await
            }
        }
    }

    async fn play_on(
        &self,
        table: &Table,
        player: &Player,
        mv: Value,
        if_match: Option<i64>,
        idempotency_key: Option<&str>,
    ) -> Result<Arc<Table>, ApiError> {
        if let Some(v) = if_match {
            if v != table.version {
                return Err(ApiError::PreconditionFailed(format!(
                    "the game is at version {}, not {v}",
                    table.version
                )));
            }
        }
        let seat = self.seat_to_act(table, player)?;
        let expected = table.version;
        let mut batch = self.batch(table, self.now()).await?;
        batch.push(Event::MovePlayed { seat: seat.0, mv })?;
        batch.advance()?;
        self.commit(
            Some(table),
            batch,
            expected,
            None,
            idempotency_key.map(|k| (player.id, k)),
        )
        .await
    }

    fn seat_to_act(&self, table: &Table, player: &Player) -> Result<Seat, ApiError> {
        let mine = table.seats_of(player.id);
        if mine.is_empty() {
            return Err(ApiError::Forbidden("you have no seat in this game".into()));
        }
        if table.status() != Status::Active {
            return Err(ApiError::Conflict(format!(
                "the game is {}",
                table.status().as_str()
            )));
        }
        match table.to_move() {
            Some(seat) if mine.contains(&seat) => Ok(seat),
            _ => Err(ApiError::Conflict("it is not your turn".into())),
        }
    }

    /// A saved answer for a repeated `Idempotency-Key`.
    pub async fn saved_response(
        &self,
        player: &Player,
        key: &str,
    ) -> Result<Option<SavedResponse>, ApiError> {
        Ok(self.store.saved_response(player.id, key).await?)
    }

    /// The caller gives up `seat` (or their only seat).
    pub async fn resign(
        &self,
        player: &Player,
        id: Uuid,
        seat: Option<u8>,
    ) -> Result<Arc<Table>, ApiError> {
        let table = self.load(id).await?;
        let mine: Vec<Seat> = table
            .seats_of(player.id)
            .into_iter()
            .filter(|s| !table.seats[s.index()].retired)
            .collect();
        if table.seats_of(player.id).is_empty() {
            return Err(ApiError::Forbidden("you have no seat in this game".into()));
        }
        if table.status() != Status::Active {
            return Err(ApiError::Conflict(format!(
                "the game is {}",
                table.status().as_str()
            )));
        }
        let seat = match (seat, mine.as_slice()) {
            (Some(s), _) if mine.contains(&Seat(s)) => Seat(s),
            (Some(s), _) => {
                return Err(ApiError::Forbidden(format!(
                    "seat {s} is not yours to resign"
                )))
            }
            (None, [only]) => *only,
            (None, []) => return Err(ApiError::Conflict("you have already resigned".into())),
            (None, _) => {
                return Err(ApiError::BadRequest(
                    "you hold several seats: say which one resigns".into(),
                ))
            }
        };
        let expected = table.version;
        let mut batch = self.batch(&table, self.now()).await?;
        batch.push(Event::SeatRetired {
            seat: seat.0,
            reason: RetireReason::Resigned,
        })?;
        batch.advance()?;
        self.commit(Some(&table), batch, expected, None, None).await
    }

    /// Records a time-out for the seat to move of game `id` if its deadline has passed
    /// by the clock. Returns whether it did (another process may have been first: then
    /// the expected-version append fails and this is a no-op).
    pub async fn time_out(&self, id: Uuid) -> Result<bool, ApiError> {
        let table = self.load(id).await?;
        let now = self.now();
        let (Some(deadline), Some(seat)) = (table.deadline(), table.to_move()) else {
            return Ok(false);
        };
        if deadline > now {
            return Ok(false);
        }
        let expected = table.version;
        let mut batch = self.batch(&table, now).await?;
        batch.push(Event::SeatRetired {
            seat: seat.0,
            reason: RetireReason::TimedOut,
        })?;
        batch.advance()?;
        match self.commit(Some(&table), batch, expected, None, None).await {
            Ok(_) => Ok(true),
            Err(ApiError::Conflict(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Times out every game whose deadline has passed; returns how many.
    pub async fn sweep_deadlines(&self) -> Result<usize, ApiError> {
        let mut n = 0;
        for id in self.store.overdue_games(self.now(), 500).await? {
            if self.time_out(id).await? {
                n += 1;
            }
        }
        Ok(n)
    }

    /// Lists games.
    pub async fn list(&self, f: &GameFilter) -> Result<Vec<Value>, ApiError> {
        Ok(self.store.list_games(f).await?)
    }

    /// All events of a game, in order.
    pub async fn all_events(&self, id: Uuid) -> Result<Vec<StoredEvent>, ApiError> {
        let mut events = Vec::new();
        loop {
            let batch = self.store.events(id, events.len() as i64, 1000).await?;
            if batch.is_empty() {
                break;
            }
            events.extend(batch);
        }
        Ok(events)
    }

    /// The export bundle of a game (and its table).
    pub async fn export(&self, id: Uuid) -> Result<(crate::export::Export, Table), ApiError> {
        let events = self.all_events(id).await?;
        if events.is_empty() {
            return Err(ApiError::NotFound(format!("no game {id}")));
        }
        let table = Table::from_events(&events).map_err(corrupt)?;
        Ok((crate::export::Export::of(&table, events), table))
    }

    /// Rebuilds the read models from the event log; returns how many games.
    pub async fn rebuild(&self) -> Result<usize, ApiError> {
        let ids = self.store.game_ids().await?;
        let mut rows = Vec::with_capacity(ids.len());
        for id in ids {
            let events = self.all_events(id).await?;
            let table = Table::from_events(&events).map_err(corrupt)?;
            rows.push(game_row(&table));
        }
        self.store.replace_read_models(&rows).await?;
        Ok(rows.len())
    }
}

fn corrupt(e: crate::table::ReplayError) -> ApiError {
    tracing::error!("a stored game does not replay: {e}");
    ApiError::Internal(format!("the stored game does not replay: {e}"))
}
