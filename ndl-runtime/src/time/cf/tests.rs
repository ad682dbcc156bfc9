use super::*;

fn unit(code: &str) -> NumpyTimeUnit {
    code.parse().unwrap()
}

fn decoder(units: &str, calendar: Option<&str>, to: &str) -> CfDecoder {
    CfTimeUnits::parse(units, calendar)
        .unwrap()
        .decoder(unit(to))
        .unwrap()
}

#[test]
fn units_are_read_in_xarray_and_cftime_spellings() {
    for (text, base, kind) in [
        ("days since 2000-01-01", BaseUnit::Days, TimeKind::DateTime),
        (
            "Hours Since 2000-01-01T00:00:00Z",
            BaseUnit::Hours,
            TimeKind::DateTime,
        ),
        (
            "  min  since 2000-01-01 ",
            BaseUnit::Minutes,
            TimeKind::DateTime,
        ),
        (
            "second since 2000-1-1",
            BaseUnit::Seconds,
            TimeKind::DateTime,
        ),
        (
            "MSEC since 2000-01-01",
            BaseUnit::Millis,
            TimeKind::DateTime,
        ),
        ("microseconds", BaseUnit::Micros, TimeKind::TimeDelta),
        ("ns", BaseUnit::Nanos, TimeKind::TimeDelta),
    ] {
        let units = CfTimeUnits::parse(text, None).unwrap();
        assert_eq!((units.unit(), units.kind()), (base, kind), "{text}");
    }
}

#[test]
fn what_we_write_reads_back() {
    for base in [BaseUnit::Days, BaseUnit::Seconds, BaseUnit::Nanos] {
        for units in [
            CfTimeUnits::datetime(base).unwrap(),
            CfTimeUnits::timedelta(base).unwrap(),
        ] {
            let text = units.to_string();
            assert_eq!(
                CfTimeUnits::parse(&text, Some(CfTimeUnits::CALENDAR)),
                Ok(units)
            );
        }
    }
    assert_eq!(
        CfTimeUnits::datetime(BaseUnit::Hours).unwrap().to_string(),
        "hours since 1970-01-01 00:00:00"
    );
    assert_eq!(
        CfTimeUnits::timedelta(BaseUnit::Millis)
            .unwrap()
            .to_string(),
        "milliseconds"
    );
    let odd = CfTimeUnits::parse("seconds since 1992-10-8 15:15:42.5 -6:00", None).unwrap();
    assert_eq!(odd.to_string(), "seconds since 1992-10-08 21:15:42.5");
    for base in [
        BaseUnit::Years,
        BaseUnit::Months,
        BaseUnit::Weeks,
        BaseUnit::Picos,
    ] {
        let err = CfTimeUnits::datetime(base).unwrap_err();
        assert!(err.to_string().contains("has no CF units"), "{err}");
    }
}

#[test]
fn bad_units_and_calendars_say_why() {
    let msg = |units: &str, calendar: Option<&str>| {
        CfTimeUnits::parse(units, calendar).unwrap_err().to_string()
    };
    assert_eq!(
        msg("furlongs since 2000-01-01", None),
        "`furlongs since 2000-01-01` is not CF time units: `furlongs` is not a CF time unit \
         (days, hours, minutes, seconds, milliseconds, microseconds, nanoseconds)"
    );
    assert!(msg("weeks since 2000-01-01", None).contains("`weeks` is not a CF time unit"));
    assert!(msg("days after 2000-01-01", None).contains("expected `since <epoch>`"));
    assert!(msg("days sincere 2000-01-01", None).contains("expected `since <epoch>`"));
    assert!(msg("", None).contains("`` is not a CF time unit"));
    assert_eq!(
        msg("days since yesterday", None),
        "the epoch of `days since yesterday` does not parse: expected a year in `yesterday`"
    );
    assert!(msg("days since ", None).contains("expected `since <epoch>`"));
    for calendar in [
        "noleap", "365_day", "360_day", "julian", "all_leap", "none", "",
    ] {
        let m = msg("days since 2000-01-01", Some(calendar));
        assert!(
            m.starts_with(&format!("calendar `{calendar}` is not supported")),
            "{m}"
        );
    }
    for calendar in ["standard", "GREGORIAN", " proleptic_gregorian "] {
        assert!(CfTimeUnits::parse("days since 2000-01-01", Some(calendar)).is_ok());
    }
}

