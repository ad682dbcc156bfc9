//! Property test: any document reads without panicking, and what is
//! accepted is written back to the same model.

use proptest::prelude::*;
use serde_yaml::Value;

use super::File;
use super::document_yaml::{DIMCOORD_KEYS, GROUP_KEYS, NDARRAY_KEYS};
use super::storage::KEYS as STORAGE_KEYS;

/// Words that mean something in NDL besides its keys: group paths,
/// dimcoord names, datatypes, byte orders, and YAML 1.1's `ON`.
const WORDS: &[&str] = &[
    "/", "/g", "/g/h", "t", "x", "d", "/t", "/g/t", "compound", "enum", "base", "members", "array",
    "vlen", "int8", "uint8", "float32", "string", "bool", "little", "big", "ON", "",
];

/// Every key the reader knows, and the other words NDL uses.
fn words() -> Vec<&'static str> {
    let mut words = [GROUP_KEYS, NDARRAY_KEYS, DIMCOORD_KEYS, STORAGE_KEYS, WORDS].concat();
    words.sort_unstable();
    words.dedup();
    words
}

/// Any YAML value made of the words NDL uses.
fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..300).prop_map(Value::from),
        prop_oneof![Just(f64::NAN), Just(1.5), Just(-0.0)].prop_map(Value::from),
        proptest::sample::select(words()).prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Sequence),
            proptest::collection::vec((proptest::sample::select(words()), inner), 0..4)
                .prop_map(|kv| map(kv.into_iter().map(|(k, v)| (k.to_owned(), v)))),
        ]
    })
}

fn map(entries: impl IntoIterator<Item = (String, Value)>) -> Value {
    Value::Mapping(
        entries
            .into_iter()
            .map(|(k, v)| (Value::from(k), v))
            .collect(),
    )
}

/// `good` mostly, sometimes any value at all in its place.
fn or_junk(good: impl Strategy<Value = Value>) -> impl Strategy<Value = Value> {
    prop_oneof![8 => good, 1 => any_value()]
}

fn datatype() -> impl Strategy<Value = Value> {
    or_junk(prop_oneof![
        proptest::sample::select(&["int8", "uint8", "float32", "string", "bool"][..])
            .prop_map(Value::from),
        Just(serde_yaml::from_str("{compound: [{a: int8}, {b: float64}]}").unwrap()),
        Just(serde_yaml::from_str("{enum: {members: {'ON': 1, 'OFF': 0}}}").unwrap()),
        Just(serde_yaml::from_str("{array: {base: uint8, shape: [2]}}").unwrap()),
    ])
}

fn extent() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u64..4).prop_map(Value::from),
        Just(Value::Null),
        proptest::sample::select(&["t", "/t", "/g/t", "d"][..]).prop_map(Value::from),
    ]
}

fn sizes() -> impl Strategy<Value = Value> {
    proptest::collection::vec((0u64..4).prop_map(Value::from), 0..3).prop_map(Value::Sequence)
}

fn storage() -> impl Strategy<Value = Value> {
    let directive = prop_oneof![
        sizes().prop_map(|v| ("shape".to_owned(), v)),
        (0u64..5).prop_map(|n| ("size".to_owned(), Value::from(n))),
        sizes().prop_map(|v| ("chunk".to_owned(), v)),
        any_value().prop_map(|v| ("filter".to_owned(), Value::Sequence(vec![v]))),
        proptest::sample::select(&["little", "big"][..])
            .prop_map(|e| ("endian".to_owned(), Value::from(e))),
        Just(("charset".to_owned(), Value::from("ascii"))),
        prop_oneof![(0i64..3).prop_map(Value::from), any_value()]
            .prop_map(|v| ("fillvalue".to_owned(), v)),
    ];
    or_junk(proptest::collection::vec(directive, 0..3).prop_map(map))
}

fn values() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0i64..3).prop_map(Value::from),
        proptest::collection::vec((0i64..3).prop_map(Value::from), 0..4).prop_map(Value::Sequence),
        any_value(),
    ]
}

fn attribute() -> impl Strategy<Value = Value> {
    prop_oneof![
        values(),
        (
            proptest::collection::vec(extent(), 0..2),
            datatype(),
            values(),
            storage()
        )
            .prop_map(|(shape, t, v, s)| {
                map([
                    ("shape".into(), Value::Sequence(shape)),
                    ("type".into(), t),
                    ("value".into(), v),
                    ("storage".into(), s),
                ])
            }),
    ]
}

fn named<S: Strategy<Value = Value>>(entity: S) -> impl Strategy<Value = Value> {
    proptest::collection::vec(
        (
            proptest::sample::select(&["t", "d", "x", "ON", ""][..]),
            entity,
        ),
        0..3,
    )
    .prop_map(|kv| map(kv.into_iter().map(|(k, v)| (k.to_owned(), v))))
}

/// An entity: its own keys, each kept or dropped.
fn entity(first: (&'static str, BoxedStrategy<Value>)) -> impl Strategy<Value = Value> {
    let (key, first) = first;
    (
        proptest::option::weighted(0.9, first),
        proptest::option::weighted(0.9, datatype()),
        proptest::option::of(values()),
        proptest::option::of(named(attribute())),
        proptest::option::of(storage()),
    )
        .prop_map(move |(f, t, v, a, s)| {
            let keys = [key, "type", "value", "attributes", "storage"];
            map(keys
                .into_iter()
                .zip([f, t, v, a, s])
                .filter_map(|(k, v)| Some((k.to_owned(), v?))))
        })
}

fn group() -> impl Strategy<Value = Value> {
    let shape = proptest::collection::vec(extent(), 0..3)
        .prop_map(Value::Sequence)
        .boxed();
    let size = prop_oneof![(0u64..4).prop_map(Value::from), Just(Value::Null)].boxed();
    (
        proptest::option::of(named(attribute())),
        proptest::option::of(named(entity(("size", size)))),
        proptest::option::of(named(entity(("shape", shape)))),
    )
        .prop_map(|(a, d, n)| {
            let keys = ["attributes", "dimcoords", "ndarrays"];
            map(keys
                .into_iter()
                .zip([a, d, n])
                .filter_map(|(k, v)| Some((k.to_owned(), v?))))
        })
}

fn document() -> impl Strategy<Value = Value> {
    prop_oneof![
        or_junk(group()),
        proptest::collection::vec(
            (
                proptest::sample::select(&["/", "/g", "/g/h"][..]),
                or_junk(group())
            ),
            0..3
        )
        .prop_map(|kv| map(kv.into_iter().map(|(k, v)| (k.to_owned(), v)))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Any document is read without panicking, and whatever is
    /// accepted is written back to the same model.
    #[test]
    fn reading_never_panics_and_accepted_files_round_trip(v in document()) {
        if let Ok(file) = File::from_value(&v) {
            let yaml = file.to_yaml();
            prop_assert_eq!(File::from_yaml(&yaml), Ok(file), "{}", yaml);
        }
    }
}
