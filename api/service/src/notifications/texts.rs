//! What a notice says, written when it is sent from the game as it is then: a notice
//! that no longer stands (the turn was played, the invitation answered, the game
//! deleted) says nothing. Other players appear by their public names only, and links
//! open the web client's page of the game, which asks to sign in if needed: no link
//! carries a credential.

use uuid::Uuid;
use worp_domain::table::Table;

use super::outbox::Item;
use crate::refusal::Refusal;
use crate::worp::Worp;

/// A notice in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Said {
    /// One line: a push's title, a mail's subject, a line of the digest.
    pub line: String,
    /// The game's page in the web client.
    pub url: String,
    pub kind: String,
    pub game_id: Uuid,
}

/// The names of `names` joined as English lists them.
fn listed(names: &[String]) -> String {
    match names {
        [] => "nobody".into(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn hours(minutes: i64) -> String {
    match minutes {
        m if m >= 120 => format!("{} hours", m / 60),
        m if m >= 60 => "1 hour".into(),
        m => format!("{m} minutes"),
    }
}

impl Worp {
    /// The notice `item` to `player` in words, or `None` if it no longer stands.
    pub(crate) async fn say(&self, player: Uuid, item: &Item) -> Result<Option<Said>, Refusal> {
        let table = match self.load(item.game_id).await {
            Ok(t) => t,
            Err(Refusal::NotFound(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        if !stands(&table, player, item) {
            return Ok(None);
        }
        self.learn_table_names(&table).await?;
        let name = |p: Option<Uuid>| -> String {
            p.and_then(|p| self.names.get(p))
                .unwrap_or_else(|| "a player".into())
        };
        let others: Vec<String> = table
            .seats
            .iter()
            .filter(|s| s.player_id != Some(player))
            .map(|s| match (s.player_id, s.bot) {
                (Some(p), _) => name(Some(p)),
                (None, Some(_)) => "the computer".into(),
                (None, None) => "an open seat".into(),
            })
            .collect();
        let mut others_unique = others.clone();
        others_unique.dedup();
        let against = listed(&others_unique);
        let game = worp_engine::variant(table.variant).map_or(table.variant, |v| v.title);
        let seat_player = |seat: Option<u8>| {
            seat.and_then(|s| table.seats.get(usize::from(s)))
                .and_then(|s| s.player_id)
        };
        let line = match item.kind.as_str() {
            "your_turn" if table.game.question() == Some("double") => {
                format!("{against} doubles against you ({game}): take or pass")
            }
            "your_turn" => format!("Your turn against {against} ({game})"),
            "invited" => format!(
                "{} invites you to a game of {game}",
                name(Some(table.created_by))
            ),
            "invitation_declined" => {
                format!("An invitation to your game of {game} was declined")
            }
            "game_finished" => format!("Your game of {game} against {against} has finished"),
            "round_started" => format!(
                "Your game of round {} against {against} ({game}) started",
                table.tournament.map_or(0, |t| t.round)
            ),
            "message" => format!(
                "{} wrote in your game of {game}",
                name(seat_player(item.seat))
            ),
            "clock_reminder" => format!(
                "{} left for your move against {against} ({game})",
                hours(item.minutes_left.unwrap_or_default())
            ),
            other => format!("News in your game of {game} ({other})"),
        };
        Ok(Some(Said {
            line,
            url: format!(
                "{}/#/game/{}",
                self.notifier.settings.public_url.trim_end_matches('/'),
                item.game_id
            ),
            kind: item.kind.clone(),
            game_id: item.game_id,
        }))
    }
}

/// Whether what `item` tells `player` is still so. A player on vacation in the game
/// hears of no turn there: their clock is paused, nothing presses.
fn stands(table: &Table, player: Uuid, item: &Item) -> bool {
    match item.kind.as_str() {
        "your_turn" | "clock_reminder" => {
            table.to_move_player() == Some(player) && !table.clock_paused()
        }
        "invited" => table.seats.iter().any(|s| s.invited == Some(player)),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::{hours, listed};

    #[test]
    fn names_are_listed_as_english_does() {
        assert_eq!(listed(&["Bob".into()]), "Bob");
        assert_eq!(listed(&["Bob".into(), "Carol".into()]), "Bob and Carol");
        assert_eq!(
            listed(&["Bob".into(), "Carol".into(), "Dan".into()]),
            "Bob, Carol and Dan"
        );
    }

    #[test]
    fn time_left_is_said_in_hours_or_minutes() {
        assert_eq!(hours(24 * 60), "24 hours");
        assert_eq!(hours(60), "1 hour");
        assert_eq!(hours(30), "30 minutes");
    }
}
