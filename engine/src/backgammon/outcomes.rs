//! [`Position::outcomes`]: the generator's ways, sorted as the corpus sorts positions;
//! and [`Position::count_outcomes`], how many there are, on a buffer the caller keeps.
//!
//! Most searches write each result as the position itself, held as four words that a
//! step adds its change to (`movegen/words.rs`), and take their steps in an order near
//! that of the results: two numbers (`movegen/two_numbers.rs`), each put in its place
//! as it is found (their words compare as positions do) and twins dropped there; White's
//! doubles (`movegen/white_doubles.rs`) and Black's searched front first where no
//! checker can bear off (`movegen/front_first.rs`), found in order.
//!
//! Black's other doubles go through the generator's own search, which keys each result
//! (see `KeyUnits` in [`super::movegen`]); the keys order as the resulting positions do,
//! and determine them. They are ordered by a rank computed from their steps, or sorted
//! where a checker bears off, and each position is read straight from its key's digits,
//! a few word operations without a branch. Where the CPU has a fast `pdep` (BMI2), one
//! instruction spreads the digits ([`decode`]).

use std::cell::RefCell;

use super::movegen::{MoveGen, OutcomeWays};
use super::{Position, Side, Tally};

impl Position {
    /// Every distinct position `to_move` can reach by a legal full move with `dice`
    /// (doubles are played four times), sorted and without duplicates, like the oracle
    /// corpus. When no move is possible, the position itself is the one outcome. The
    /// position should hold 15 checkers per colour ([`Position::check`]) and dice show
    /// 1..=6; otherwise the answer is unspecified (but nothing panics).
    pub fn outcomes(&self, to_move: Side, dice: [u8; 2]) -> Vec<Position> {
        // The generator and the sort keys are reused from call to call on this thread.
        outcomes(self, to_move, dice)
    }

    /// How many outcome positions `dice` give (0 when the roll cannot be used), reusing
    /// the caller's generator buffer: the allocation-free count the benchmark measures.
    pub fn count_outcomes(
        &self,
        to_move: Side,
        dice: [u8; 2],
        counter: &mut OutcomeCounter,
    ) -> usize {
        counter.0.generate(self, to_move, dice).len()
    }
}

/// A reusable move-generator buffer for [`Position::count_outcomes`].
#[derive(Debug, Default, Clone)]
pub struct OutcomeCounter(MoveGen);

/// What [`outcomes`] reuses from call to call on one thread: the generator and its ways,
/// whose keys are sorted where it left them.
#[derive(Default)]
struct Scratch {
    movegen: MoveGen<OutcomeWays>,
}

thread_local! {
    /// The scratch [`outcomes`] reuses from call to call on this thread.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// [`Position::outcomes`], on this thread's generator (a fresh one if it is in use or
/// gone, never in practice).
fn outcomes(pos: &Position, side: Side, dice: [u8; 2]) -> Vec<Position> {
    SCRATCH
        .try_with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => sorted(&mut scratch, pos, side, dice),
            Err(_) => sorted(&mut Scratch::default(), pos, side, dice),
        })
        .unwrap_or_else(|_| sorted(&mut Scratch::default(), pos, side, dice))
}

