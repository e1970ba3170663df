//! Points of the board and the places a checker moves from and to.

use std::borrow::Cow;
use std::num::NonZeroU8;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

use super::Side;

/// One of the 24 points, numbered as in RULES.md §2: White moves 1 → 24, Black 24 → 1.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(try_from = "u8", into = "u8")]
#[schema(value_type = u8)]
pub struct Point(NonZeroU8);

impl Point {
    /// The point numbered `number` (1..=24).
    pub const fn new(number: u8) -> Option<Point> {
        match NonZeroU8::new(number) {
            Some(n) if number <= 24 => Some(Point(n)),
            _ => None,
        }
    }

    /// The point numbered `number`, for the tables below (only called with 1..=24).
    const fn known(number: u8) -> Point {
        match Point::new(number) {
            Some(p) => p,
            None => Point(NonZeroU8::MIN),
        }
    }

    /// Its number, 1..=24.
    pub fn number(self) -> u8 {
        self.0.get()
    }

    /// Its index into a 24-long board (point 1 is index 0).
    pub fn index(self) -> usize {
        usize::from(self.0.get() - 1)
    }

    /// How many pips a checker of `side` on this point still has to travel to bear off
    /// (1 on its ace point, 24 on its farthest point).
    pub fn distance(self, side: Side) -> u8 {
        match side {
            Side::White => 25 - self.0.get(),
            Side::Black => self.0.get(),
        }
    }

    /// The point `distance` (1..=24) pips from bearing off for `side`.
    pub fn at_distance(side: Side, distance: u8) -> Option<Point> {
        let p = Point::new(distance)?;
        Some(match side {
            Side::White => Point::known(25 - p.0.get()),
            Side::Black => p,
        })
    }

    /// Whether the point lies in `side`'s home board.
    pub fn is_home(self, side: Side) -> bool {
        self.distance(side) <= 6
    }
}

impl TryFrom<u8> for Point {
    type Error = String;
    fn try_from(n: u8) -> Result<Self, Self::Error> {
        Point::new(n).ok_or_else(|| format!("there is no point {n}: points are 1..24"))
    }
}

impl From<Point> for u8 {
    fn from(p: Point) -> u8 {
        p.0.get()
    }
}

/// Where a checker starts a step: a point, or the bar.
/// JSON: the point number, or `"bar"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Origin {
    /// The bar: a hit checker enters from here.
    Bar,
    /// A point.
    Point(Point),
}

/// Where a checker ends a step: a point, or off the board (borne off).
/// JSON: the point number, or `"off"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Destination {
    /// A point.
    Point(Point),
    /// Borne off.
    Off,
}

/// For each side (White, Black) and slot (pips from bearing off; 25 = the bar), where a
/// checker there starts a step.
pub(crate) const ORIGINS: [[Origin; 26]; 2] = {
    let mut t = [[Origin::Bar; 26]; 2];
    let mut s = 1;
    while s < 25 {
        t[0][s] = Origin::Point(Point::known(25 - s as u8));
        t[1][s] = Origin::Point(Point::known(s as u8));
        s += 1;
    }
    t
};

/// For each side (White, Black) and slot (pips from bearing off; 0 = off), where a step
/// to that slot ends.
pub(crate) const DESTINATIONS: [[Destination; 26]; 2] = {
    let mut t = [[Destination::Off; 26]; 2];
    let mut s = 1;
    while s < 25 {
        t[0][s] = Destination::Point(Point::known(25 - s as u8));
        t[1][s] = Destination::Point(Point::known(s as u8));
        s += 1;
    }
    t
};

/// A point number or a word, as read from JSON.
#[derive(Deserialize)]
#[serde(untagged)]
enum NumberOrWord {
    Number(u8),
    Word(String),
}

fn read_place<'de, D: Deserializer<'de>>(d: D, word: &str) -> Result<Result<Point, ()>, D::Error> {
    use serde::de::Error;
    match NumberOrWord::deserialize(d)
        .map_err(|_| D::Error::custom(format!("expected a point number 1..24 or \"{word}\"")))?
    {
        NumberOrWord::Number(n) => Point::try_from(n).map(Ok).map_err(D::Error::custom),
        NumberOrWord::Word(w) if w == word => Ok(Err(())),
        NumberOrWord::Word(w) => Err(D::Error::custom(format!(
            "expected a point number 1..24 or \"{word}\", not {w:?}"
        ))),
    }
}

impl Serialize for Origin {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Origin::Bar => s.serialize_str("bar"),
            Origin::Point(p) => s.serialize_u8(p.0.get()),
        }
    }
}

impl<'de> Deserialize<'de> for Origin {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match read_place(d, "bar")? {
            Ok(p) => Origin::Point(p),
            Err(()) => Origin::Bar,
        })
    }
}

impl Serialize for Destination {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Destination::Off => s.serialize_str("off"),
            Destination::Point(p) => s.serialize_u8(p.0.get()),
        }
    }
}

impl<'de> Deserialize<'de> for Destination {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match read_place(d, "off")? {
            Ok(p) => Destination::Point(p),
            Err(()) => Destination::Off,
        })
    }
}

fn place_schema(word: &str, description: &str) -> RefOr<Schema> {
    OneOfBuilder::new()
        .item(
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(1))
                .maximum(Some(24)),
        )
        .item(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some([word])),
        )
        .description(Some(description))
        .into()
}

impl PartialSchema for Origin {
    fn schema() -> RefOr<Schema> {
        place_schema(
            "bar",
            "Where the checker starts: a point number 1..24 or \"bar\".",
        )
    }
}

impl ToSchema for Origin {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Origin")
    }
}

impl PartialSchema for Destination {
    fn schema() -> RefOr<Schema> {
        place_schema(
            "off",
            "Where the checker ends: a point number 1..24 or \"off\".",
        )
    }
}

impl ToSchema for Destination {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Destination")
    }
}
