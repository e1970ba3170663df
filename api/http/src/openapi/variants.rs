//! The game-specific parts of the document: each registered variant's options, state and
//! move as named schemas, and the game, its create request and a move request typed by
//! them: `Game` is a union of `BackgammonGame`, `LudoGame`, … keyed by `variant`, so a
//! generated client narrows `game.state` to `BackgammonState` once it has checked
//! `game.variant === "backgammon"`.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};
use worp_engine::Variant;

/// `#/components/schemas/{name}`.
pub fn schema_ref(name: &str) -> String {
    format!("#/components/schemas/{name}")
}

/// `mens_erger_je_niet` → `MensErgerJeNiet`: the prefix of a variant's schema names.
pub fn pascal(name: &str) -> String {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            cs.next()
                .map(|c| c.to_ascii_uppercase().to_string() + cs.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// One variant's schemas as JSON, references still under their engine names.
struct Parts {
    name: &'static str,
    title: &'static str,
    prefix: String,
    options: Value,
    state: Value,
    mv: Value,
    components: Vec<(String, Value)>,
}

fn parts(v: &Variant) -> Result<Parts, serde_json::Error> {
    let s = v.schemas();
    let json = serde_json::to_value;
    Ok(Parts {
        name: v.name,
        title: v.title,
        prefix: pascal(v.name),
        options: json(&s.options)?,
        state: json(&s.state)?,
        mv: json(&s.mv)?,
        components: s
            .components
            .iter()
            .map(|(n, c)| Ok((n.clone(), json(c)?)))
            .collect::<Result<_, serde_json::Error>>()?,
    })
}

/// Rewrites every `#/components/schemas/X` in `v` to `#/components/schemas/names[X]`.
fn rename_refs(v: &mut Value, names: &BTreeMap<String, String>) {
    match v {
        Value::Object(map) => {
            for (k, x) in map.iter_mut() {
                match (k.as_str(), x) {
                    ("$ref", Value::String(r)) => {
                        if let Some(new) = r
                            .strip_prefix("#/components/schemas/")
                            .and_then(|n| names.get(n))
                        {
                            *r = format!("#/components/schemas/{new}");
                        }
                    }
                    (_, x) => rename_refs(x, names),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|x| rename_refs(x, names)),
        _ => {}
    }
}

/// The name each variant gives each of its components in the document. A name keeps its
/// engine spelling when the games share it: several variants, or a variant and the rest
/// of the document, mean the same schema by it (`GameResult`, `Seat`, `Colour`).
/// Otherwise each variant's schema of that name is prefixed with the variant
/// (`MensErgerJeNietPawn`, `HoofdenPawn`, `HoofdenMove`).
fn component_names(all: &[Parts], document: &Map<String, Value>) -> Vec<BTreeMap<String, String>> {
    // Each name's schemas, one per variant (a variant may list a component twice).
    let mut meanings: BTreeMap<&str, BTreeMap<usize, &Value>> = BTreeMap::new();
    for (i, p) in all.iter().enumerate() {
        for (n, s) in &p.components {
            meanings.entry(n).or_default().insert(i, s);
        }
    }
    let shared = |n: &str| {
        let Some(ss) = meanings.get(n) else {
            return false;
        };
        let ss: Vec<&Value> = ss.values().copied().collect();
        let same = ss.iter().all(|s| *s == ss[0]);
        match document.get(n) {
            Some(d) => same && ss[0] == d,
            None => same && ss.len() > 1,
        }
    };
    all.iter()
        .map(|p| {
            p.components
                .iter()
                .map(|(n, _)| {
                    let new = if n.starts_with(&p.prefix) || shared(n) {
                        n.clone()
                    } else {
                        format!("{}{n}", p.prefix)
                    };
                    (n.clone(), new)
                })
                .collect()
        })
        .collect()
}

/// Adds `schema` as `name`, unless the same schema is there already; a different schema
/// of that name is a clash, answered with the name used instead.
fn add_named(schemas: &mut Map<String, Value>, name: String, schema: Value) -> String {
    match schemas.get(&name) {
        None => {
            schemas.insert(name.clone(), schema);
            name
        }
        Some(existing) if *existing == schema => name,
        Some(_) => add_named(schemas, format!("{name}Root"), schema),
    }
}

/// A variant's root schema (options, state or move) under `name`, or the component it
/// merely refers to.
fn add_root(schemas: &mut Map<String, Value>, name: String, root: Value) -> String {
    if let Some(target) = root
        .as_object()
        .filter(|m| m.len() == 1)
        .and_then(|m| m.get("$ref"))
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
    {
        return target.to_owned();
    }
    add_named(schemas, name, root)
}

/// The names of one variant's options, state and move schemas in the document.
pub struct VariantNames {
    pub name: &'static str,
    pub prefix: String,
    pub options: String,
    pub state: String,
    pub mv: String,
}

/// Adds every variant's schemas to `doc` and turns `GameView` into a union by variant,
/// `CreateGame` into a union of per-variant create requests, and types `MoveRequest.move`.
/// An error if a variant's schemas do not serialise.
pub fn add(doc: &mut Value, variants: &[Variant]) -> Result<(), serde_json::Error> {
    let all = variants
        .iter()
        .map(parts)
        .collect::<Result<Vec<Parts>, _>>()?;
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return Ok(());
    };
    let names = component_names(&all, schemas);
    let mut added = Vec::new();
    for (p, names) in all.into_iter().zip(&names) {
        for (n, mut s) in p.components {
            rename_refs(&mut s, names);
            let name = names.get(&n).cloned().unwrap_or(n);
            add_named(schemas, name, s);
        }
        let mut root = |kind: &str, mut schema: Value| {
            rename_refs(&mut schema, names);
            add_root(schemas, format!("{}{kind}", p.prefix), schema)
        };
        let options = root("Options", p.options);
        let state = root("State", p.state);
        let mv = root("Move", p.mv);
        added.push((
            p.title,
            VariantNames {
                name: p.name,
                prefix: p.prefix,
                options,
                state,
                mv,
            },
        ));
    }
    split_game(schemas, &added);
    split_create(schemas, &added);
    type_move_request(schemas, &added);
    Ok(())
}

/// One schema per variant made from the object schema `base` by `fill`, and the union of
/// them under `union` keyed by `key`.
pub fn union_of(
    schemas: &mut Map<String, Value>,
    union: &str,
    key: &str,
    description: &str,
    members: Vec<(String, String, Value)>,
) {
    let mapping: Map<String, Value> = members
        .iter()
        .map(|(value, name, _)| (value.clone(), Value::String(schema_ref(name))))
        .collect();
    let one_of: Vec<Value> = members
        .iter()
        .map(|(_, name, _)| json!({ "$ref": schema_ref(name) }))
        .collect();
    for (_, name, schema) in members {
        schemas.insert(name, schema);
    }
    schemas.insert(
        union.to_owned(),
        json!({
            "oneOf": one_of,
            "discriminator": { "propertyName": key, "mapping": mapping },
            "description": description,
        }),
    );
}

/// `base` with `key` fixed to `value`.
pub fn with_constant(base: &Value, key: &str, value: &str, description: String) -> Value {
    let mut s = base.clone();
    if let Some(m) = s.as_object_mut() {
        m.insert("description".into(), Value::String(description));
    }
    set_property(&mut s, key, json!({ "type": "string", "enum": [value] }));
    s
}

/// Replaces the property `key` of an object schema, keeping its description.
pub fn set_property(schema: &mut Value, key: &str, mut new: Value) {
    let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    if let (Some(d), Some(m)) = (
        props.get(key).and_then(|p| p.get("description")).cloned(),
        new.as_object_mut(),
    ) {
        m.entry("description").or_insert(d);
    }
    props.insert(key.to_owned(), new);
}

fn split_game(schemas: &mut Map<String, Value>, variants: &[(&str, VariantNames)]) {
    let Some(base) = schemas.remove("GameView") else {
        return;
    };
    let members = variants
        .iter()
        .map(|(title, v)| {
            let mut s = with_constant(
                &base,
                "variant",
                v.name,
                format!("A game of {title} as the API shows it."),
            );
            set_property(&mut s, "options", json!({ "$ref": schema_ref(&v.options) }));
            set_property(&mut s, "state", json!({ "$ref": schema_ref(&v.state) }));
            set_property(
                &mut s,
                "legal_moves",
                json!({ "type": "array", "items": { "$ref": schema_ref(&v.mv) } }),
            );
            (v.name.to_owned(), format!("{}Game", v.prefix), s)
        })
        .collect();
    union_of(
        schemas,
        "GameView",
        "variant",
        "A game as the API shows it: one schema per variant, told apart by `variant`.",
        members,
    );
}

fn split_create(schemas: &mut Map<String, Value>, variants: &[(&str, VariantNames)]) {
    let Some(base) = schemas.remove("CreateGame") else {
        return;
    };
    let example = base.get("example").cloned();
    let members = variants
        .iter()
        .map(|(title, v)| {
            let mut s = with_constant(
                &base,
                "variant",
                v.name,
                format!("`POST /v1/games` for a game of {title}."),
            );
            if let Some(m) = s.as_object_mut() {
                m.remove("example");
            }
            set_property(&mut s, "options", json!({ "$ref": schema_ref(&v.options) }));
            (v.name.to_owned(), format!("Create{}Game", v.prefix), s)
        })
        .collect();
    union_of(
        schemas,
        "CreateGame",
        "variant",
        "`POST /v1/games`: one schema per variant, told apart by `variant`.",
        members,
    );
    if let (Some(example), Some(m)) = (
        example,
        schemas.get_mut("CreateGame").and_then(Value::as_object_mut),
    ) {
        m.insert("example".into(), example);
    }
}

fn type_move_request(schemas: &mut Map<String, Value>, variants: &[(&str, VariantNames)]) {
    let Some(request) = schemas.get_mut("MoveRequest") else {
        return;
    };
    let any_of: Vec<Value> = variants
        .iter()
        .map(|(_, v)| json!({ "$ref": schema_ref(&v.mv) }))
        .collect();
    set_property(request, "move", json!({ "anyOf": any_of }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_names_become_schema_prefixes() {
        assert_eq!(pascal("mens_erger_je_niet"), "MensErgerJeNiet");
        assert_eq!(pascal("backgammon"), "Backgammon");
        assert_eq!(pascal("ali-baba"), "AliBaba");
    }

    #[test]
    fn a_name_two_variants_mean_differently_by_is_prefixed_for_each() {
        let p = |name: &'static str, pawn: Value| Parts {
            name,
            title: name,
            prefix: pascal(name),
            options: json!({}),
            state: json!({}),
            mv: json!({}),
            // A variant may list a component twice.
            components: vec![
                ("Pawn".into(), pawn.clone()),
                (format!("{}Thing", pascal(name)), json!({})),
                ("Seat".into(), json!({"type": "integer"})),
                ("Pawn".into(), pawn),
            ],
        };
        let all = [
            p("ludo", json!({"type": "integer"})),
            p("hoofden", json!({"type": "object"})),
        ];
        let names = component_names(&all, &Map::new());
        assert_eq!(names[0]["Pawn"], "LudoPawn");
        assert_eq!(names[0]["LudoThing"], "LudoThing");
        assert_eq!(names[1]["Pawn"], "HoofdenPawn");
        assert_eq!(names[0]["Seat"], "Seat");
        let mut document = Map::new();
        document.insert("Seat".into(), json!({"type": "string"}));
        let names = component_names(&all, &document);
        assert_eq!(names[1]["Seat"], "HoofdenSeat");
    }
}
