//! `worp analyze backgammon`: the outcome positions of one position and roll.
//!
//! Input: one JSON line with `board` (24 ints, positive White, negative Black), `bar`
//! and `off` (`{"white": n, "black": n}`), `to_move` (`"white"`/`"black"`) and `dice`
//! (two values 1..6); other fields are ignored, so oracle corpus lines can be fed as they
//! are. Output: `{"outcomes": [...]}` in the corpus's position format and order, or
//! `{"error": "..."}` naming what is wrong.

use serde_json::{json, Map, Value};

use super::{Position, Side, Tally};

/// Analyses one input line; see the module doc.
pub fn analyze_line(line: &str) -> Value {
    match read(line) {
        Ok((pos, side, dice)) => match serde_json::to_value(pos.outcomes(side, dice)) {
            Ok(outcomes) => json!({ "outcomes": outcomes }),
            Err(e) => json!({ "error": format!("the outcomes could not be written as JSON: {e}") }),
        },
        Err(error) => json!({ "error": error }),
    }
}

fn read(line: &str) -> Result<(Position, Side, [u8; 2]), String> {
    let value: Value =
        serde_json::from_str(line).map_err(|e| format!("the line is not valid JSON: {e}"))?;
    let obj = value
        .as_object()
        .ok_or("the line must be a JSON object with board, bar, off, to_move and dice")?;
    let board = read_board(field(obj, "board")?)?;
    let bar = read_tally(field(obj, "bar")?, "bar")?;
    let off = read_tally(field(obj, "off")?, "off")?;
    let side = match field(obj, "to_move")?.as_str() {
        Some("white") => Side::White,
        Some("black") => Side::Black,
        _ => return Err("to_move must be \"white\" or \"black\"".into()),
    };
    let dice = read_dice(field(obj, "dice")?)?;
    let pos = Position { board, bar, off };
    for (i, v) in board.iter().enumerate() {
        if v.unsigned_abs() > 15 {
            return Err(format!(
                "board[{i}] (point {}) holds {v}: at most 15 checkers",
                i + 1
            ));
        }
    }
    pos.check()?;
    Ok((pos, side, dice))
}

fn field<'a>(obj: &'a Map<String, Value>, name: &str) -> Result<&'a Value, String> {
    obj.get(name)
        .ok_or_else(|| format!("the field {name} is missing"))
}

fn read_board(v: &Value) -> Result<[i8; 24], String> {
    let items = v.as_array().ok_or("board must be a list of 24 integers")?;
    if items.len() != 24 {
        return Err(format!("board must have 24 entries, not {}", items.len()));
    }
    let mut board = [0i8; 24];
    for (i, (slot, item)) in board.iter_mut().zip(items).enumerate() {
        *slot = item
            .as_i64()
            .and_then(|n| i8::try_from(n).ok())
            .ok_or_else(|| format!("board[{i}] must be an integer between -15 and 15"))?;
    }
    Ok(board)
}

fn read_tally(v: &Value, name: &str) -> Result<Tally, String> {
    let obj = v
        .as_object()
        .ok_or_else(|| format!("{name} must be an object {{\"white\": n, \"black\": n}}"))?;
    let get = |side: &str| {
        obj.get(side)
            .and_then(Value::as_u64)
            .and_then(|n| u8::try_from(n).ok())
            .filter(|n| *n <= 15)
            .ok_or_else(|| format!("{name}.{side} must be a count 0..15"))
    };
    Ok(Tally {
        white: get("white")?,
        black: get("black")?,
    })
}

fn read_dice(v: &Value) -> Result<[u8; 2], String> {
    let items = v
        .as_array()
        .ok_or("dice must be a list of two values 1..6")?;
    if items.len() != 2 {
        return Err(format!(
            "dice must hold two values (doubles are played four times), not {}",
            items.len()
        ));
    }
    let mut dice = [0u8; 2];
    for (slot, item) in dice.iter_mut().zip(items) {
        *slot = item
            .as_u64()
            .and_then(|n| u8::try_from(n).ok())
            .filter(|n| (1..=6).contains(n))
            .ok_or_else(|| format!("a die shows 1..6, not {item}"))?;
    }
    Ok(dice)
}
