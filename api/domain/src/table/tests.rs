//! The clock's tests: a message restarts no clock, a vacation pauses the mover's and
//! resumes it, a vacation of the other seat changes nothing, and the new events are
//! checked as they are folded.

use chrono::{DateTime, Duration, TimeZone, Utc};
use uuid::Uuid;
use worp_engine::{Awaiting, Seat};

use super::Table;
use crate::dice;
use crate::events::{Event, EventRow, RetireReason};

const A: Uuid = Uuid::from_u128(0xa);
const B: Uuid = Uuid::from_u128(0xb);

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 1, 12, 0, 0).unwrap()
}

fn days(d: i64) -> Duration {
    Duration::days(d)
}

/// A backgammon game with a 3-day clock between A and B, folded event by event.
struct Game {
    table: Table,
}

impl Game {
    /// Created and both seats taken at `t0`, the opening dice rolled: a seat must move.
    fn new() -> Game {
        let created = Event::GameCreated {
            variant: "backgammon".into(),
            options: serde_json::json!({}),
            seats: vec![Some(A), None],
            invited: Vec::new(),
            client_seeds: Vec::new(),
            bots: Vec::new(),
            days_per_move: Some(3),
            dice_commitment: dice::commitment(&[7; 32]),
            created_by: A,
            rated: false,
            public_chat: false,
            tournament: None,
        };
        let first = EventRow::new(Uuid::from_u128(1), 1, &created, t0(), "")
            .expect("an event")
            .event;
        let mut g = Game {
            table: Table::from_events(&[first]).expect("a new game"),
        };
        g.push(
            Event::SeatTaken {
                seat: 1,
                player_id: B,
                client_seed: None,
            },
            t0(),
        )
        .expect("B sits down");
        g.settle(t0());
        g
    }

    fn push(&mut self, event: Event, at: DateTime<Utc>) -> Result<(), super::ReplayError> {
        let t = &mut self.table;
        let row = EventRow::new(t.id, t.version + 1, &event, at, &t.head_hash).expect("an event");
        t.apply(&row.event)
    }

    /// Rolls the dice the game awaits, at `at`.
    fn settle(&mut self, at: DateTime<Utc>) {
        while let Awaiting::Dice { seat, die, count } = self.table.game.awaiting() {
            let index = self.table.dice_rolled;
            let seeds = self.table.client_seeds();
            let values = (0..u64::from(count))
                .map(|i| dice::roll(&[7; 32], &seeds, index + i, &die))
                .collect();
            let event = Event::DiceRolled {
                seat: seat.0,
                die: die.name.to_owned(),
                values,
                index,
            };
            self.push(event, at).expect("the dice");
        }
    }

    /// The seat to move plays its first legal move at `at`; the next dice are rolled.
    fn play(&mut self, at: DateTime<Utc>) {
        let seat = self.mover();
        let mv = self.table.game.legal_moves().expect("moves").remove(0);
        self.push(Event::MovePlayed { seat, mv }, at)
            .expect("a move");
        self.settle(at);
    }

    fn mover(&self) -> u8 {
        self.table
            .to_move()
            .map(|s: Seat| s.0)
            .expect("a seat to move")
    }

    fn away(&mut self, seat: u8, at: DateTime<Utc>, until: DateTime<Utc>) {
        self.push(Event::VacationStarted { seat, until }, at)
            .expect("a vacation");
    }

    fn back(&mut self, seat: u8, at: DateTime<Utc>) {
        self.push(Event::VacationEnded { seat }, at)
            .expect("the end of a vacation");
    }

    fn deadline(&self) -> DateTime<Utc> {
        self.table.deadline().expect("a deadline")
    }
}

