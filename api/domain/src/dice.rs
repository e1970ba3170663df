//! Dice nobody can rig and everybody can check.
//!
//! At creation the server draws a secret 32-byte seed and publishes only its SHA-256.
//! Die number `n` of a game (counting every die rolled in it from 0) is derived from
//! HMAC-SHA256 keyed with the server seed over
//! `"worp-dice-v1" || for each seat in order: u32 BE length || client seed bytes ||
//! u64 BE n || u32 BE attempt`, attempt = 0, 1, …: the first byte `b` of the MAC below
//! the largest multiple of the face count picks face `b mod faces` (rejection sampling:
//! no modulo bias). The final event reveals the seed.

use hmac::{Hmac, Mac};
use rand::TryRngCore;
use sha2::{Digest, Sha256};
use worp_engine::Die;

/// A fresh secret server seed from the operating system's randomness.
pub fn new_server_seed() -> Result<[u8; 32], rand::rand_core::OsError> {
    let mut seed = [0u8; 32];
    rand::rngs::OsRng.try_fill_bytes(&mut seed)?;
    Ok(seed)
}

/// The published commitment to a server seed: hex SHA-256.
pub fn commitment(server_seed: &[u8]) -> String {
    hex::encode(Sha256::digest(server_seed))
}

/// The face shown by die number `index` of a game.
pub fn roll(server_seed: &[u8], client_seeds: &[Option<String>], index: u64, die: &Die) -> u8 {
    let faces = die.faces.len().clamp(1, 256);
    let limit = 256 - (256 % faces);
    for attempt in 0u32.. {
        let mut mac = match Hmac::<Sha256>::new_from_slice(server_seed) {
            Ok(m) => m,
            Err(_) => return die.faces[0],
        };
        mac.update(b"worp-dice-v1");
        for seed in client_seeds {
            let bytes = seed.as_deref().unwrap_or("").as_bytes();
            mac.update(&(bytes.len() as u32).to_be_bytes());
            mac.update(bytes);
        }
        mac.update(&index.to_be_bytes());
        mac.update(&attempt.to_be_bytes());
        let out = mac.finalize().into_bytes();
        if let Some(b) = out.iter().map(|b| usize::from(*b)).find(|b| *b < limit) {
            return die.faces[b % faces];
        }
    }
    die.faces[0]
}

/// Random bits for a bot's choice after event `version`, derived from the server seed
/// (so bots cannot be predicted by players before the seed is revealed).
pub fn bot_entropy(server_seed: &[u8], version: i64) -> u64 {
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(server_seed) else {
        return 0;
    };
    mac.update(b"worp-bot-v1");
    mac.update(&version.to_be_bytes());
    let out = mac.finalize().into_bytes();
    let mut bits = [0u8; 8];
    bits.copy_from_slice(&out[..8]);
    u64::from_be_bytes(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rolls_are_deterministic_and_depend_on_every_input() {
        let seed = [7u8; 32];
        let seeds = vec![Some("alice".to_string()), None];
        let a: Vec<u8> = (0..50).map(|n| roll(&seed, &seeds, n, &Die::D6)).collect();
        let b: Vec<u8> = (0..50).map(|n| roll(&seed, &seeds, n, &Die::D6)).collect();
        assert_eq!(a, b);
        let other: Vec<u8> = (0..50)
            .map(|n| roll(&seed, &[Some("bob".into()), None], n, &Die::D6))
            .collect();
        assert_ne!(a, other);
        assert!(a.iter().all(|v| (1..=6).contains(v)));
    }

    #[test]
    fn every_face_comes_up_about_equally() {
        let seed = [42u8; 32];
        let mut counts = [0u32; 6];
        for n in 0..60_000 {
            counts[usize::from(roll(&seed, &[], n, &Die::D6) - 1)] += 1;
        }
        // Expected 10,000 each; 5 standard deviations is about 456.
        assert!(
            counts.iter().all(|c| (9_500..=10_500).contains(c)),
            "{counts:?}"
        );
    }

    #[test]
    fn commitment_is_sha256_of_the_seed() {
        assert_eq!(
            commitment(&[0u8; 32]),
            "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
        );
    }
}
