//! Where the time comes from: one injectable clock, so tests can move it. Nothing in the
//! server reads the time but through a [`Clock`].

use chrono::{DateTime, Utc};

/// The source of the current time.
pub trait Clock: Send + Sync + std::fmt::Debug {
    fn now(&self) -> DateTime<Utc>;
}

/// The system's clock.
#[derive(Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// Writes a time as chrono's own `Serialize` does (RFC 3339 in UTC with `Z`, with as many
/// fractional digits as the time has: `to_rfc3339_opts(AutoSi, true)`, the same function
/// and arguments), but as one string. chrono hands the serializer the pieces one by one
/// (`collect_str`), and serde_json escapes each piece on its own: about 2,400
/// instructions a time, against a few hundred here. For `#[serde(serialize_with)]` on the
/// views written with every move (`GameView`, `GameSummary`) and the lists read in bulk
/// (events, messages).
pub fn rfc3339<S: serde::Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
}

/// [`rfc3339`] for an optional time (`null` when absent, as chrono's writes it).
pub fn rfc3339_option<S: serde::Serializer>(
    t: &Option<DateTime<Utc>>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => rfc3339(t, s),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, NaiveDate, TimeZone, Utc};
    use serde::Serialize;

    #[derive(Serialize)]
    struct Both {
        #[serde(serialize_with = "super::rfc3339")]
        ours: DateTime<Utc>,
        chrono: DateTime<Utc>,
        #[serde(serialize_with = "super::rfc3339_option")]
        ours_option: Option<DateTime<Utc>>,
        chrono_option: Option<DateTime<Utc>>,
    }

    /// Our text and chrono's for `t`, and for `Some(t)`.
    fn texts(t: DateTime<Utc>) -> [(String, String); 2] {
        let v = serde_json::to_value(Both {
            ours: t,
            chrono: t,
            ours_option: Some(t),
            chrono_option: Some(t),
        })
        .expect("a time is written");
        let text = |k: &str| v[k].to_string();
        [
            (text("ours"), text("chrono")),
            (text("ours_option"), text("chrono_option")),
        ]
    }

    fn at(y: i32, m: u32, d: u32, h: u32, min: u32, s: u32, nano: u32) -> DateTime<Utc> {
        let naive = NaiveDate::from_ymd_opt(y, m, d)
            .and_then(|date| date.and_hms_nano_opt(h, min, s, nano))
            .expect("a valid test time");
        Utc.from_utc_datetime(&naive)
    }

    #[test]
    fn a_time_is_written_as_chrono_writes_it_whatever_its_precision_and_year() {
        let mut times = vec![
            at(2026, 11, 26, 7, 44, 47, 0),
            at(2026, 11, 26, 7, 44, 47, 474_000_000),
            at(2026, 11, 26, 7, 44, 47, 474_339_000),
            at(2026, 11, 26, 7, 44, 47, 474_339_123),
            at(2026, 11, 26, 7, 44, 47, 1),
            at(2016, 12, 31, 23, 59, 59, 1_000_000_000), // a leap second
            at(2016, 12, 31, 23, 59, 59, 1_500_000_000),
            at(0, 1, 1, 0, 0, 0, 0),
            at(9999, 12, 31, 23, 59, 59, 999_999_999),
            at(-1, 6, 15, 12, 0, 0, 5_000),
            at(10_000, 1, 1, 0, 0, 0, 0),
            DateTime::<Utc>::MIN_UTC,
            DateTime::<Utc>::MAX_UTC,
        ];
        // And a spread of ordinary times with every kind of fraction.
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..2_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let seconds = (x % 8_000_000_000) as i64 - 1_000_000_000;
            let nano = match x % 4 {
                0 => 0,
                1 => (x >> 8) as u32 % 1_000 * 1_000_000,
                2 => (x >> 8) as u32 % 1_000_000 * 1_000,
                _ => (x >> 8) as u32 % 1_000_000_000,
            };
            times.push(DateTime::from_timestamp(seconds, nano).expect("in range"));
        }
        for t in times {
            for (ours, chrono) in texts(t) {
                assert_eq!(ours, chrono, "{t:?}");
            }
        }
        let none = serde_json::to_value(Both {
            ours: Utc::now(),
            chrono: Utc::now(),
            ours_option: None,
            chrono_option: None,
        })
        .expect("written");
        assert_eq!(none["ours_option"], none["chrono_option"]);
    }
}
