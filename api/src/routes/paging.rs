//! The `limit` and `offset` of a paged listing, checked the same way everywhere.

use crate::problem::ApiError;

/// `limit` (default `default`, 1 to `max`) and `offset` (default 0, not negative).
pub fn page(
    limit: Option<i64>,
    offset: Option<i64>,
    default: i64,
    max: i64,
) -> Result<(i64, i64), ApiError> {
    let limit = limit.unwrap_or(default);
    let offset = offset.unwrap_or(0);
    if !(1..=max).contains(&limit) || offset < 0 {
        return Err(ApiError::BadRequest(format!(
            "limit must be 1 to {max} and offset 0 or more"
        )));
    }
    Ok((limit, offset))
}
