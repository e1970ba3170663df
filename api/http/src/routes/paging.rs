//! The `limit` and `offset` of a paged listing, checked the same way everywhere, and the
//! cursor (`after`) of the game listings.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::problem::ApiError;
use worp_domain::records::ListedAt;

/// The most rows a listing skips by `offset`. Skipping costs the database a read of every
/// row skipped, so a deeper offset would let one request cost in proportion to the whole
/// table; the game listings go on with their cursor (`next_cursor`, sent back as `after`),
/// which costs the same at any depth.
pub const MAX_OFFSET: i64 = 10_000;

/// `limit` (default `default`, 1 to `max`) and `offset` (default 0, 0 to [`MAX_OFFSET`]).
pub fn page(
    limit: Option<i64>,
    offset: Option<i64>,
    default: i64,
    max: i64,
) -> Result<(i64, i64), ApiError> {
    let limit = limit.unwrap_or(default);
    let offset = offset.unwrap_or(0);
    if !(1..=max).contains(&limit) {
        return Err(ApiError::BadRequest(format!("limit must be 1 to {max}")));
    }
    if !(0..=MAX_OFFSET).contains(&offset) {
        return Err(ApiError::BadRequest(format!(
            "offset must be 0 to {MAX_OFFSET}; to go further, follow next_cursor (the game \
             listings) or narrow the listing"
        )));
    }
    Ok((limit, offset))
}

/// `after` (a sequence number of a game's log, default 0, not negative) and `limit`
/// (default `default`, 1 to 1,000) of a page of a game's events or messages.
pub fn log_page(
    after: Option<i64>,
    limit: Option<i64>,
    default: i64,
) -> Result<(i64, i64), ApiError> {
    let (after, limit) = (after.unwrap_or(0), limit.unwrap_or(default));
    if after < 0 || !(1..=1000).contains(&limit) {
        return Err(ApiError::BadRequest(
            "after must be 0 or more and limit 1 to 1000".into(),
        ));
    }
    Ok((after, limit))
}

/// The offset of the page after one of `limit` rows at `offset`, unless it lies beyond
/// what an offset may skip (saturating: the sum is checked against the bound, not
/// trusted).
pub fn next_offset(offset: i64, limit: i64) -> Option<i64> {
    Some(offset.saturating_add(limit)).filter(|next| *next <= MAX_OFFSET)
}

/// The cursor of a game listing after `at`: the time of its last change in seconds and
/// nanoseconds, and its id (`1764020207.264041000_ea9644ad11384775bc87d714080ffd3c`).
/// Clients pass it back as it is.
pub fn game_cursor(at: &ListedAt) -> String {
    format!(
        "{}.{:09}_{}",
        at.updated_at.timestamp(),
        at.updated_at.timestamp_subsec_nanos(),
        at.id.simple()
    )
}

/// Reads a cursor made by [`game_cursor`].
pub fn parse_game_cursor(text: &str) -> Result<ListedAt, ApiError> {
    let bad = || {
        ApiError::BadRequest(
            "after must be a next_cursor this server gave, passed back unchanged".into(),
        )
    };
    let (time, id) = text.split_once('_').ok_or_else(bad)?;
    let (seconds, nanos) = time.split_once('.').ok_or_else(bad)?;
    if nanos.len() != 9 || !nanos.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let seconds: i64 = seconds.parse().map_err(|_| bad())?;
    let nanos: u32 = nanos.parse().map_err(|_| bad())?;
    let updated_at: DateTime<Utc> = DateTime::from_timestamp(seconds, nanos).ok_or_else(bad)?;
    let id = Uuid::try_parse(id).map_err(|_| bad())?;
    Ok(ListedAt { updated_at, id })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_as_the_place_it_was_made_from() {
        let at = ListedAt {
            updated_at: DateTime::from_timestamp(1_764_020_207, 264_041_123).expect("time"),
            id: Uuid::from_u128(0xea96_44ad_1138_4775_bc87_d714_080f_fd3c),
        };
        let text = game_cursor(&at);
        assert_eq!(
            text,
            "1764020207.264041123_ea9644ad11384775bc87d714080ffd3c"
        );
        assert_eq!(parse_game_cursor(&text).expect("cursor"), at);
    }

    #[test]
    fn anything_else_is_refused_as_a_cursor() {
        for text in [
            "",
            "_",
            "1764020207_ea9644ad11384775bc87d714080ffd3c",
            "1764020207.26404_ea9644ad11384775bc87d714080ffd3c",
            "1764020207.+26404112_ea9644ad11384775bc87d714080ffd3c",
            "1764020207.264041123_not-a-uuid",
            "99999999999999999999.000000000_ea9644ad11384775bc87d714080ffd3c",
            "9223372036854775807.000000000_ea9644ad11384775bc87d714080ffd3c",
        ] {
            assert!(parse_game_cursor(text).is_err(), "{text:?} was read");
        }
    }

    #[test]
    fn an_offset_beyond_the_bound_is_refused() {
        assert_eq!(
            page(None, Some(MAX_OFFSET), 50, 200).expect("page"),
            (50, MAX_OFFSET)
        );
        assert!(page(None, Some(MAX_OFFSET + 1), 50, 200).is_err());
        assert!(page(None, Some(i64::MAX), 50, 200).is_err());
        assert!(page(None, Some(-1), 50, 200).is_err());
        assert!(page(Some(0), None, 50, 200).is_err());
        assert_eq!(next_offset(9_950, 50), Some(MAX_OFFSET));
        assert_eq!(next_offset(MAX_OFFSET, 50), None);
    }
}
