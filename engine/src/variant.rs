//! The registry of games, behind a type-erased interface.
//!
//! The HTTP layer, the store and the command line know games only through [`AnyGame`]
//! (moves, options and state as JSON) and the [`Variant`] entries of [`variants`]; what a
//! game can do beyond being played (match files, analysis) they ask its entry, never its
//! name. Registering a new game of this crate is one line in `VARIANTS`; a game defined
//! elsewhere (a test's) is one call of [`register`].

use std::fmt::Debug;
use std::sync::{PoisonError, RwLock};

use serde_json::Value;
use utoipa::openapi::{RefOr, Schema};

use crate::capability::{Capabilities, Capability, CapabilityError, MatchHeader};
use crate::json::RawJson;
use crate::step::Step;
use crate::{Awaiting, EndReason, EngineError, Game, Seat};

/// A game of any variant, with moves, options and state as JSON.
pub trait AnyGame: Debug + Send + Sync {
    /// The variant's registered name.
    fn variant(&self) -> &'static str;
    /// What the game waits for next.
    fn awaiting(&self) -> Awaiting;
    /// The legal moves, as JSON, in the engine's order. Like every method here that
    /// writes JSON, an error ([`EngineError::Unserialisable`]) only if the game's
    /// `Serialize` fails, which those of this crate's games never do
    /// (`json::tests::every_variant_writes_its_state_and_moves_as_serde_json_does`).
    fn legal_moves(&self) -> Result<Vec<Value>, EngineError>;
    /// The same moves as one JSON array, written directly (no intermediate values).
    fn legal_moves_json(&self) -> Result<RawJson, EngineError>;
    /// See [`Game::apply_dice`].
    fn apply_dice(&mut self, values: &[u8]) -> Result<(), EngineError>;
    /// Reads a move from JSON and applies it (see [`Game::apply_move`]).
    fn apply_move(&mut self, mv: &Value) -> Result<(), EngineError>;
    /// See [`Game::retire`].
    fn retire(&mut self, seat: Seat) -> Result<(), EngineError>;
    /// See [`Game::progress`].
    fn progress(&self, seat: Seat) -> i32;
    /// See [`Game::question`].
    fn question(&self) -> Option<&'static str>;
    /// See [`Game::decision_hint`].
    fn decision_hint(&self) -> Option<usize>;
    /// See [`Game::end_reason`].
    fn end_reason(&self) -> Option<EndReason>;
    /// The state as JSON.
    fn state(&self) -> Result<Value, EngineError>;
    /// The same state as JSON text, written directly (no intermediate values).
    fn state_json(&self) -> Result<RawJson, EngineError>;
    /// The options the game was created with, defaults filled in.
    fn options(&self) -> Result<Value, EngineError>;
    /// A boxed copy.
    fn clone_box(&self) -> Box<dyn AnyGame>;
}

impl Clone for Box<dyn AnyGame> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

impl<G: Game> AnyGame for G {
    fn variant(&self) -> &'static str {
        G::VARIANT
    }
    fn awaiting(&self) -> Awaiting {
        Game::awaiting(self)
    }
    fn legal_moves(&self) -> Result<Vec<Value>, EngineError> {
        Game::legal_moves(self)
            .iter()
            .map(|m| to_value("a legal move", m))
            .collect()
    }
    fn legal_moves_json(&self) -> Result<RawJson, EngineError> {
        RawJson::of(&Game::legal_moves(self))
            .map_err(|e| EngineError::unserialisable("the legal moves", e))
    }
    fn apply_dice(&mut self, values: &[u8]) -> Result<(), EngineError> {
        Game::apply_dice(self, values)
    }
    fn apply_move(&mut self, mv: &Value) -> Result<(), EngineError> {
        let mv: G::Move = G::Move::deserialize(mv).map_err(|e| EngineError::MalformedMove {
            reason: e.to_string(),
        })?;
        Game::apply_move(self, &mv)
    }
    fn retire(&mut self, seat: Seat) -> Result<(), EngineError> {
        Game::retire(self, seat)
    }
    fn progress(&self, seat: Seat) -> i32 {
        Game::progress(self, seat)
    }
    fn question(&self) -> Option<&'static str> {
        Game::question(self)
    }
    fn decision_hint(&self) -> Option<usize> {
        Game::decision_hint(self)
    }
    fn end_reason(&self) -> Option<EndReason> {
        Game::end_reason(self)
    }
    fn state(&self) -> Result<Value, EngineError> {
        to_value("the state", self)
    }
    fn state_json(&self) -> Result<RawJson, EngineError> {
        RawJson::of(self).map_err(|e| EngineError::unserialisable("the state", e))
    }
    fn options(&self) -> Result<Value, EngineError> {
        to_value("the options", Game::options(self))
    }
    fn clone_box(&self) -> Box<dyn AnyGame> {
        Box::new(self.clone())
    }
}

