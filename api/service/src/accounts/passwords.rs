//! Passwords, recovery codes, and signing in.
//!
//! Passwords follow NIST SP 800-63B: at least 8 characters, no rules of composition,
//! normalised (NFKC), and refused when `zxcvbn` estimates them guessable (it knows the
//! common passwords, words, names, dates, keyboard walks and the player's own name).
//! They are stored as Argon2id with OWASP's parameters (19 MiB, 2 passes, 1 lane:
//! `argon2`'s defaults), hashed on blocking threads, a few at a time.
//!
//! Signing in answers alike, and takes about as long, whether the name is unknown, has
//! no password, or the password is wrong: a stand-in hash is checked when there is no
//! real one. Failures are counted per account and per address; past a few, each further
//! try waits twice as long as the last (up to 15 minutes), and a try that comes too
//! early is refused without checking anything.

use std::net::IpAddr;
use std::sync::LazyLock;

use argon2::password_hash::rand_core::{OsRng, RngCore};
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use chrono::{DateTime, Utc};
use tokio::sync::Semaphore;
use unicode_normalization::UnicodeNormalization;
use uuid::Uuid;
use worp_domain::access::{CredentialKind, Grant};
use worp_store::Player;
use zxcvbn::Score;

use super::tokens::NewSession;
use crate::names;
use crate::players::token_hash;
use crate::refusal::Refusal;
use crate::worp::Worp;

/// The shortest password accepted, in characters.
pub const MIN_PASSWORD: usize = 8;
/// The longest password accepted, in characters (NIST asks for at least 64).
pub const MAX_PASSWORD: usize = 256;
/// How many recovery codes a player gets at once.
pub const RECOVERY_CODES: usize = 10;
/// Failures per account before each try must wait.
pub const FREE_FAILURES_PER_ACCOUNT: i32 = 5;
/// Failures per address before each try must wait.
pub const FREE_FAILURES_PER_ADDRESS: i32 = 20;
/// The longest wait after failures, in seconds.
pub const MAX_WAIT_SECS: i64 = 15 * 60;
/// Failures are forgotten this long after the last one.
pub const FAILURE_MEMORY: chrono::Duration = chrono::Duration::hours(1);

/// Hashes computed at once: each takes 19 MiB and a core for some milliseconds.
static HASHING: Semaphore = Semaphore::const_new(4);

/// A hash of no one's password, checked when the account has none, so that an unknown
/// name costs what a wrong password does.
static STAND_IN: LazyLock<Option<String>> = LazyLock::new(|| {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(b"no one's password", &salt)
        .ok()
        .map(|h| h.to_string())
});

/// What a player signs in with, besides their name.
#[derive(Debug, Clone)]
pub enum Proof {
    Password(String),
    RecoveryCode(String),
}

/// `raw` as a password: normalised and checked against NIST's rules and `zxcvbn`'s
/// estimate (`inputs`: the player's own name and such, which it must not be built on).
pub fn checked_password(raw: &str, inputs: &[&str]) -> Result<String, Refusal> {
    let password: String = raw.nfkc().collect();
    let n = password.chars().count();
    if n < MIN_PASSWORD {
        return Err(Refusal::Invalid(format!(
            "password must be at least {MIN_PASSWORD} characters"
        )));
    }
    if n > MAX_PASSWORD {
        return Err(Refusal::Invalid(format!(
            "password must be at most {MAX_PASSWORD} characters"
        )));
    }
    if password.chars().any(char::is_control) {
        return Err(Refusal::Invalid(
            "password must not contain control characters".into(),
        ));
    }
    let estimate = zxcvbn::zxcvbn(&password, inputs);
    if estimate.score() < Score::Three {
        let why = estimate
            .feedback()
            .and_then(|f| f.warning())
            .map(|w| format!(" ({w})"))
            .unwrap_or_default();
        return Err(Refusal::Invalid(format!(
            "password is too easy to guess{why}; a few uncommon words make a strong one"
        )));
    }
    Ok(password)
}

/// The Argon2id hash of `password`, in PHC string format.
pub(crate) async fn hash_password(password: String) -> Result<String, Refusal> {
    let _permit = HASHING
        .acquire()
        .await
        .map_err(|_| Refusal::Internal("password hashing stopped".into()))?;
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::generate(&mut OsRng);
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| Refusal::Internal(format!("could not hash the password: {e}")))
    })
    .await
    .map_err(|e| Refusal::Internal(format!("password hashing failed: {e}")))?
}