#[test]
fn integers_decode_exactly_or_not_at_all() {
    let d = decoder("days since 2000-01-01", None, "ns");
    assert_eq!(d.decode(1), Ok((946_684_800 + 86_400) * 1_000_000_000));
    assert_eq!(d.decode(-10_957), Ok(0));
    let err = d.decode(1_000_000).unwrap_err();
    assert_eq!(
        err.to_string(),
        "1000000 days since 2000-01-01 00:00:00 is outside the range of datetime64[ns]"
    );

    let to_days = decoder("hours since 1970-01-01", None, "D");
    assert_eq!(to_days.decode(48), Ok(2));
    let err = to_days.decode(1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "1 hours since 1970-01-01 00:00:00 is not a whole number of days"
    );

    // Days to days multiply by 1: the widest counts still convert, and the
    // one count that would be NaT does not.
    let same = decoder("days since 1970-01-01", None, "D");
    assert_eq!(same.decode(i64::MAX), Ok(i64::MAX));
    assert!(same.decode(i64::MIN).is_err());
    let shifted = decoder("days since 1970-01-02", None, "D");
    assert!(shifted.decode(i64::MAX).is_err());
    assert_eq!(shifted.decode(i64::MIN), Ok(i64::MIN + 1));

    let durations = decoder("seconds", None, "10ms");
    assert_eq!(durations.decode(-3), Ok(-300));
    assert!(durations.decode(i64::MAX).is_err());
    assert!(
        CfTimeUnits::parse("seconds", None)
            .unwrap()
            .decoder(unit("M"))
            .is_err()
    );
}

#[test]
fn floats_round_to_the_nearest_unit() {
    let d = decoder("seconds since 1970-01-01", None, "ms");
    assert_eq!(d.decode_f64(1.5), Ok(1500));
    assert_eq!(d.decode_f64(0.1), Ok(100));
    assert_eq!(d.decode_f64(-0.0015), Ok(-2));
    // 0.0005 is 0.000500000000000000010408... as an f64: above the half.
    assert_eq!(d.decode_f64(0.0005), Ok(1));
    assert_eq!(d.decode_f64(-0.0), Ok(0));
    assert_eq!(d.decode_f64(f64::NAN), Ok(NAT));
    assert!(d.decode_f64(f64::INFINITY).is_err());
    assert!(d.decode_f64(1e300).is_err());
    assert!(d.decode_f64(-9.3e15).is_err());
    assert_eq!(d.decode_f64(1e-300), Ok(0));
    assert_eq!(d.decode_f64(f64::MIN_POSITIVE / 4.0), Ok(0));

    let h = decoder("hours since 2000-01-01 12:00:00", None, "s");
    assert_eq!(h.decode_f64(0.5), Ok(946_728_000 + 1800));
    assert_eq!(h.decode_f64(-12.0), Ok(946_684_800));
    let tiny = decoder("days since 1970-01-01", None, "as");
    assert_eq!(tiny.decode_f64(1e-18), Ok(86_400));
}

#[test]
fn ties_go_to_even() {
    let d = decoder("milliseconds", None, "s");
    assert_eq!(d.decode_f64(500.0), Ok(0));
    assert_eq!(d.decode_f64(1500.0), Ok(2));
    assert_eq!(d.decode_f64(2500.0), Ok(2));
    assert_eq!(d.decode_f64(-500.0), Ok(0));
    assert_eq!(d.decode_f64(-1500.0), Ok(-2));
}

#[test]
fn the_standard_calendar_reads_old_epochs_as_julian() {
    let standard = decoder("days since 0001-01-01", Some("standard"), "D");
    let proleptic = decoder("days since 0001-01-01", Some("proleptic_gregorian"), "D");
    assert_eq!(proleptic.decode(0), Ok(-719_162));
    assert_eq!(standard.decode(0), Ok(-719_164));
    let modern = decoder("days since 1582-10-15", Some("standard"), "D");
    let same = decoder("days since 1582-10-15", Some("proleptic_gregorian"), "D");
    assert_eq!(modern.decode(0), same.decode(0));
}

#[test]
fn an_epoch_between_units_decodes_in_a_finer_one() {
    let cf = CfTimeUnits::parse("hours since 2000-01-01T00:00:00-0330", None).unwrap();
    assert_eq!(cf.unit(), BaseUnit::Hours);
    assert_eq!(cf.exact_unit(), BaseUnit::Minutes);
    let minutes = decoder("hours since 2000-01-01T00:00:00-0330", None, "m");
    // 2000-01-01T03:30 UTC, one hour on: 04:30, in minutes since 1970.
    assert_eq!(minutes.decode(1).unwrap(), 15_778_350);
    let aligned = CfTimeUnits::parse("days since 2000-01-01", None).unwrap();
    assert_eq!(aligned.exact_unit(), BaseUnit::Days);
}