/// The outcomes, from the ways found by the search for `side` with `dice` from `pos`.
fn sorted(scratch: &mut Scratch, pos: &Position, side: Side, dice: [u8; 2]) -> Vec<Position> {
    if dice[0] != dice[1] {
        let positions = scratch.movegen.two_numbers_in_order(pos, side, dice);
        if positions.is_empty() {
            return vec![*pos];
        }
        return positions;
    }
    let d = usize::from(dice[0]);
    match side {
        Side::White => {
            let positions = scratch.movegen.white_doubles_in_order(pos, d);
            if positions.is_empty() {
                return vec![*pos];
            }
            return positions.to_vec();
        }
        Side::Black => {
            if let Some(positions) = scratch.movegen.black_doubles_in_order(pos, d) {
                return positions.to_vec();
            }
        }
    }
    // Black's doubles the front-first search leaves: the generator's rear-first search
    // finds them in no useful order (22 inversions a way). Their ranks order them
    // (`OutcomeWays::ranked`), but for a search that bears a checker off, which the
    // standard sort sorts. A double's search finds no result twice (see
    // `OutcomeWays::push`).
    let ways = scratch.movegen.outcome_ways(pos, Side::Black, dice);
    if ways.keys.is_empty() {
        return vec![*pos];
    }
    if let Some(ranks) = ways.ranked() {
        // `u32`s sort faster than keys; a way's index rides in the low bits.
        ranks.sort_unstable();
        let keys = &ways.keys;
        let mask = super::movegen::MAX_RANKED as u32 - 1;
        let ordered = ways
            .ranks
            .iter()
            .map(|&r| keys.get((r & mask) as usize).copied().unwrap_or(0));
        return decode(pos, ordered);
    }
    ways.keys.sort_unstable();
    decode(pos, ways.keys.iter().copied())
}

/// [`decode_all`] with the digits spread by the CPU's `pdep` where it has a fast one (see
/// [`pdep_is_fast`]), by shifts and masks ([`spread`]) elsewhere: the same positions.
fn decode<K: ExactSizeIterator<Item = u128>>(pos: &Position, keys: K) -> Vec<Position> {
    #[cfg(target_arch = "x86_64")]
    if pdep_is_fast() {
        // SAFETY: `decode_bmi2` needs BMI2, which `pdep_is_fast` found on this CPU.
        return unsafe { decode_bmi2::<K>(pos, keys) };
    }
    decode_all(pos, keys, spread)
}

/// [`decode_all`] compiled for BMI2, its digits spread one to a byte by `pdep` (one
/// instruction for the eleven of [`spread`]).
///
/// # Safety
///
/// The CPU must have BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
unsafe fn decode_bmi2<K: ExactSizeIterator<Item = u128>>(pos: &Position, keys: K) -> Vec<Position> {
    decode_all(pos, keys, |digits| {
        // SAFETY: the caller's CPU has BMI2. (Newer Rust lets the closure inherit the
        // function's target features and makes this a safe call: hence the `allow`.)
        #[allow(unused_unsafe)]
        unsafe {
            std::arch::x86_64::_pdep_u64(digits, DIGIT_BYTES)
        }
    })
}

/// Whether this CPU has BMI2 and a fast `pdep` ([`fast_pdep`]). Asked once.
#[cfg(target_arch = "x86_64")]
fn pdep_is_fast() -> bool {
    static FAST: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FAST.get_or_init(|| {
        // SAFETY: `cpuid` is on every x86_64 CPU and has no other precondition (newer
        // Rust declares the function safe, older unsafe: hence the `allow`).
        #[allow(unused_unsafe)]
        let (vendor, signature) = unsafe {
            use std::arch::x86_64::__cpuid;
            (__cpuid(0), __cpuid(1).eax)
        };
        fast_pdep(
            std::arch::is_x86_feature_detected!("bmi2"),
            [vendor.ebx, vendor.edx, vendor.ecx],
            signature,
        )
    })
}

/// Whether `pdep` takes a few cycles on a CPU with BMI2 (`bmi2`), its vendor string
/// (`cpuid` leaf 0: `ebx`, `edx`, `ecx`) and its signature (leaf 1, `eax`): on every
/// Intel core, and AMD's from Zen 3 on (family 0x19). Zen 1 and 2, and Hygon's cores,
/// run it in microcode, up to hundreds of cycles for the 40 bits spread here.
#[cfg(any(target_arch = "x86_64", test))]
fn fast_pdep(bmi2: bool, vendor: [u32; 3], signature: u32) -> bool {
    const AMD: [u32; 3] = vendor_words(b"AuthenticAMD");
    const HYGON: [u32; 3] = vendor_words(b"HygonGenuine");
    if !bmi2 || vendor == HYGON {
        return false;
    }
    let base = (signature >> 8) & 0xF;
    let family = if base == 0xF {
        base + ((signature >> 20) & 0xFF)
    } else {
        base
    };
    vendor != AMD || family >= 0x19
}

