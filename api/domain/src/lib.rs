//! What every layer of Worp's server shares: the events a game's log stores
//! ([`events`]), a game folded from them ([`table`]), the rating book ([`ratings`]), the
//! clock ([`clock`], the one reader of the wall clock), the dice ([`dice`]) and the bots
//! ([`bots`]), and the [`records`] the store keeps and the service hands out. No I/O beyond the clock and the dice's randomness.

pub mod access;
pub mod bots;
pub mod clock;
pub mod dice;
pub mod duel;
pub mod events;
pub mod ratings;
pub mod records;
pub mod table;
pub mod tournaments;
