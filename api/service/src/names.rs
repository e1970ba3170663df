//! Players' public names, shown beside their ids in games, listings and profiles, and
//! their public profiles.
//!
//! A name is checked and normalised by the PRECIS Nickname profile (RFC 8266: no
//! control or invisible characters, width and compatibility forms mapped by NFKC, spaces
//! trimmed and collapsed), must show something and hold no bidirectional formatting
//! ([`text::check_shown_text`]), and must not look like another player's name: its
//! *key* ([`name_key`]: case-folded, without marks or invisible characters, reduced to
//! Unicode's confusable skeleton, UTS #39) is unique among players (the `name_keys`
//! table's primary key). "Alice", "аlice" (Cyrillic а), "ａｌｉｃｅ", "alıce" and
//! "alíce" all have the key of "alice".

use chrono::{DateTime, Utc};
use precis_profiles::precis_core::profile::Profile;
use precis_profiles::Nickname;
use serde::Serialize;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;
use utoipa::ToSchema;
use uuid::Uuid;

pub use super::name_book::NameBook;
use super::read_model::GameSummary;
use super::refusal::Refusal;
use super::text;
use super::worp::Worp;
use worp_domain::ratings::Standing;
use worp_domain::table::Table;

/// The longest player name accepted, in characters (after normalisation).
pub const MAX_NAME: usize = 64;

/// A name as it is registered: normalised, and its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedName {
    /// The name as shown (PRECIS Nickname enforced: NFKC, spaces trimmed and collapsed).
    pub name: String,
    /// What must differ from every other player's ([`name_key`]).
    pub key: String,
}

/// The name a player who deleted their account is shown by; nobody registers it.
pub const DELETED_NAME: &str = "Deleted player";

/// The key of `name`: two names with one key look alike and cannot both be registered.
/// Compatibility forms are mapped (NFKC: fullwidth letters become ASCII), case is
/// folded, marks and invisible characters are dropped ("alíce", "alice\u{200B}"), and
/// each character is replaced by its prototype in Unicode's confusables (UTS #39
/// skeleton: Cyrillic "а" and dotless "ı" become "a" and "i"), lower-cased once more.
pub fn name_key(name: &str) -> String {
    let folded: String = name
        .nfkc()
        .flat_map(char::to_lowercase)
        .nfd()
        .filter(|&c| !is_combining_mark(c) && !text::is_invisible(c))
        .collect();
    unicode_security::skeleton(&folded)
        .flat_map(char::to_lowercase)
        .filter(|&c| !is_combining_mark(c) && !text::is_invisible(c))
        .collect()
}

/// `raw` checked as a new player's name, normalised, with its key.
pub fn checked_name(raw: &str) -> Result<CheckedName, Refusal> {
    text::check_plain("name", raw)?;
    text::check_shown_text("name", raw)?;
    let name = Nickname::new()
        .enforce(raw)
        .map_err(|e| {
            Refusal::Invalid(format!(
                "name is not a nickname RFC 8266 allows ({e}): letters, digits, symbols, \
                 punctuation and spaces, nothing invisible"
            ))
        })?
        .into_owned();
    text::check_shown_text("name", &name)?;
    if name.chars().count() > MAX_NAME {
        return Err(Refusal::Invalid(format!(
            "name must be 1 to {MAX_NAME} characters"
        )));
    }
    let key = name_key(&name);
    if key.is_empty() {
        return Err(Refusal::Invalid(
            "name must contain a letter, digit or symbol".into(),
        ));
    }
    if key == name_key(DELETED_NAME) {
        return Err(Refusal::Conflict(
            "that name is what the server shows for a deleted account; choose another".into(),
        ));
    }
    Ok(CheckedName { name, key })
}

/// A player whose name has no key: it looks like an earlier player's name (registered
/// before names were compared), or shows nothing. They keep their name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameCollision {
    pub player: Uuid,
    pub name: String,
    /// The player who holds the key, if any (`None`: the name shows nothing).
    pub holder: Option<(Uuid, String)>,
}

/// What anyone may see of a player.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlayerProfile {
    pub id: Uuid,
    pub name: String,
    /// When the player registered.
    pub joined: DateTime<Utc>,
    /// Per variant played rated: the rating, its deviation, games played, won, lost
    /// and drawn.
    pub ratings: Vec<VariantStanding>,
    /// The player's newest finished games.
    pub recent_games: Vec<GameSummary>,
    /// While the player is on vacation: when it ends at the latest (their clocks are
    /// paused until then).
    #[serde(serialize_with = "worp_domain::clock::rfc3339_option")]
    pub vacation_until: Option<DateTime<Utc>>,
}

/// A player's standing in one variant.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct VariantStanding {
    pub variant: String,
    #[serde(flatten)]
    pub standing: Standing,
}

impl Worp {
    /// Gives every player without a name key theirs, oldest first, where nobody holds it
    /// yet (players registered before keys were kept); returns those left without one,
    /// whose names look like an earlier player's. Nobody is renamed: they keep their
    /// names and tokens. Run as the server starts and by `worp rebuild`.
    pub async fn settle_name_keys(&self) -> Result<Vec<NameCollision>, Refusal> {
        let mut collisions = Vec::new();
        for (player, name) in self.store.players_without_name_key().await? {
            let key = name_key(&name);
            if !key.is_empty() && self.store.add_name_key(&key, player).await? {
                continue;
            }
            let holder = if key.is_empty() {
                None
            } else {
                self.store.name_key_holder(&key).await?
            };
            if holder.as_ref().is_some_and(|(id, _)| *id == player) {
                continue; // Keyed meanwhile by another process settling at once.
            }
            collisions.push(NameCollision {
                player,
                name,
                holder,
            });
        }
        Ok(collisions)
    }

