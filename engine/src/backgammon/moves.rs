//! A move: every checker step a roll is used for, or a decision of the cube.

use serde::de::{Error as _, SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::openapi::{RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};

use super::point::{DESTINATIONS, ORIGINS};
use super::{Decision, Destination, Origin};

/// One checker moving by one number of the roll.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Where the checker starts: a point (1..24) or `"bar"`.
    pub from: Origin,
    /// Where it ends: a point (1..24) or `"off"`.
    pub to: Destination,
}

/// A choice of the player to move: a full move of checkers (the steps of one roll in
/// the order they are played, at most four, for doubles), or a decision of the doubling
/// cube or of a resignation (RULES.md §2b, only in games with the cube or in a match).
///
/// JSON: `{"steps":[{"from":13,"to":7},{"from":"bar","to":22},{"from":3,"to":"off"}]}`,
/// or a [`Decision`]: `"roll"`, `"double"`, `"take"`, `"pass"`, `{"resign":"gammon"}`,
/// `"accept"`, `"decline"`.
#[derive(Debug, Clone, Copy)]
pub enum Move {
    /// The checker steps of the roll, in playing order.
    Checkers(Steps),
    /// A decision of the cube or of a resignation.
    Decision(Decision),
}

/// A checker move as JSON: `{"steps": [...]}`.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = BackgammonCheckerMove)]
struct CheckerMove {
    /// The checker steps, in playing order.
    #[schema(value_type = Vec<Step>, max_items = 4)]
    steps: Steps,
}

/// The JSON Schema of [`Move`]: a checker move or a decision.
#[derive(ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum MoveSchema {
    Checkers(CheckerMove),
    Decision(Decision),
}

impl Move {
    /// A move of these steps (at most four).
    pub fn new(steps: &[Step]) -> Option<Move> {
        Steps::from_slice(steps).map(Move::Checkers)
    }

    /// The checker steps in playing order (none for a decision).
    pub fn steps(&self) -> &[Step] {
        match self {
            Move::Checkers(steps) => steps.as_slice(),
            Move::Decision(_) => &[],
        }
    }

    /// The decision, if this is one.
    pub fn decision(&self) -> Option<Decision> {
        match self {
            Move::Checkers(_) => None,
            Move::Decision(d) => Some(*d),
        }
    }
}

impl PartialEq for Move {
    fn eq(&self, other: &Move) -> bool {
        match (self, other) {
            (Move::Checkers(a), Move::Checkers(b)) => a.as_slice() == b.as_slice(),
            (Move::Decision(a), Move::Decision(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Move {}

impl Serialize for Move {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Move::Checkers(steps) => CheckerMove { steps: *steps }.serialize(s),
            Move::Decision(d) => d.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Move {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // A string or `{"resign": ..}` is a decision; any other value is read as a
        // checker move, so that its errors name what is wrong with the steps.
        let value = serde_json::Value::deserialize(d)?;
        let is_decision = value.is_string()
            || value
                .as_object()
                .is_some_and(|o| o.contains_key("resign") && !o.contains_key("steps"));
        if is_decision {
            Decision::deserialize(value)
                .map(Move::Decision)
                .map_err(D::Error::custom)
        } else {
            CheckerMove::deserialize(value)
                .map(|m| Move::Checkers(m.steps))
                .map_err(D::Error::custom)
        }
    }
}

impl PartialSchema for Move {
    fn schema() -> RefOr<Schema> {
        MoveSchema::schema()
    }
}

impl ToSchema for Move {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("BackgammonMove")
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        <MoveSchema as ToSchema>::schemas(schemas);
    }
}

/// Up to four steps, stored inline (no allocation).
#[derive(Debug, Clone, Copy)]
pub struct Steps {
    len: u8,
    items: [Step; 4],
}

pub(crate) const FILLER: Step = Step {
    from: Origin::Bar,
    to: Destination::Off,
};

/// For each side (White, Black), slot from (25 = bar) and slot to (0 = off), the step;
/// slots measured in pips from bearing off.
pub(crate) const STEP_TABLE: [[[Step; 26]; 26]; 2] = {
    let mut t = [[[FILLER; 26]; 26]; 2];
    let mut side = 0;
    while side < 2 {
        let mut from = 0;
        while from < 26 {
            let mut to = 0;
            while to < 26 {
                t[side][from][to] = Step {
                    from: ORIGINS[side][from],
                    to: DESTINATIONS[side][to],
                };
                to += 1;
            }
            from += 1;
        }
        side += 1;
    }
    t
};

impl Steps {
    /// No steps.
    pub const EMPTY: Steps = Steps {
        len: 0,
        items: [FILLER; 4],
    };

    /// These steps, if there are at most four.
    pub fn from_slice(steps: &[Step]) -> Option<Steps> {
        let mut s = Steps::EMPTY;
        for step in steps {
            s.push(*step).ok()?;
        }
        Some(s)
    }

    /// The first `len` (at most four) of `items`.
    pub(crate) fn from_array(items: [Step; 4], len: u8) -> Steps {
        Steps {
            len: len.min(4),
            items,
        }
    }

    /// Adds a step; refused when four are already there.
    pub fn push(&mut self, step: Step) -> Result<(), Step> {
        match self.items.get_mut(usize::from(self.len)) {
            Some(slot) => {
                *slot = step;
                self.len += 1;
                Ok(())
            }
            None => Err(step),
        }
    }

    /// The steps.
    pub fn as_slice(&self) -> &[Step] {
        self.items.get(..usize::from(self.len)).unwrap_or(&[])
    }
}

impl Serialize for Steps {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(usize::from(self.len)))?;
        for step in self.as_slice() {
            seq.serialize_element(step)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Steps {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Steps;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of at most four steps")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Steps, A::Error> {
                let mut steps = Steps::EMPTY;
                while let Some(step) = seq.next_element::<Step>()? {
                    steps
                        .push(step)
                        .map_err(|_| A::Error::custom("a move has at most four steps"))?;
                }
                Ok(steps)
            }
        }
        d.deserialize_seq(V)
    }
}
