//! ISO-8601 timestamps read and written as JavaScript's `Date` does.

/// Parses an ISO-8601 timestamp the way `Date.parse` does for the forms pi writes.
pub fn parse_iso_ms(s: &str) -> Option<i64> {
    use time::OffsetDateTime;
    use time::format_description::well_known::Rfc3339;
    if let Ok(t) = OffsetDateTime::parse(s, &Rfc3339) {
        return Some((t.unix_timestamp_nanos() / 1_000_000) as i64);
    }
    // Date-only and offset-less forms; JS reads date-only as UTC.
    let fmt_date = time::macros::format_description!("[year]-[month]-[day]");
    if let Ok(d) = time::Date::parse(s, &fmt_date) {
        return Some(d.midnight().assume_utc().unix_timestamp() * 1000);
    }
    None
}

/// Formats milliseconds since the epoch as `2025-06-02T21:43:48.321Z`, like `Date.toISOString`.
pub fn format_iso_ms(ms: i64) -> String {
    match iso_ms_bytes(ms) {
        Some(b) => String::from_utf8(b.to_vec()).unwrap_or_default(),
        None => format_iso_ms_with_time(ms),
    }
}

/// [`format_iso_ms`] of a time in the years 0000 to 9999 (the others are `None`), as bytes
/// (ASCII), without allocating: the digits written directly (`format!` with padding was a
/// sixth of the user time of a warm `list --json` of 10k sessions, two timestamps each).
pub fn iso_ms_bytes(ms: i64) -> Option<[u8; 24]> {
    const YEAR_0: i64 = -62_167_219_200_000;
    const YEAR_10000: i64 = 253_402_300_800_000;
    const DAY: i64 = 86_400_000;
    if !(YEAR_0..YEAR_10000).contains(&ms) {
        return None;
    }
    let (year, month, day) = civil_from_days(ms.div_euclid(DAY));
    let in_day = ms.rem_euclid(DAY);
    let mut out = *b"0000-00-00T00:00:00.000Z";
    let mut put = |at: usize, width: usize, mut v: i64| {
        for i in (at..at + width).rev() {
            out[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(0, 4, year);
    put(5, 2, month);
    put(8, 2, day);
    put(11, 2, in_day / 3_600_000);
    put(14, 2, in_day / 60_000 % 60);
    put(17, 2, in_day / 1000 % 60);
    put(20, 3, in_day % 1000);
    Some(out)
}

/// The proleptic Gregorian (year, month, day) of a day number since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// [`format_iso_ms`] through the `time` crate: any year it supports.
fn format_iso_ms_with_time(ms: i64) -> String {
    use time::OffsetDateTime;
    let Ok(t) = OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000) else {
        return String::new();
    };
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.millisecond()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_formatting_matches_the_time_crate() {
        let mut seed = 1u64;
        let mut values = vec![
            0,
            -1,
            1,
            -62_167_219_200_000,
            -62_167_219_200_001,
            253_402_300_799_999,
            253_402_300_800_000,
            951_782_400_000,   // 2000-02-29
            4_107_456_000_000, // 2100-02-28
            i64::MIN,
            i64::MAX,
        ];
        for _ in 0..100_000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            values.push((seed >> 1) as i64 % 400_000_000_000_000 - 100_000_000_000_000);
        }
        for ms in values {
            assert_eq!(format_iso_ms(ms), format_iso_ms_with_time(ms), "{ms}");
        }
    }

    #[test]
    fn iso_round_trip() {
        let ms = parse_iso_ms("2025-06-02T21:43:48.321Z").unwrap();
        assert_eq!(ms, 1748900628321);
        assert_eq!(format_iso_ms(ms), "2025-06-02T21:43:48.321Z");
        assert_eq!(parse_iso_ms("not a date"), None);
    }
}
