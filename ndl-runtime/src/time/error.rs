//! Why a time unit or code does not parse, or a time value does not convert.

/// Why a NumPy time code does not parse, or a time value does not convert.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TimeError {
    /// A unit NumPy does not have.
    #[error(
        "unknown NumPy time unit `{unit}` in `{code}`: the units are \
         Y M W D h m s ms us ns ps fs as, with an optional multiple such as `10ms`"
    )]
    UnknownUnit {
        /// The code as given.
        code: String,
        /// The part that is not a unit.
        unit: String,
    },
    /// A multiple of 0, or one NumPy cannot hold.
    #[error(
        "multiple {multiple} in `{code}` is out of range: \
         a NumPy time unit's multiple is 1 to 2147483647"
    )]
    Multiple {
        /// The code as given.
        code: String,
        /// The multiple as written.
        multiple: String,
    },
    /// Not of the form `M8[...]` or `m8[...]`.
    #[error(
        "`{0}` is not a NumPy time type: expected `M8[<unit>]` or `m8[<unit>]`, such as `M8[ns]` or `m8[10ms]`"
    )]
    NotATimeCode(String),
    /// NumPy's generic `M8`/`m8`, which has no unit.
    #[error("`{0}` has no unit (NumPy's generic time type): give one, such as `M8[ns]`")]
    NoUnit(String),
    /// NaT converted to a type that has no NaT.
    #[error("NaT has no {target} value")]
    NaT {
        /// The type converted to.
        target: &'static str,
    },
    /// A value outside the range of the type converted to.
    #[error("{value} is outside the range of {target}")]
    OutOfRange {
        /// The value, as its type prints it.
        value: String,
        /// The type converted to.
        target: String,
    },
    /// A value that is not a whole number of the unit converted to.
    #[error("{value} is not a whole number of {unit}")]
    Inexact {
        /// The value, as its type prints it.
        value: String,
        /// The unit converted to, as NumPy names it (`seconds`), or its
        /// code with a multiple (`10ms`).
        unit: String,
    },
    /// A CF `units` attribute of time that is not `<unit> since <epoch>`
    /// or `<unit>` with a CF time unit.
    #[error("`{units}` is not CF time units: {why}")]
    NotCfUnits {
        /// The attribute.
        units: String,
        /// What is wrong.
        why: String,
    },
    /// A CF epoch that does not parse.
    #[error("the epoch of `{units}` does not parse: {why}")]
    Epoch {
        /// The `units` attribute.
        units: String,
        /// What is wrong.
        why: String,
    },
    /// A CF calendar whose days are not NumPy's.
    #[error(
        "calendar `{0}` is not supported: its dates are not NumPy's; \
         the calendars read are standard, gregorian and proleptic_gregorian"
    )]
    Calendar(String),
    /// A unit with no CF units of its own: years, months, weeks, below
    /// nanoseconds, and multiples.
    #[error(
        "NumPy time unit `{0}` has no CF units: CF time counts days, hours, minutes, \
         seconds, milliseconds, microseconds or nanoseconds, one at a time"
    )]
    NoCfUnits(super::NumpyTimeUnit),
    /// CF units of instants for a duration, or the reverse.
    #[error("the `units` \"{units}\" are {stored}, the field is {field}")]
    KindMismatch {
        /// The `units` attribute.
        units: String,
        /// What they count.
        stored: &'static str,
        /// What the field holds.
        field: &'static str,
    },
    /// A conversion to years or months, whose lengths vary.
    #[error("cannot convert to `{0}`: years and months have no fixed length")]
    CalendarUnit(super::NumpyTimeUnit),
    /// A time field stored as something other than integer or float counts.
    #[error("a time field is stored as integer or float counts, not {0}")]
    NotCounts(String),
    /// Counts other than our own int64 ones, without CF `units` to say what
    /// they count.
    #[error("{0} counts without CF `units`")]
    NoUnitsAttribute(String),
}
