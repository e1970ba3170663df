//! `worp bots duel`: bots against bots through the engine, with GNU Backgammon's bots
//! played by a gnubg pool of one worker.

/// `worp bots duel`.
pub(crate) fn duel(
    variant: &str,
    a: &str,
    b: &str,
    options: &str,
    games: u32,
    seed: u64,
    seats: Option<u8>,
) -> i32 {
    use worp_domain::bots::BotKind;
    use worp_domain::duel::{duel_with, engine_bots, DuelError, Setup};
    let names: Vec<&str> = BotKind::ALL.iter().map(|k| k.name()).collect();
    let bot = |name: &str| -> Result<BotKind, String> {
        BotKind::named(name).ok_or_else(|| format!("{name:?} is not a bot: {}", names.join(", ")))
    };
    let parsed = bot(a).and_then(|a| Ok((a, bot(b)?))).and_then(|bots| {
        let options: serde_json::Value =
            serde_json::from_str(options).map_err(|e| format!("--options is not JSON: {e}"))?;
        Ok((bots, options))
    });
    let ((a_kind, b_kind), options) = match parsed {
        Ok(p) => p,
        Err(e) => {
            eprintln!("worp bots duel: {e}");
            return 2;
        }
    };
    let settings = worp_service::bots::BotSettings {
        workers: 1,
        ..Default::default()
    };
    let gnubg = if a_kind.is_gnubg() || b_kind.is_gnubg() {
        match worp_service::bots::start_gnubg(&settings) {
            Some(pool) => Some(pool),
            None => {
                eprintln!(
                    "worp bots duel: GNU Backgammon's bots need gnubg (apt-get install gnubg)"
                );
                return 2;
            }
        }
    } else {
        None
    };
    let mut choose = |kind: BotKind, game: &dyn worp_engine::AnyGame, seat, seats, entropy| {
        if !kind.is_gnubg() {
            return engine_bots(kind, game, seat, seats, entropy);
        }
        worp_service::bots::decide(kind, gnubg.as_deref(), game, seat, seats, entropy).map_err(
            |reason| DuelError::Bot {
                bot: kind.name(),
                reason,
            },
        )
    };
    let setup = Setup {
        variant,
        options: &options,
        seats,
        games,
        seed,
    };
    match duel_with(&setup, a_kind, b_kind, &mut choose) {
        Ok(d) => {
            print!("{}", d.report(a, b, seed));
            0
        }
        Err(e) => {
            eprintln!("worp bots duel: {e}");
            1
        }
    }
}