#[test]
fn a_message_does_not_restart_the_clock() {
    let mut g = Game::new();
    assert_eq!(g.deadline(), t0() + days(3));
    let seat = g.mover();
    let message = Event::MessagePosted {
        seat,
        text: Some("thinking".into()),
        salt: None,
        text_sha256: crate::events::message_commitment(None, "thinking").expect("hex"),
    };
    g.push(message, t0() + Duration::hours(12))
        .expect("a message");
    assert_eq!(g.deadline(), t0() + days(3));
    // A move does: the other seat has its three days from it.
    g.play(t0() + days(1));
    assert_eq!(g.deadline(), t0() + days(4));
}

#[test]
fn a_vacation_pauses_the_movers_clock_and_its_end_resumes_it() {
    let mut g = Game::new();
    let seat = g.mover();
    g.away(seat, t0() + days(1), t0() + days(8));
    assert!(g.table.clock_paused());
    // Two days left when it started: they run from `until`.
    assert_eq!(g.deadline(), t0() + days(10));
    // Ended by the sweep a little late: the two days run from the end.
    g.back(seat, t0() + days(8) + Duration::hours(1));
    assert!(!g.table.clock_paused());
    assert_eq!(g.deadline(), t0() + days(10) + Duration::hours(1));
}

#[test]
fn a_vacation_ended_early_leaves_the_time_that_was_left() {
    let mut g = Game::new();
    let seat = g.mover();
    g.away(seat, t0() + Duration::hours(12), t0() + days(8));
    g.back(seat, t0() + days(4));
    assert_eq!(g.deadline(), t0() + days(4) + Duration::hours(60));
    // A second vacation pauses what is left again.
    g.away(seat, t0() + days(5), t0() + days(6));
    assert_eq!(g.deadline(), t0() + days(6) + Duration::hours(36));
}

#[test]
fn a_vacation_of_the_other_seat_changes_nothing_for_the_mover() {
    let mut g = Game::new();
    let other = 1 - g.mover();
    g.away(other, t0() + days(1), t0() + days(8));
    assert!(!g.table.clock_paused());
    assert_eq!(g.deadline(), t0() + days(3));
    // The turn comes to it during its vacation: all of its days run from `until`.
    g.play(t0() + days(2));
    assert_eq!(g.mover(), other);
    assert_eq!(g.deadline(), t0() + days(11));
    g.back(other, t0() + days(8));
    assert_eq!(g.deadline(), t0() + days(11));
}

#[test]
fn a_vacation_begun_after_the_time_ran_out_pauses_nothing() {
    let mut g = Game::new();
    let seat = g.mover();
    g.away(seat, t0() + days(4), t0() + days(9));
    assert!(!g.table.clock_paused());
    assert_eq!(g.deadline(), t0() + days(3));
    g.back(seat, t0() + days(5));
    assert_eq!(g.deadline(), t0() + days(3));
}

#[test]
fn vacations_are_checked_as_they_are_folded() {
    let mut g = Game::new();
    let seat = g.mover();
    let at = t0() + days(1);
    assert!(g.push(Event::VacationEnded { seat }, at).is_err());
    assert!(g
        .push(Event::VacationStarted { seat, until: at }, at)
        .is_err());
    assert!(g
        .push(
            Event::VacationStarted {
                seat: 5,
                until: at + days(1)
            },
            at
        )
        .is_err());
    g.away(seat, at, at + days(2));
    assert!(g
        .push(
            Event::VacationStarted {
                seat,
                until: at + days(3)
            },
            at
        )
        .is_err());
    // A seat that retires leaves its vacation; a finished game has none.
    g.push(
        Event::SeatRetired {
            seat,
            reason: RetireReason::Resigned,
        },
        at,
    )
    .expect("a resignation");
    assert!(g.table.seats.iter().all(|s| s.vacation.is_none()));
    let Awaiting::Finished { result } = g.table.game.awaiting() else {
        panic!("the game is over");
    };
    let finished = Event::GameFinished {
        result,
        server_seed: hex::encode([7; 32]),
    };
    g.push(finished, at).expect("the end");
    let other = 1 - seat;
    assert!(g
        .push(
            Event::VacationStarted {
                seat: other,
                until: at + days(1)
            },
            at
        )
        .is_err());
}
