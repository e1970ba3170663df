//! The GNU Backgammon Match ID: a 12-character text naming the state of a match beside
//! the Position ID (the cube, the score, whose turn, the dice).
//!
//! 66 bits, least significant first, in nine bytes written in base64 without padding:
//! the cube's value as log2 (4 bits), its owner (2: player 0, 1, or 3 centred), the player
//! on roll (1), the Crawford game (1), the game state (3: 1 playing, 2 over), the player
//! who must decide now (1), a double offered (1), a resignation offered (2: 1 single, 2
//! gammon, 3 backgammon), the two dice, higher first (3 each; 0 before the roll), the
//! match length (15; 0 for a single game), each player's score (15 each), and whether
//! the Jacoby rule is off (1: set in every match). Player 0 is seat 0.

use super::position_id::{decode, encode};

/// What a Match ID says, in GNU Backgammon's terms (player 0 = White = seat 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MatchKey {
    /// The cube's value: 1, 2, 4, … 64.
    pub cube: u8,
    /// The player owning the cube; `None` while centred.
    pub owner: Option<u8>,
    /// The player whose turn it is (who rolls or moves).
    pub on_roll: u8,
    /// The player who must decide now (the other one while a double or a resignation
    /// awaits his answer).
    pub turn: u8,
    /// Whether this is the Crawford game.
    pub crawford: bool,
    /// 1 while the game is played, 2 when it is over.
    pub game_state: u8,
    /// Whether a double awaits an answer.
    pub doubled: bool,
    /// A resignation awaiting an answer: 0 none, 1 single, 2 gammon, 3 backgammon.
    pub resigned: u8,
    /// The dice of the roll being played; `[0, 0]` before the roll.
    pub dice: [u8; 2],
    /// Points to win the match; 0 for a single game.
    pub match_length: u16,
    /// Each player's score.
    pub score: [u16; 2],
    /// Whether the Jacoby rule applies (a single game with the cube and `jacoby`).
    pub jacoby: bool,
}

/// The Match ID of `key`.
pub fn match_id(key: &MatchKey) -> String {
    let mut bits = Bits::default();
    bits.put(key.cube.max(1).trailing_zeros(), 4);
    bits.put(key.owner.map_or(3, u32::from), 2);
    bits.put(u32::from(key.on_roll), 1);
    bits.put(u32::from(key.crawford), 1);
    bits.put(u32::from(key.game_state), 3);
    bits.put(u32::from(key.turn), 1);
    bits.put(u32::from(key.doubled), 1);
    bits.put(u32::from(key.resigned), 2);
    let (high, low) = (key.dice[0].max(key.dice[1]), key.dice[0].min(key.dice[1]));
    bits.put(u32::from(high), 3);
    bits.put(u32::from(low), 3);
    bits.put(u32::from(key.match_length), 15);
    bits.put(u32::from(key.score[0]), 15);
    bits.put(u32::from(key.score[1]), 15);
    bits.put(u32::from(!key.jacoby), 1);
    encode(&bits.bytes)
}

/// What the Match ID `id` says; `None` unless it is 12 base64 characters whose fields
/// hold values a Match ID can (a cube owner 0, 1 or 3; dice 0..=6; a game state 0..=4).
/// The inverse of [`match_id`].
pub fn parse_match_id(id: &str) -> Option<MatchKey> {
    if id.len() != 12 {
        return None;
    }
    let bytes = decode(id)?;
    let mut at = 0usize;
    let mut take = |width: usize| -> u32 {
        let mut value = 0u32;
        for i in 0..width {
            let bit = bytes.get(at / 8).map_or(0, |b| (b >> (at % 8)) & 1);
            value |= u32::from(bit) << i;
            at += 1;
        }
        value
    };
    let cube_log2 = take(4);
    let owner = take(2);
    let on_roll = take(1) as u8;
    let crawford = take(1) == 1;
    let game_state = take(3) as u8;
    let turn = take(1) as u8;
    let doubled = take(1) == 1;
    let resigned = take(2) as u8;
    let high = take(3) as u8;
    let low = take(3) as u8;
    let match_length = take(15) as u16;
    let score = [take(15) as u16, take(15) as u16];
    let jacoby = take(1) == 0;
    if cube_log2 > 6 || owner == 2 || high > 6 || low > 6 || game_state > 4 {
        return None;
    }
    Some(MatchKey {
        cube: 1 << cube_log2,
        owner: (owner != 3).then_some(owner as u8),
        on_roll,
        turn,
        crawford,
        game_state,
        doubled,
        resigned,
        dice: [high, low],
        match_length,
        score,
        jacoby,
    })
}

/// Nine bytes filled bit by bit, least significant bit first.
#[derive(Default)]
struct Bits {
    bytes: [u8; 9],
    at: usize,
}

impl Bits {
    fn put(&mut self, value: u32, width: usize) {
        for i in 0..width {
            if value >> i & 1 == 1 {
                if let Some(b) = self.bytes.get_mut(self.at / 8) {
                    *b |= 1 << (self.at % 8);
                }
            }
            self.at += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_match_id_of_a_money_game_before_the_opening_roll_is_gnubgs() {
        // GNU Backgammon's example: a money game, cube centred, player 1 on roll with 5-2.
        let key = MatchKey {
            cube: 1,
            owner: None,
            on_roll: 1,
            turn: 1,
            game_state: 1,
            dice: [5, 2],
            jacoby: true,
            ..MatchKey::default()
        };
        assert_eq!(match_id(&key), "cIkKAAAAAAAA");
    }

    #[test]
    fn a_match_id_parsed_says_what_was_written() {
        let key = MatchKey {
            cube: 8,
            owner: Some(1),
            on_roll: 0,
            turn: 1,
            crawford: true,
            game_state: 4,
            doubled: true,
            resigned: 2,
            dice: [6, 3],
            match_length: 25,
            score: [24, 7],
            jacoby: false,
        };
        assert_eq!(parse_match_id(&match_id(&key)), Some(key));
        assert_eq!(
            parse_match_id("cIkKAAAAAAAA").map(|k| (k.on_roll, k.dice, k.jacoby)),
            Some((1, [5, 2], true))
        );
        assert_eq!(parse_match_id("cIkKAAAAAAA"), None);
        assert_eq!(parse_match_id("cIkKAAAAAAA!"), None);
    }
}