/// Whether `password` matches `phc` (or, with no hash, the stand-in's cost and `false`).
async fn verify_password(password: String, phc: Option<String>) -> Result<bool, Refusal> {
    let _permit = HASHING
        .acquire()
        .await
        .map_err(|_| Refusal::Internal("password hashing stopped".into()))?;
    tokio::task::spawn_blocking(move || {
        let real = phc.is_some();
        let Some(phc) = phc.or_else(|| STAND_IN.clone()) else {
            return false;
        };
        let password: String = password.nfkc().collect();
        let matches = PasswordHash::new(&phc)
            .map(|h| {
                Argon2::default()
                    .verify_password(password.as_bytes(), &h)
                    .is_ok()
            })
            .unwrap_or(false);
        real && matches
    })
    .await
    .map_err(|e| Refusal::Internal(format!("password check failed: {e}")))
}

/// A recovery code as stored: lower case, without separators or spaces.
fn recovery_code_hash(code: &str) -> Vec<u8> {
    let plain: String = code
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    token_hash(&plain)
}

/// A new recovery code: 15 characters of Crockford's base 32 (no i, l, o or u to mistake;
/// 75 bits), in three groups.
fn new_recovery_code() -> String {
    const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
    let mut bytes = [0u8; 15];
    OsRng.fill_bytes(&mut bytes);
    let chars: Vec<char> = bytes
        .iter()
        .map(|b| char::from(ALPHABET[usize::from(b & 31)]))
        .collect();
    chars
        .chunks(5)
        .map(|c| c.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join("-")
}

/// How many seconds a try must still wait after `failures` failures, the last at
/// `last`, when the first `free` are free: 1 s after the first failure past them, then
/// twice as long after each, up to [`MAX_WAIT_SECS`]; nothing once [`FAILURE_MEMORY`]
/// has passed since the last.
pub fn wait_secs(failures: i32, last: DateTime<Utc>, now: DateTime<Utc>, free: i32) -> u64 {
    if failures < free || now - last >= FAILURE_MEMORY {
        return 0;
    }
    let exponent = u32::try_from((failures - free).min(20)).unwrap_or(20);
    let wait = (1i64 << exponent).min(MAX_WAIT_SECS);
    let left = wait - (now - last).num_seconds();
    u64::try_from(left).unwrap_or(0)
}

impl Worp {
    /// Sets `player`'s password; one already set must be given as `current`, and changing
    /// it signs out every session but the one of this request.
    pub async fn set_password(
        &self,
        player: &Player,
        grant: &Grant,
        password: &str,
        current: Option<&str>,
    ) -> Result<(), Refusal> {
        let before = self.store.password_of(player.id).await?;
        let changed = before.is_some();
        if let Some(phc) = before {
            let current = current.ok_or_else(|| {
                Refusal::Invalid(
                    "current_password: your password is set; give it to change it".into(),
                )
            })?;
            if !verify_password(current.to_owned(), Some(phc)).await? {
                return Err(Refusal::NotYours("current_password is wrong".into()));
            }
        }
        let password = checked_password(password, &[&player.name])?;
        let phc = hash_password(password).await?;
        self.store.set_password(player.id, &phc, self.now()).await?;
        if changed {
            // Whoever signed in with the old password is signed out, but this browser.
            let keep = grant
                .credential
                .filter(|_| grant.kind == CredentialKind::Session);
            self.store
                .delete_credentials_of(player.id, CredentialKind::Session, keep)
                .await?;
        }
        Ok(())
    }

    /// Whether `player` has a password, and how many recovery codes are left.
    pub async fn credentials_summary(&self, player: &Player) -> Result<(bool, i64), Refusal> {
        let has_password = self.store.password_of(player.id).await?.is_some();
        let codes = self.store.recovery_codes_left(player.id).await?;
        Ok((has_password, codes))
    }

    /// Ten new recovery codes for `player`, replacing any left: shown only now.
    pub async fn new_recovery_codes(&self, player: &Player) -> Result<Vec<String>, Refusal> {
        let codes: Vec<String> = (0..RECOVERY_CODES).map(|_| new_recovery_code()).collect();
        let hashes: Vec<Vec<u8>> = codes.iter().map(|c| recovery_code_hash(c)).collect();
        self.store
            .replace_recovery_codes(player.id, &hashes)
            .await?;
        Ok(codes)
    }

    /// Refuses a sign-in that comes before its wait is over.
    async fn check_wait(&self, key: &str, free: i32) -> Result<(), Refusal> {
        if let Some((failures, last)) = self.store.sign_in_failures(key).await? {
            let wait = wait_secs(failures, last, self.now(), free);
            if wait > 0 {
                return Err(Refusal::SlowDown {
                    message: format!(
                        "too many failed sign-ins; try again in {wait} second{}",
                        if wait == 1 { "" } else { "s" }
                    ),
                    retry_after: wait,
                });
            }
        }
        Ok(())
    }

    /// Signs in as the player called `name` (or with that id), opening a web session on
    /// `device`.
    pub async fn sign_in(
        &self,
        name: &str,
        proof: Proof,
        address: Option<IpAddr>,
        device: &str,
    ) -> Result<NewSession, Refusal> {
        let by_id = Uuid::parse_str(name.trim()).ok();
        let account_key = match by_id {
            Some(id) => format!("id:{id}"),
            None => format!("name:{}", names::name_key(name)),
        };
        let address_key = address.map(|a| format!("addr:{a}"));
        self.check_wait(&account_key, FREE_FAILURES_PER_ACCOUNT)
            .await?;
        if let Some(k) = &address_key {
            self.check_wait(k, FREE_FAILURES_PER_ADDRESS).await?;
        }
        let id = match by_id {
            Some(id) => Some(id),
            None => self
                .store
                .name_key_holder(&names::name_key(name))
                .await?
                .map(|(id, _)| id),
        };
        let proven = match &proof {
            Proof::Password(password) => {
                let phc = match id {
                    Some(id) => self.store.password_of(id).await?,
                    None => None,
                };
                verify_password(password.clone(), phc).await?
            }
            Proof::RecoveryCode(code) => match id {
                Some(id) => {
                    self.store
                        .use_recovery_code(id, &recovery_code_hash(code))
                        .await?
                }
                None => false,
            },
        };
        let player = match (proven, id) {
            (true, Some(id)) => self.store.player(id).await?,
            _ => None,
        };
        let Some(player) = player else {
            let now = self.now();
            let forget_before = now - FAILURE_MEMORY;
            self.store
                .record_sign_in_failure(&account_key, now, forget_before)
                .await?;
            if let Some(k) = &address_key {
                self.store
                    .record_sign_in_failure(k, now, forget_before)
                    .await?;
            }
            return Err(Refusal::UnknownToken(match proof {
                Proof::Password(_) => "wrong name or password".into(),
                Proof::RecoveryCode(_) => "wrong name or recovery code".into(),
            }));
        };
        self.store.clear_sign_in_failures(&account_key).await?;
        self.open_session(player, device).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_guessable_passwords_are_refused() {
        for p in ["short", "password", "password1", "qwertyuiop", "aliceanna1"] {
            assert!(checked_password(p, &["alice"]).is_err(), "{p}");
        }
        assert!(checked_password("alicealice2026", &["alicealice"]).is_err());
        assert!(checked_password(&"x".repeat(MAX_PASSWORD + 1), &[]).is_err());
    }

    #[test]
    fn long_uncommon_passwords_pass_without_composition_rules() {
        for p in [
            "correct horse battery staple",
            "gloomy otter paints the quay",
            "ξένος σκύλος τρέχει γρήγορα",
        ] {
            assert!(checked_password(p, &["alice"]).is_ok(), "{p}");
        }
    }

    #[test]
    fn waits_double_after_the_free_failures() {
        let t = DateTime::<Utc>::UNIX_EPOCH;
        assert_eq!(wait_secs(4, t, t, 5), 0);
        assert_eq!(wait_secs(5, t, t, 5), 1);
        assert_eq!(wait_secs(6, t, t, 5), 2);
        assert_eq!(wait_secs(9, t, t, 5), 16);
        assert_eq!(wait_secs(9, t, t + chrono::Duration::seconds(10), 5), 6);
        assert_eq!(wait_secs(9, t, t + chrono::Duration::seconds(16), 5), 0);
        assert_eq!(wait_secs(60, t, t, 5), MAX_WAIT_SECS as u64);
        assert_eq!(wait_secs(60, t, t + FAILURE_MEMORY, 5), 0, "forgotten");
    }

    #[test]
    fn recovery_codes_are_read_without_case_or_separators() {
        let code = new_recovery_code();
        assert_eq!(code.len(), 17);
        assert_eq!(
            recovery_code_hash(&code),
            recovery_code_hash(&code.to_uppercase().replace('-', " "))
        );
    }

    #[tokio::test]
    async fn a_password_verifies_against_its_hash_only() {
        let phc = hash_password("gloomy otter paints the quay".into())
            .await
            .unwrap();
        assert!(phc.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(
            verify_password("gloomy otter paints the quay".into(), Some(phc.clone()))
                .await
                .unwrap()
        );
        assert!(
            !verify_password("gloomy otter paints the quay!".into(), Some(phc))
                .await
                .unwrap()
        );
        assert!(!verify_password("no one's password".into(), None)
            .await
            .unwrap());
    }
}