/// A vendor string as `cpuid` returns it: four bytes a register, the first lowest.
#[cfg(any(target_arch = "x86_64", test))]
const fn vendor_words(name: &[u8; 12]) -> [u32; 3] {
    let mut words = [0; 3];
    let mut at = 0;
    while at < 12 {
        words[at / 4] = u32::from_le_bytes([name[at], name[at + 1], name[at + 2], name[at + 3]]);
        at += 4;
    }
    words
}

/// The bits of eight 5-bit digits spread one to a byte: the low five of each byte.
#[cfg(target_arch = "x86_64")]
const DIGIT_BYTES: u64 = 0x1F1F_1F1F_1F1F_1F1F;

/// Each byte of a word plus 128 (`^ BIAS`): signed point values then add and subtract
/// small counts bytewise in whole words without a carry or borrow into the next byte.
const BIAS: u64 = 0x8080_8080_8080_8080;
/// One in every byte.
const ONES: u64 = 0x0101_0101_0101_0101;
/// The bits of eight points' digits in a key, shifted down.
const EIGHT_DIGITS: u128 = (1 << 40) - 1;

/// The positions of `keys` (keys of Black's results from `pos`: only Black's doubles are
/// decoded), in their order.
///
/// A point's digit is `d = 31 − (2 × own checkers + hit)` for Black (see `KeyUnits`). A
/// hit happens only where a single White checker stood, and a point with Black's
/// checkers had none of White's, so the point's value is the start's White value (0 or
/// more) minus `own + hit`, which is 16 less `d / 2` rounded up: the start less 16, plus
/// `d / 2` rounded up. The hits go to White's bar: the even digits (where no blot stood,
/// the digits are odd). Black's bar and checkers off are the key's last two digits.
/// `spread` spreads eight digits one to a byte ([`spread`]).
///
/// Inlined into its callers, so that [`decode_bmi2`]'s `pdep` is inlined in turn.
#[inline(always)]
fn decode_all<K: ExactSizeIterator<Item = u128>>(
    pos: &Position,
    keys: K,
    spread: impl Fn(u64) -> u64 + Copy,
) -> Vec<Position> {
    // White's checkers per point, as three biased little-endian words, less 16 a byte:
    // the bytes that are not negative.
    let bytes = pos.board.map(|v| v.to_ne_bytes()[0]);
    let start = [0, 8, 16].map(|at| {
        let mut le = [0u8; 8];
        le.copy_from_slice(&bytes[at..at + 8]);
        let w = u64::from_le_bytes(le);
        let negative = ((w >> 7) & ONES) * 0xFF;
        ((w & !negative) ^ BIAS) - 16 * ONES
    });
    let [start0, start1, start2] = start;
    let white_bar = pos.bar.get(Side::White);
    let white_off = pos.off.get(Side::White);
    // Board indices 8c..8c+8 are the 40 bits from bit 88 − 40c, index 8c highest.
    keys.map(move |key| {
        let (w0, h0) = points((key >> 88) as u64, start0, spread);
        let (w1, h1) = points((key >> 48) as u64, start1, spread);
        let (w2, h2) = points((key >> 8) as u64, start2, spread);
        let mut bytes = [0u8; 24];
        bytes[..8].copy_from_slice(&w0.to_le_bytes());
        bytes[8..16].copy_from_slice(&w1.to_le_bytes());
        bytes[16..].copy_from_slice(&w2.to_le_bytes());
        let board = bytes.map(|b| i8::from_ne_bytes([b]));
        // Each byte of the low bits is at most 3: their sum fits the top byte.
        let odd = ((h0 + h1 + h2).wrapping_mul(ONES) >> 56) as u8;
        let hits = 24 - odd;
        let bar = Tally {
            white: white_bar.wrapping_add(hits),
            black: (key >> 4) as u8 & 15,
        };
        let off = Tally {
            white: white_off,
            black: key as u8 & 15,
        };
        Position { board, bar, off }
    })
    .collect()
}

