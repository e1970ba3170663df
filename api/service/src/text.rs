//! Checks of the strings that enter the server and are stored: names, seeds, URLs, retry
//! keys, and the JSON of moves and options. PostgreSQL keeps no U+0000 in `text` or
//! `jsonb` ("unsupported Unicode escape sequence"), so such a string would fail its
//! write with a server error on one backend and be kept on the other: both refuse it
//! here, before the engine or the database sees it.

use serde_json::Value;

use super::refusal::Refusal;

/// The longest client seed accepted, in bytes.
pub const MAX_CLIENT_SEED: usize = 256;

/// `text` as a stored single-line string: no control characters at all (C0, DEL, C1),
/// U+0000 included.
pub fn check_plain(field: &str, text: &str) -> Result<(), Refusal> {
    if text.chars().any(char::is_control) {
        return Err(Refusal::Invalid(format!(
            "{field} must not contain control characters"
        )));
    }
    Ok(())
}

/// Bidirectional formatting characters: embeddings and overrides (U+202A to U+202E),
/// isolates (U+2066 to U+2069) and the marks (U+200E, U+200F, U+061C). They reorder how
/// the text around them is shown ("\u{202E}ecila" shows as "alice"), so that what a
/// reader sees is not what was written.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Characters that show nothing: Unicode's Default_Ignorable_Code_Point (zero-width
/// spaces and joiners, U+FEFF, the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0,
/// variation selectors, tags, ...), the blank Braille pattern U+2800, and white space.
/// The property's ranges are those of Unicode's DerivedCoreProperties.txt (stable: code
/// points are only ever added to it from its reserved ranges, already listed here).
pub fn is_invisible(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{061C}'
                | '\u{115F}'..='\u{1160}'
                | '\u{17B4}'..='\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{2800}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF0}'..='\u{FFF8}'
                | '\u{1BCA0}'..='\u{1BCA3}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}

/// Text shown to other players as written (messages; names are checked by this and
/// more, `names::checked_name`): no bidirectional formatting characters
/// ([`is_bidi_control`]), no line or paragraph separators (U+2028, U+2029), and at least
/// one character that shows something ([`is_invisible`]). Control characters are
/// [`check_plain`]'s concern (a message may allow line feeds where a name does not).
pub fn check_shown_text(field: &str, text: &str) -> Result<(), Refusal> {
    if let Some(c) = text.chars().find(|&c| is_bidi_control(c)) {
        return Err(Refusal::Invalid(format!(
            "{field} must not contain bidirectional formatting characters (U+{:04X} \
             changes how the text around it is shown)",
            u32::from(c)
        )));
    }
    if text.contains(['\u{2028}', '\u{2029}']) {
        return Err(Refusal::Invalid(format!(
            "{field} must not contain line or paragraph separators (U+2028, U+2029)"
        )));
    }
    if let Some(c) = text.chars().find(|&c| is_noncharacter(c)) {
        return Err(Refusal::Invalid(format!(
            "{field} must not contain noncharacters (U+{:04X} is reserved for a program's \
             own use, never for text)",
            u32::from(c)
        )));
    }
    if text.chars().all(is_invisible) {
        return Err(Refusal::Invalid(format!(
            "{field} must contain something visible, not only spaces or invisible characters"
        )));
    }
    Ok(())
}

/// Unicode's 66 noncharacters: U+FDD0 to U+FDEF, and the last two code points of each
/// plane (U+FFFE, U+FFFF, U+1FFFE, ...).
fn is_noncharacter(c: char) -> bool {
    let c = u32::from(c);
    (0xFDD0..=0xFDEF).contains(&c) || c & 0xFFFE == 0xFFFE
}

/// A client seed: at most [`MAX_CLIENT_SEED`] bytes of plain text.
pub fn check_client_seed(seed: &Option<String>) -> Result<(), Refusal> {
    match seed {
        Some(s) if s.len() > MAX_CLIENT_SEED => Err(Refusal::Invalid(format!(
            "client_seed is {} bytes; at most {MAX_CLIENT_SEED} are allowed",
            s.len()
        ))),
        Some(s) => check_plain("client_seed", s),
        None => Ok(()),
    }
}

/// JSON to be stored: no string and no object key in it holds U+0000 (other control
/// characters are ordinary JSON text and kept as they are).
pub fn check_json(field: &str, value: &Value) -> Result<(), Refusal> {
    let nul = |s: &str| s.contains('\0');
    // Iterative: a deep value costs no stack (serde_json refuses over 128 levels anyway).
    let mut todo = vec![value];
    while let Some(v) = todo.pop() {
        let found = match v {
            Value::String(s) => nul(s),
            Value::Array(items) => {
                todo.extend(items);
                false
            }
            Value::Object(map) => {
                todo.extend(map.values());
                map.keys().any(|k| nul(k))
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => false,
        };
        if found {
            return Err(Refusal::Invalid(format!(
                "{field} must not contain U+0000 in any string"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_text_refuses_every_control_character() {
        assert!(check_plain("f", "a seed: ünïcode ✓").is_ok());
        for bad in ["a\0b", "\u{7}", "tab\t", "line\n", "\u{7f}", "\u{85}"] {
            assert!(check_plain("f", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn shown_text_refuses_bidi_controls_separators_and_nothing_visible() {
        for good in [
            "hello",
            "a b",
            "line\nbreak",
            "naïve ✓",
            "\u{200B}x",
            "مرحبا",
        ] {
            assert!(check_shown_text("t", good).is_ok(), "{good:?}");
        }
        let bidi = [
            "\u{202A}",
            "\u{202B}",
            "\u{202C}",
            "\u{202D}",
            "\u{202E}ecila",
            "\u{2066}",
            "\u{2067}",
            "\u{2068}",
            "\u{2069}",
            "\u{200E}",
            "\u{200F}",
            "\u{061C}",
        ];
        for c in bidi {
            assert!(check_shown_text("t", &format!("x{c}y")).is_err(), "{c:?}");
        }
        for sep in ["a\u{2028}b", "a\u{2029}b"] {
            assert!(check_shown_text("t", sep).is_err(), "{sep:?}");
        }
        for nonchar in [
            "a\u{FFFF}",
            "\u{FFFE}b",
            "a\u{FDD0}",
            "a\u{FDEF}",
            "a\u{10FFFF}",
        ] {
            assert!(check_shown_text("t", nonchar).is_err(), "{nonchar:?}");
        }
        for near in ["a\u{FDCF}", "a\u{FDF0}", "a\u{FFFD}", "a\u{1FFFD}"] {
            assert!(check_shown_text("t", near).is_ok(), "{near:?}");
        }
        let blank = [
            "",
            " ",
            "\u{200B}",
            "\u{FEFF}",
            "\u{3164}",
            "\u{2800}\u{2800}",
            "\u{115F}",
            "\u{1160}",
            "\u{FFA0}",
            " \u{200B}\u{FEFF}\u{3164} ",
            "\u{3000}",
        ];
        for t in blank {
            assert!(check_shown_text("t", t).is_err(), "{t:?}");
        }
    }

    #[test]
    fn json_refuses_nul_in_strings_and_keys_at_any_depth() {
        assert!(check_json("m", &json!({"a": [1, "x\ny", {"b": null}]})).is_ok());
        for bad in [
            json!("\0"),
            json!({"k\0": 1}),
            json!([[[{"deep": ["ok", "no\0"]}]]]),
        ] {
            assert!(check_json("m", &bad).is_err(), "{bad}");
        }
    }
}
