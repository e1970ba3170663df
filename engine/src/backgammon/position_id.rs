//! The GNU Backgammon Position ID: a 14-character text naming a position.
//!
//! For each player (first the opponent of the player on roll, then the player on roll),
//! for each of his points from his ace point to his 24-point and then his bar: as many
//! 1-bits as he has checkers there, then a 0-bit. The bits (at most 80) fill ten bytes,
//! least significant bit first, which are written in base64 without the `==` padding.

use super::{Point, Position, Side};

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The Position ID of `pos` with `on_roll` the player on roll (to move).
pub fn position_id(pos: &Position, on_roll: Side) -> String {
    let mut key = [0u8; 10];
    let mut bit = 0usize;
    for side in [on_roll.opponent(), on_roll] {
        for distance in 1..=25u8 {
            let n = match Point::at_distance(side, distance) {
                Some(p) => pos.checkers_on(p, side),
                None => pos.bar.get(side),
            };
            for _ in 0..n {
                if let Some(byte) = key.get_mut(bit / 8) {
                    *byte |= 1 << (bit % 8);
                }
                bit += 1;
            }
            bit += 1;
        }
    }
    encode(&key)
}

/// Base64 of key bytes, without padding (14 characters for the ten bytes of a Position
/// ID, 12 for the nine of a Match ID).
pub(super) fn encode(key: &[u8]) -> String {
    let mut out = String::with_capacity(key.len().div_ceil(3) * 4);
    let mut push = |v: u32| out.push(char::from(BASE64[(v & 63) as usize]));
    for chunk in key.chunks(3) {
        let b = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let v = (b(0) << 16) | (b(1) << 8) | b(2);
        push(v >> 18);
        push(v >> 12);
        if chunk.len() > 1 {
            push(v >> 6);
        }
        if chunk.len() > 2 {
            push(v);
        }
    }
    out
}

/// The key bytes of a base64 text without padding, as [`encode`] writes them (bits left
/// over past the last whole byte are dropped); `None` when a character is not base64.
pub(super) fn decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = BASE64.iter().position(|&b| b == c)?;
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}
