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