use serde::Deserialize as _;

/// `value` as JSON, or an [`EngineError::Unserialisable`] naming `what` it is.
fn to_value<T: serde::Serialize + ?Sized>(
    what: &'static str,
    value: &T,
) -> Result<Value, EngineError> {
    serde_json::to_value(value).map_err(|e| EngineError::unserialisable(what, e))
}

/// The JSON schemas of a variant's types.
pub struct VariantSchemas {
    /// The creation options.
    pub options: RefOr<Schema>,
    /// One move.
    pub mv: RefOr<Schema>,
    /// The state.
    pub state: RefOr<Schema>,
    /// Named schemas the three above refer to (`#/components/schemas/<name>`).
    pub components: Vec<(String, RefOr<Schema>)>,
}

/// Makes a game of one variant from JSON options and a seat count.
type CreateFn = fn(&Value, u8) -> Result<Box<dyn AnyGame>, EngineError>;
/// Rebuilds a game of one variant from its state JSON ([`Game::from_state`]).
type FromStateFn = fn(&str) -> Result<Box<dyn AnyGame>, EngineError>;

/// A registered game.
#[derive(Clone, Copy)]
pub struct Variant {
    /// The name used in the API and in game records, e.g. `backgammon`.
    pub name: &'static str,
    /// A human-readable title.
    pub title: &'static str,
    /// The fewest seats.
    pub min_seats: u8,
    /// The most seats.
    pub max_seats: u8,
    create: CreateFn,
    from_state: FromStateFn,
    default_options: fn() -> Result<Value, EngineError>,
    schemas: fn() -> VariantSchemas,
    capabilities: Capabilities,
}

impl Debug for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Variant").field("name", &self.name).finish()
    }
}

impl Variant {
    /// The registry entry of game type `G`.
    pub const fn of<G: Game>() -> Variant {
        Variant {
            name: G::VARIANT,
            title: G::TITLE,
            min_seats: G::MIN_SEATS,
            max_seats: G::MAX_SEATS,
            create: create::<G>,
            from_state: from_state::<G>,
            default_options: default_options::<G>,
            schemas: schemas::<G>,
            capabilities: G::CAPABILITIES,
        }
    }

    /// A new game from JSON options (`null` or a missing field takes the default) for
    /// `seats` seats. Unknown option fields are refused.
    pub fn create(&self, options: &Value, seats: u8) -> Result<Box<dyn AnyGame>, EngineError> {
        (self.create)(options, seats)
    }

    /// The game whose state JSON ([`AnyGame::state_json`]) is `state`; see
    /// [`Game::from_state`].
    pub fn from_state(&self, state: &str) -> Result<Box<dyn AnyGame>, EngineError> {
        (self.from_state)(state)
    }

    /// The default options as JSON (an error as for [`AnyGame::options`]).
    pub fn default_options(&self) -> Result<Value, EngineError> {
        (self.default_options)()
    }

    /// The JSON schemas of the options, a move and the state.
    pub fn schemas(&self) -> VariantSchemas {
        (self.schemas)()
    }

    /// What the game can do beyond being played.
    pub fn capabilities(&self) -> Capabilities {
        self.capabilities
    }

    /// The game played by `steps` (as in a replay record) as a match file other programs
    /// import (backgammon: Jellyfish `.mat`).
    pub fn match_file(
        &self,
        steps: &[Step],
        header: &MatchHeader,
    ) -> Result<String, CapabilityError> {
        let write = self.capability(self.capabilities.match_file, Capability::MatchFile)?;
        Ok(write(steps, header)?)
    }