/// Eight points' values from their digits (the low 40 bits of `digits`, the first
/// point's highest) and `start` (see [`decode_all`], one byte a point): the values as
/// one little-endian word, and a word with the low bit of each digit in its byte.
#[inline(always)]
fn points(digits: u64, start: u64, spread: impl Fn(u64) -> u64) -> (u64, u64) {
    let d = spread(digits & EIGHT_DIGITS as u64).swap_bytes();
    // Half of each digit, rounded up: the odd bit cleared, halved (nothing crosses into
    // the byte below), and added back.
    let odd = d & ONES;
    let half_up = ((d - odd) >> 1) + odd;
    ((start + half_up) ^ BIAS, odd)
}

/// Eight 5-bit digits (digit `k` at bits `5k..5k+5`) spread one to a byte (byte `k`).
#[inline(always)]
fn spread(x: u64) -> u64 {
    // Each step moves the upper half of every field up; one mask a step, so that the
    // constants stay in registers across a loop.
    const TEN: u64 = 0x0000_03FF_0000_03FF;
    const FIVE: u64 = 0x001F_001F_001F_001F;
    let x = (x & 0xF_FFFF) | ((x >> 20) << 32);
    let x = (x & TEN) | (((x >> 10) & TEN) << 16);
    (x & FIVE) | (((x >> 5) & FIVE) << 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_puts_each_digit_in_its_own_byte() {
        let mut rng = crate::playout::SplitMix64(11);
        for _ in 0..100_000 {
            let digits = rng.next_u64() & EIGHT_DIGITS as u64;
            let want = (0..8).fold(0, |w, k| w | ((digits >> (5 * k)) & 31) << (8 * k));
            assert_eq!(spread(digits), want, "{digits:#x}");
        }
    }

    #[test]
    fn fast_pdep_on_intel_and_on_amd_from_zen_3() {
        let intel = vendor_words(b"GenuineIntel");
        // As `cpuid` gives them: "Genu", "ineI", "ntel" in `ebx`, `edx`, `ecx`.
        assert_eq!(intel, [0x756E_6547, 0x4965_6E69, 0x6C65_746E]);
        let amd = vendor_words(b"AuthenticAMD");
        let hygon = vendor_words(b"HygonGenuine");
        // Signatures: Emerald Rapids; Zen 2, Zen 3, Zen 4, Zen 5; Hygon's Dhyana.
        assert!(fast_pdep(true, intel, 0x000C_06F2));
        assert!(!fast_pdep(false, intel, 0x000C_06F2));
        assert!(!fast_pdep(true, amd, 0x0083_0F10));
        assert!(fast_pdep(true, amd, 0x00A0_0F11));
        assert!(fast_pdep(true, amd, 0x00A1_0F11));
        assert!(fast_pdep(true, amd, 0x00B0_0F21));
        assert!(!fast_pdep(false, amd, 0x00B0_0F21));
        assert!(!fast_pdep(true, hygon, 0x0090_0F01));
    }

    /// With BMI2, `pdep`'s decode against the shifts' on every way of Black's every
    /// corpus position and roll: the same positions. (The outcome tests in
    /// `super::super::tests` run whichever this machine's CPU is given.)
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn decode_by_pdep_matches_decode_by_shifts() {
        if !std::arch::is_x86_feature_detected!("bmi2") {
            return;
        }
        let mut movegen = MoveGen::<OutcomeWays>::default();
        let mut decoded = 0;
        for pos in &super::super::tests::corpus_positions() {
            for dice in (1..=6).flat_map(|a| (1..=6).map(move |b| [a, b])) {
                let keys = &movegen.outcome_ways(pos, Side::Black, dice).keys;
                let shifts = decode_all(pos, keys.iter().copied(), spread);
                // SAFETY: BMI2 is on this CPU (checked above).
                let pdep = unsafe { decode_bmi2(pos, keys.iter().copied()) };
                assert_eq!(pdep, shifts, "{pos:?} {dice:?}");
                decoded += keys.len();
            }
        }
        assert!(decoded > 1_000_000, "{decoded} ways");
    }
}