    /// Learns the names of `players` not known yet (unknown ids are skipped), all of
    /// them in one read of the store.
    pub async fn learn_names(&self, players: Vec<Uuid>) -> Result<(), Refusal> {
        let mut unknown: Vec<Uuid> = players
            .into_iter()
            .filter(|&id| self.names.get(id).is_none())
            .collect();
        if unknown.is_empty() {
            return Ok(());
        }
        unknown.sort_unstable();
        unknown.dedup();
        // Boxed: a read that is rarely needed would otherwise widen the future of every
        // change that asks for names.
        for (id, name) in Box::pin(self.store.player_names(&unknown)).await? {
            self.names.put(id, name);
        }
        Ok(())
    }

    /// Learns the names of the players seated in, or invited to, `table`.
    pub async fn learn_table_names(&self, table: &Table) -> Result<(), Refusal> {
        let players = table
            .seats
            .iter()
            .flat_map(|s| s.player_id.into_iter().chain(s.invited))
            .collect();
        self.learn_names(players).await
    }

    /// Fills in the names of the players of each game of a listing.
    pub async fn name_seats(&self, games: &mut [GameSummary]) -> Result<(), Refusal> {
        let players: Vec<Uuid> = games
            .iter()
            .flat_map(|g| g.seats.iter().chain(&g.invited).flatten().copied())
            .collect();
        self.learn_names(players).await?;
        for g in games {
            g.names = g
                .seats
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let p = p.or_else(|| g.invited.get(i).copied().flatten());
                    p.and_then(|p| self.names.get(p))
                })
                .collect();
        }
        Ok(())
    }

    /// The public profile of player `id`.
    pub async fn profile(&self, id: Uuid) -> Result<PlayerProfile, Refusal> {
        if self.is_deleted(id).await? {
            return Err(Refusal::NotFound(format!(
                "player {id} deleted their account"
            )));
        }
        let (name, joined) = self
            .store
            .player_profile(id)
            .await?
            .ok_or_else(|| Refusal::NotFound(format!("no player {id}")))?;
        let ratings = self
            .rating_book()
            .await?
            .standings_of(id)
            .into_iter()
            .map(|(variant, standing)| VariantStanding { variant, standing })
            .collect();
        let mut recent_games: Vec<GameSummary> = self
            .list(&worp_store::GameFilter {
                player: Some(id),
                status: Some("finished".into()),
                to_move_player: None,
                limit: 10,
                offset: 0,
                after: None,
            })
            .await?
            .into_iter()
            .map(|(game, _)| game)
            .collect();
        self.name_seats(&mut recent_games).await?;
        let vacation_until = self.store.current_vacation(id).await?.map(|v| v.until);
        Ok(PlayerProfile {
            id,
            name,
            joined,
            ratings,
            recent_games,
            vacation_until,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_of_alice_share_its_key() {
        let alice = name_key("alice");
        assert_eq!(alice, "alice");
        let look_alikes = [
            "Alice",
            "ALICE",
            "\u{0430}lice",                             // Cyrillic а
            "\u{FF41}\u{FF4C}\u{FF49}\u{FF43}\u{FF45}", // fullwidth
            "al\u{0131}ce",                             // dotless ı
            "ali\u{0301}ce",                            // a combining acute accent
            "al\u{00ED}ce",                             // precomposed í
            "alice\u{200B}",                            // a trailing zero-width space
        ];
        for n in look_alikes {
            assert_eq!(name_key(n), alice, "{n:?}");
        }
        assert_ne!(name_key("alicia"), alice);
        assert_ne!(name_key("bob"), alice);
    }

    #[test]
    fn names_are_normalised_by_the_nickname_profile() {
        let n = checked_name("  Guybrush    Threepwood ").expect("a nickname");
        assert_eq!(n.name, "Guybrush Threepwood");
        let n = checked_name("\u{FF41}\u{FF4C}\u{FF49}\u{FF43}\u{FF45}").expect("fullwidth");
        assert_eq!(n.name, "alice");
        assert_eq!(
            checked_name("ali\u{0301}ce").expect("nfc").name,
            "al\u{00ED}ce"
        );
        for ok in ["bob", "Zoë", "José María", "李小龍", "Ørjan", "d20 ✓"] {
            assert!(checked_name(ok).is_ok(), "{ok:?}");
        }
    }

    #[test]
    fn names_that_show_nothing_or_lie_are_refused() {
        let refused = [
            "",
            "   ",
            "\u{200B}",
            "\u{FEFF}",
            "\u{3164}",
            "\u{2800}\u{2800}",
            "\u{115F}",
            "\u{1160}",
            "\u{FFA0}",
            "\u{200B}\u{FEFF}\u{3164}\u{2800}",
            "\u{202E}ecila",
            "a\u{202A}b",
            "a\u{2066}b\u{2069}",
            "a\u{200E}b",
            "a\u{200F}b",
            "a\u{061C}b",
            "a\u{2028}b",
            "a\u{2029}b",
            "alice\u{200B}",
            "tab\tname",
            "line\nname",
        ];
        for n in refused {
            assert!(
                matches!(checked_name(n), Err(Refusal::Invalid(_))),
                "{n:?}: {:?}",
                checked_name(n)
            );
        }
        assert!(checked_name(&"x".repeat(MAX_NAME)).is_ok());
        assert!(checked_name(&"x".repeat(MAX_NAME + 1)).is_err());
    }
}
