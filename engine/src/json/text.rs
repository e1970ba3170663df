//! Strings and integers as JSON bytes: a string that needs no escaping, found so a
//! machine word at a time, is copied without serde_json's escape table.

use serde::ser;
use serde_json::Error;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `w` that JSON must escape (below 0x20, `"` or `\`),
/// and possibly of bytes above such a byte; zero when there is none ("Bit Twiddling
/// Hacks": exact for whether any byte is one).
#[inline]
fn escapes(w: u64) -> u64 {
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    let quote = w ^ (ONES * u64::from(b'"'));
    let backslash = w ^ (ONES * u64::from(b'\\'));
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    (control | quote | backslash) & HIGHS
}

/// The eight bytes of `bytes` from `at` as one word.
#[inline]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(w)
}

/// Four bytes of `bytes` from `at` as the low half of a word, the high half spaces
/// (which need no escaping).
#[inline]
fn half_word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&bytes[at..at + 4]);
    u64::from(u32::from_le_bytes(w)) | 0x2020_2020_0000_0000
}

/// Whether `text` has a byte JSON must escape: a control character, `"` or `\`.
#[inline]
fn needs_escaping(text: &[u8]) -> bool {
    let n = text.len();
    if n >= 8 {
        // Whole words, the last one overlapping the one before it.
        let mut at = 0;
        while at + 8 < n {
            if escapes(word(text, at)) != 0 {
                return true;
            }
            at += 8;
        }
        escapes(word(text, n - 8)) != 0
    } else if n >= 4 {
        escapes(half_word(text, 0)) | escapes(half_word(text, n - 4)) != 0
    } else {
        text.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\')
    }
}

/// `text` as a JSON string.
#[inline]
pub(super) fn write_str(out: &mut Vec<u8>, text: &str) -> Result<(), Error> {
    let bytes = text.as_bytes();
    if needs_escaping(bytes) {
        return ser::Serializer::serialize_str(&mut serde_json::Serializer::new(out), text);
    }
    write_plain(out, bytes);
    Ok(())
}

/// `bytes`, which need no escaping, in quotes. Up to 16 bytes are copied as two words
/// (the second overlapping the first), not by a call to `memcpy`.
#[inline]
pub(super) fn write_plain(out: &mut Vec<u8>, bytes: &[u8]) {
    let n = bytes.len();
    out.reserve(n + 2);
    out.push(b'"');
    if (8..=16).contains(&n) {
        let start = out.len();
        out.extend_from_slice(&word(bytes, 0).to_le_bytes());
        out.truncate(start + n - 8);
        out.extend_from_slice(&word(bytes, n - 8).to_le_bytes());
    } else if (4..8).contains(&n) {
        let start = out.len();
        out.extend_from_slice(&bytes[..4]);
        out.truncate(start + n - 4);
        out.extend_from_slice(&bytes[n - 4..]);
    } else {
        out.extend_from_slice(bytes);
    }
    out.push(b'"');
}

#[inline]
pub(super) fn write_integer<I: itoa::Integer>(out: &mut Vec<u8>, value: I) {
    out.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
}

/// `value` in decimal; one or two digits (most of a game's numbers) without `itoa`.
#[inline]
pub(super) fn write_unsigned(out: &mut Vec<u8>, value: u64) {
    if value < 10 {
        out.push(b'0' + value as u8);
    } else if value < 100 {
        out.extend_from_slice(&[b'0' + (value / 10) as u8, b'0' + (value % 10) as u8]);
    } else {
        write_integer(out, value);
    }
}
