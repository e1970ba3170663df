use actix_web::{get, HttpResponse};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use worp_engine::variants;

use crate::problem::ApiError;

/// A game the server plays.
#[derive(Serialize, ToSchema)]
pub struct VariantInfo {
    /// The name to create games with.
    pub name: &'static str,
    pub title: &'static str,
    pub min_seats: u8,
    pub max_seats: u8,
    /// The options with their defaults.
    pub default_options: Value,
    /// JSON Schema of the options (`$defs` inside).
    pub options_schema: Value,
    /// JSON Schema of one move (an element of `legal_moves`).
    pub move_schema: Value,
    /// JSON Schema of the game's `state`.
    pub state_schema: Value,
}

/// Makes a schema self-contained: named schemas go to `$defs`, references follow.
fn self_contained(root: Value, components: &[(String, Value)]) -> Value {
    fn rewrite(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for (k, val) in map.iter_mut() {
                    if k == "$ref" {
                        if let Value::String(s) = val {
                            if let Some(name) = s.strip_prefix("#/components/schemas/") {
                                *s = format!("#/$defs/{name}");
                            }
                        }
                    } else {
                        rewrite(val);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(rewrite),
            _ => {}
        }
    }
    let mut root = root;
    rewrite(&mut root);
    if !components.is_empty() {
        let defs: serde_json::Map<String, Value> = components
            .iter()
            .map(|(name, s)| {
                let mut s = s.clone();
                rewrite(&mut s);
                (name.clone(), s)
            })
            .collect();
        let mut out = match root {
            Value::Object(m) => m,
            other => {
                let mut m = serde_json::Map::new();
                m.insert("allOf".into(), Value::Array(vec![other]));
                m
            }
        };
        out.insert("$defs".into(), Value::Object(defs));
        root = Value::Object(out);
    }
    root
}

/// Every registered game, for `GET /v1/variants`; an error if a schema does not
/// serialise.
pub fn variant_infos() -> Result<Vec<VariantInfo>, serde_json::Error> {
    variants()
        .iter()
        .map(|v| {
            let s = v.schemas();
            let comps = s
                .components
                .iter()
                .map(|(n, c)| Ok((n.clone(), serde_json::to_value(c)?)))
                .collect::<Result<Vec<(String, Value)>, serde_json::Error>>()?;
            let json = serde_json::to_value;
            Ok(VariantInfo {
                name: v.name,
                title: v.title,
                min_seats: v.min_seats,
                max_seats: v.max_seats,
                default_options: v.default_options().map_err(serde::ser::Error::custom)?,
                options_schema: self_contained(json(s.options)?, &comps),
                move_schema: self_contained(json(s.mv)?, &comps),
                state_schema: self_contained(json(s.state)?, &comps),
            })
        })
        .collect()
}

/// Lists every game with its options, their JSON Schema, and its seat limits.
#[utoipa::path(
    tag = "variants",
    responses((status = 200, description = "The games this server plays", body = Vec<VariantInfo>))
)]
#[get("/v1/variants")]
pub async fn list_variants() -> Result<HttpResponse, ApiError> {
    let infos = variant_infos().map_err(|e| ApiError::unserialisable("the games' schemas", e))?;
    Ok(HttpResponse::Ok().json(infos))
}
