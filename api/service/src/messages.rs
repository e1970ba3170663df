//! Messages in a game: a seated player writes a short message, stored as a
//! `message_posted` event in the game's log (so exports and audits carry it), heard by
//! the other players as a `message` notice. Spectators read messages only where the
//! creator made the chat public; from everybody else the text is withheld (the chain
//! still verifies: it covers the text's hash, not the text).

use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::refusal::Refusal;
use super::text;
use super::worp::Worp;
use worp_domain::events::{message_commitment, Event, StoredEvent};
use worp_domain::table::Table;
use worp_store::Player;

/// The longest message, in characters.
pub const MAX_MESSAGE_CHARS: usize = 500;

/// A message as the API shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Message {
    /// The sequence number of its event in the game's log.
    pub seq: i64,
    pub seat: u8,
    /// The player of that seat.
    pub player_id: Option<Uuid>,
    pub text: String,
    #[serde(serialize_with = "worp_domain::clock::rfc3339")]
    pub recorded_at: DateTime<Utc>,
}

/// Whether `reader` may read the messages of `table`: its players always, anyone when
/// the chat is public.
pub fn may_read_messages(table: &Table, reader: Option<Uuid>) -> bool {
    table.public_chat || reader.is_some_and(|r| !table.seats_of(r).is_empty())
}

/// Takes the text and its salt out of every message event of `events` (what a reader who may not
/// read the messages is given).
pub fn withhold_messages(events: &mut [StoredEvent]) {
    for e in events.iter_mut().filter(|e| e.kind == "message_posted") {
        if let Some(m) = e.payload.as_object_mut() {
            m.remove("text");
            m.remove("salt");
        }
    }
}

impl Worp {
    /// Writes `text` as a message of the caller's seat in game `id` (of `seat`, when
    /// they hold several).
    pub async fn post_message(
        &self,
        player: &Player,
        id: Uuid,
        text: &str,
        seat: Option<u8>,
    ) -> Result<(Arc<Table>, Message), Refusal> {
        let chars = text.chars().count();
        if chars == 0 || chars > MAX_MESSAGE_CHARS || text.trim().is_empty() {
            return Err(Refusal::Invalid(format!(
                "a message is 1 to {MAX_MESSAGE_CHARS} characters, not only spaces ({chars} given)"
            )));
        }
        text::check_plain("text", text)?;
        // Nothing that shows other than it reads: bidi controls, line separators, or
        // nothing visible at all.
        text::check_shown_text("text", text)?;
        let table = self.load(id).await?;
        let mine = table.seats_of(player.id);
        let Some(first) = mine.first() else {
            return Err(Refusal::NotYours(
                "only the game's players write messages".into(),
            ));
        };
        let seat = match seat {
            None => first.0,
            Some(s) if mine.iter().any(|m| m.0 == s) => s,
            Some(s) => return Err(Refusal::NotYours(format!("seat {s} is not yours"))),
        };
        self.message_limit.allow(player.id, Instant::now())?;
        let salt = hex::encode(rand::random::<[u8; 16]>());
        let event = Event::MessagePosted {
            seat,
            text: Some(text.to_owned()),
            text_sha256: message_commitment(Some(&salt), text).unwrap_or_default(),
            salt: Some(salt),
        };
        // A message does not depend on the game's state: when a move lands first, it is
        // written after that move.
        let mut table = table;
        for _ in 0..5 {
            match self.change(&table, event.clone(), self.now(), None).await {
                Err(Refusal::Conflict(_) | Refusal::Stale(_)) => table = self.load(id).await?,
                Ok(after) => {
                    let message = Message {
                        seq: after.version,
                        seat,
                        player_id: Some(player.id),
                        text: text.to_owned(),
                        recorded_at: after.updated_at,
                    };
                    return Ok((after, message));
                }
                Err(e) => return Err(e),
            }
        }
        Err(Refusal::Conflict(
            "the game kept changing; write the message again".into(),
        ))
    }

    /// A page of game `id`'s events as `reader` may see them (message texts withheld
    /// from spectators unless the chat is public).
    pub async fn readable_events(
        &self,
        id: Uuid,
        after: i64,
        limit: i64,
        reader: Option<Uuid>,
    ) -> Result<Vec<StoredEvent>, Refusal> {
        let mut events = self.events_after(id, after, limit).await?;
        if events.iter().any(|e| e.kind == "message_posted")
            && !may_read_messages(&*self.load(id).await?, reader)
        {
            withhold_messages(&mut events);
        }
        Ok(events)
    }

    /// The messages of game `id` that `reader` may read, oldest first: at most `limit`
    /// of those after event `after`. Read through their own index, not the whole log.
    pub async fn messages(
        &self,
        id: Uuid,
        reader: Option<Uuid>,
        after: i64,
        limit: i64,
    ) -> Result<Vec<Message>, Refusal> {
        let table = self.load(id).await?;
        if !may_read_messages(&table, reader) {
            return Err(Refusal::NotYours(
                "the chat of this game is for its players".into(),
            ));
        }
        let events = self.store.messages(id, after, limit).await?;
        Ok(events
            .iter()
            .filter_map(|e| match e.event().ok()? {
                Event::MessagePosted { seat, text, .. } => Some(Message {
                    seq: e.seq,
                    seat,
                    player_id: table.seats.get(usize::from(seat)).and_then(|s| s.player_id),
                    text: text.unwrap_or_default(),
                    recorded_at: e.recorded_at,
                }),
                _ => None,
            })
            .collect())
    }
}
