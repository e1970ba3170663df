//! Who starts: the shared roll-off of RULES.md ("Shared conventions").
//!
//! The seats roll one plain d6 each, in seat order; the highest starts; tied highest
//! seats roll again, in seat order, among themselves until one is highest.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::Seat;

/// A roll-off in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RollOff {
    /// The seats still in contention, in seat order.
    contenders: Vec<Seat>,
    /// The values rolled so far in this round, one per contender in order.
    rolls: Vec<u8>,
}

impl RollOff {
    /// Checks a roll-off read back with a game's state ([`crate::Game::from_state`]):
    /// two contenders or more, in seat order and each still `playing`, fewer rolls than
    /// contenders, each a face of the plain d6.
    pub fn check(&self, playing: impl Fn(Seat) -> bool) -> Result<(), String> {
        if self.contenders.len() < 2 || self.rolls.len() >= self.contenders.len() {
            return Err(format!(
                "a roll-off of {} contenders with {} rolls",
                self.contenders.len(),
                self.rolls.len()
            ));
        }
        if !self.contenders.windows(2).all(|w| w[0] < w[1]) {
            return Err("the roll-off's contenders are not in seat order".to_owned());
        }
        if let Some(seat) = self.contenders.iter().find(|s| !playing(**s)) {
            return Err(format!("seat {seat} in the roll-off is not playing"));
        }
        if let Some(value) = self.rolls.iter().find(|v| !crate::Die::D6.shows(**v)) {
            return Err(format!("the roll-off roll {value} is not a face of a d6"));
        }
        Ok(())
    }

    /// A roll-off between these seats (given in seat order).
    pub fn new(seats: impl IntoIterator<Item = Seat>) -> Self {
        RollOff {
            contenders: seats.into_iter().collect(),
            rolls: Vec::new(),
        }
    }

    /// The seat whose roll comes next.
    pub fn next_roller(&self) -> Seat {
        self.contenders[self.rolls.len()]
    }

    /// The values rolled so far in the current round, with their seats.
    pub fn round(&self) -> impl Iterator<Item = (Seat, u8)> + '_ {
        self.contenders
            .iter()
            .copied()
            .zip(self.rolls.iter().copied())
    }

    /// Records the next roller's value. Returns the starting seat once one is highest.
    pub fn roll(&mut self, value: u8) -> Option<Seat> {
        self.rolls.push(value);
        if self.rolls.len() < self.contenders.len() {
            return None;
        }
        let best = self.rolls.iter().copied().max().unwrap_or(0);
        let tied: Vec<Seat> = self
            .round()
            .filter(|(_, v)| *v == best)
            .map(|(s, _)| s)
            .collect();
        if tied.len() == 1 {
            return Some(tied[0]);
        }
        self.contenders = tied;
        self.rolls.clear();
        None
    }

    /// Removes a seat that left the game. Returns the starting seat if the seats left
    /// have already been decided between (or only one is left).
    pub fn remove(&mut self, seat: Seat) -> Option<Seat> {
        if let Some(i) = self.contenders.iter().position(|s| *s == seat) {
            self.contenders.remove(i);
            if i < self.rolls.len() {
                self.rolls.remove(i);
            }
        }
        match self.contenders.len() {
            0 => None,
            1 => Some(self.contenders[0]),
            n if self.rolls.len() == n => {
                // The round is complete without the removed seat: decide it again.
                let last = self.rolls.pop()?;
                self.roll(last)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn who_starts_highest_roll_wins() {
        let mut r = RollOff::new([Seat(0), Seat(1), Seat(2)]);
        assert_eq!(r.next_roller(), Seat(0));
        assert_eq!(r.roll(3), None);
        assert_eq!(r.roll(5), None);
        assert_eq!(r.roll(2), Some(Seat(1)));
    }

    #[test]
    fn who_starts_tied_highest_roll_again_among_themselves() {
        let mut r = RollOff::new([Seat(0), Seat(1), Seat(2), Seat(3)]);
        for v in [6, 2, 6, 6] {
            assert_eq!(r.roll(v), None);
        }
        // Seats 0, 2 and 3 roll again, in seat order.
        assert_eq!(r.next_roller(), Seat(0));
        assert_eq!(r.roll(4), None);
        assert_eq!(r.next_roller(), Seat(2));
        assert_eq!(r.roll(5), None);
        assert_eq!(r.next_roller(), Seat(3));
        assert_eq!(r.roll(5), None);
        // Seats 2 and 3 again.
        assert_eq!(r.next_roller(), Seat(2));
        assert_eq!(r.roll(1), None);
        assert_eq!(r.roll(2), Some(Seat(3)));
    }

    #[test]
    fn a_roll_off_read_back_is_refused_unless_a_roll_off_could_be_so() {
        let read = |json: &str| serde_json::from_str::<RollOff>(json).expect("a roll-off");
        let everyone = |_: Seat| true;
        assert_eq!(
            read(r#"{"contenders":[0,2,3],"rolls":[6,1]}"#).check(everyone),
            Ok(())
        );
        for bad in [
            r#"{"contenders":[1],"rolls":[]}"#,
            r#"{"contenders":[0,1],"rolls":[4,5]}"#,
            r#"{"contenders":[2,1],"rolls":[]}"#,
            r#"{"contenders":[0,0],"rolls":[]}"#,
            r#"{"contenders":[0,1],"rolls":[7]}"#,
        ] {
            assert!(read(bad).check(everyone).is_err(), "{bad}");
        }
        let not_seat_2 = |s: Seat| s != Seat(2);
        assert!(read(r#"{"contenders":[0,2],"rolls":[]}"#)
            .check(not_seat_2)
            .is_err());
    }

    #[test]
    fn removing_a_seat_can_decide_the_roll_off() {
        let mut r = RollOff::new([Seat(0), Seat(1)]);
        assert_eq!(r.remove(Seat(0)), Some(Seat(1)));
        let mut r = RollOff::new([Seat(0), Seat(1), Seat(2)]);
        r.roll(2);
        r.roll(6);
        assert_eq!(r.remove(Seat(2)), Some(Seat(1)));
    }
}