    /// The analyzer's answer to one input line (`worp analyze <variant>`); the answer
    /// names what is wrong with a bad line.
    pub fn analyze_line(&self, line: &str) -> Result<Value, CapabilityError> {
        let analyze = self.capability(self.capabilities.analyze_line, Capability::AnalyzeLine)?;
        Ok(analyze(line))
    }

    fn capability<F>(&self, f: Option<F>, capability: Capability) -> Result<F, CapabilityError> {
        f.ok_or(CapabilityError::Unsupported {
            variant: self.name,
            capability,
        })
    }
}

fn create<G: Game>(options: &Value, seats: u8) -> Result<Box<dyn AnyGame>, EngineError> {
    crate::game::check_seat_count::<G>(seats)?;
    let options: G::Options = match options {
        Value::Null => G::Options::default(),
        // Only an object: serde would also read a struct from an array, by field order.
        v @ Value::Object(_) => {
            G::Options::deserialize(v).map_err(|e| EngineError::options(e.to_string()))?
        }
        _ => {
            return Err(EngineError::options(
                "the options are a JSON object (or null for the defaults)",
            ))
        }
    };
    Ok(Box::new(G::new(&options, seats)?))
}

fn from_state<G: Game>(state: &str) -> Result<Box<dyn AnyGame>, EngineError> {
    Ok(Box::new(G::from_state(state)?))
}

fn default_options<G: Game>() -> Result<Value, EngineError> {
    to_value("the default options", &G::Options::default())
}

fn schemas<G: Game>() -> VariantSchemas {
    use utoipa::{PartialSchema, ToSchema};
    let mut components = Vec::new();
    <G::Options as ToSchema>::schemas(&mut components);
    <G::Move as ToSchema>::schemas(&mut components);
    <G as ToSchema>::schemas(&mut components);
    VariantSchemas {
        options: <G::Options as PartialSchema>::schema(),
        mv: <G::Move as PartialSchema>::schema(),
        state: <G as PartialSchema>::schema(),
        components,
    }
}

/// Every game of this crate, in the order the API lists them.
static VARIANTS: &[Variant] = &[
    // Each game registers here, and nowhere else.
    Variant::of::<crate::mens_erger_je_niet::MensErgerJeNiet>(),
    Variant::of::<crate::backgammon::Backgammon>(),
    Variant::of::<crate::ali_baba::AliBaba>(),
    Variant::of::<crate::hoofden::Hoofden>(),
    Variant::of::<crate::ludo::Ludo>(),
];

/// Every registered game: those of `VARIANTS`, then those given to [`register`], in
/// the order they came. Replaced as a whole by each registration.
static REGISTRY: RwLock<&'static [Variant]> = RwLock::new(VARIANTS);

/// Every registered game, in the order the API lists them.
pub fn variants() -> &'static [Variant] {
    *REGISTRY.read().unwrap_or_else(PoisonError::into_inner)
}

/// The games of this crate, without those registered from outside.
pub fn builtin_variants() -> &'static [Variant] {
    VARIANTS
}

/// The registered game called `name`.
pub fn variant(name: &str) -> Result<&'static Variant, EngineError> {
    variants()
        .iter()
        .find(|v| v.name == name)
        .ok_or_else(|| EngineError::UnknownVariant {
            name: name.to_owned(),
        })
}

/// Registers a game defined outside this crate (e.g. by a test), after every game
/// registered so far: `register(Variant::of::<MyGame>())`. Games of this crate are
/// listed in `VARIANTS` instead.
///
/// Each registration keeps the previous list alive for the rest of the process (entries
/// already handed out stay valid), so it is meant for a few games at start-up.
pub fn register(game: Variant) -> Result<(), RegisterError> {
    let mut registry = REGISTRY.write().unwrap_or_else(PoisonError::into_inner);
    if registry.iter().any(|v| v.name == game.name) {
        return Err(RegisterError::NameTaken { name: game.name });
    }
    let mut grown = registry.to_vec();
    grown.push(game);
    *registry = Box::leak(grown.into_boxed_slice());
    Ok(())
}

/// Why [`register`] refused a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegisterError {
    /// A registered game already has this name.
    #[error("a game called {name:?} is already registered")]
    NameTaken {
        /// The name asked for.
        name: &'static str,
    },
}
