//! The NDL YAML form of a [`Datatype`]: the value of a `type:` key.
//!
//! The spec's forms, plus the extensions documented in the README:
//! compound members carry `offset` (and `description`), a compound carries
//! its record `size` beside the `compound` list, enums always carry `base`,
//! and `bool`, `float16`, `complex64`, `complex128`, fixed-length strings
//! (`{string: {length: 10, charset: ascii}}`) and time values
//! (`{datetime: {unit: ns}}`, `{timedelta: {unit: 10ms}}`) exist, and so
//! do optional values (`{optional: {base: int32}}`). A compound with a
//! variable-length member (a `#[derive(Record)]` struct's) has no layout:
//! it is written without `size` and offsets, and read back as
//! [`Compound::variable`].

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_yaml::{Mapping, Value};

use super::error::describe_value;
use crate::time::{NumpyTimeUnit, TimeError};
use crate::{
    Array, Charset, Compound, Datatype, Enum, EnumMember, FixedString, IntType, Member, Opaque,
    Selection, TimeType,
};

impl Serialize for Datatype {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        to_value(self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Datatype {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        from_value(&value).map_err(D::Error::custom)
    }
}

/// The YAML value of a datatype.
pub(crate) fn to_value(dt: &Datatype) -> Value {
    if let Some(word) = dt.keyword() {
        return Value::from(word);
    }
    match dt {
        Datatype::FixedString(s) => single(
            "string",
            map([
                ("length", Value::from(s.length as u64)),
                ("charset", Value::from(s.charset.name())),
            ]),
        ),
        Datatype::Time(t) => single(
            t.kind.ndl_name(),
            map([("unit", Value::from(t.unit.to_string()))]),
        ),
        Datatype::Opaque(o) => {
            let mut m = map([("size", Value::from(o.size as u64))]);
            if let Some(tag) = &o.tag {
                m.insert("tag".into(), tag.as_str().into());
            }
            single("opaque", m)
        }
        Datatype::Enum(e) => {
            let members: Mapping = e
                .members
                .iter()
                .map(|m| (Value::from(m.name.as_str()), int_value(m.value)))
                .collect();
            single(
                "enum",
                map([
                    ("base", Value::from(e.base.keyword())),
                    ("members", Value::Mapping(members)),
                ]),
            )
        }
        Datatype::RegRef(sel) => single(
            "regref",
            map([("selection", Value::from(selection_name(*sel)))]),
        ),
        Datatype::Compound(c) if c.is_variable() => Value::Mapping(map([(
            "compound",
            Value::Sequence(c.members.iter().map(variable_member_value).collect()),
        )])),
        Datatype::Compound(c) => Value::Mapping(map([
            (
                "compound",
                Value::Sequence(c.members.iter().map(member_value).collect()),
            ),
            ("size", Value::from(c.size as u64)),
        ])),
        Datatype::Vlen(base) => single("vlen", map([("base", to_value(base))])),
        Datatype::Optional(base) => single("optional", map([("base", to_value(base))])),
        Datatype::Array(a) => single(
            "array",
            map([
                ("base", to_value(&a.base)),
                (
                    "shape",
                    Value::Sequence(a.shape.iter().map(|&d| Value::from(d as u64)).collect()),
                ),
            ]),
        ),
        _ => unreachable!("every parameterless datatype has a keyword"),
    }
}

fn member_value(m: &Member) -> Value {
    let mut long = map([
        ("type", to_value(&m.datatype)),
        ("offset", Value::from(m.offset as u64)),
    ]);
    member_details(m, &mut long);
    single(&m.name, long)
}

/// A member of a variable compound, which has no offset.
fn variable_member_value(m: &Member) -> Value {
    let mut long = map([("type", to_value(&m.datatype))]);
    member_details(m, &mut long);
    single(&m.name, long)
}

fn member_details(m: &Member, long: &mut Mapping) {
    if let Some(d) = &m.description {
        long.insert("description".into(), d.as_str().into());
    }
    if let Some(u) = &m.units {
        long.insert("units".into(), u.as_str().into());
    }
    if !m.dims.is_empty() {
        let dims = m.dims.iter().map(|d| Value::from(d.as_str())).collect();
        long.insert("dims".into(), Value::Sequence(dims));
    }
}

/// An enum value; one beyond 64 bits (only a hand-built, invalid `Enum`
/// holds one) is written as text, which reading refuses.
fn int_value(v: i128) -> Value {
    i64::try_from(v)
        .map(Value::from)
        .or_else(|_| u64::try_from(v).map(Value::from))
        .unwrap_or_else(|_| Value::from(v.to_string()))
}

fn selection_name(sel: Selection) -> &'static str {
    match sel {
        Selection::Block => "block",
        Selection::Element => "element",
    }
}

fn single(key: &str, value: Mapping) -> Value {
    Value::Mapping(map([(key, Value::Mapping(value))]))
}

fn map<const N: usize>(entries: [(&str, Value); N]) -> Mapping {
    entries
        .into_iter()
        .map(|(k, v)| (Value::from(k), v))
        .collect()
}

/// Parses the YAML value of a `type:` key, in the spec's forms or ours.
pub(crate) fn from_value(v: &Value) -> Result<Datatype, String> {
    match v {
        Value::String(word) => {
            Datatype::from_keyword(word).ok_or_else(|| format!("unknown datatype `{word}`"))
        }
        Value::Mapping(m) => from_mapping(m),
        other => Err(format!(
            "a datatype is a keyword or a mapping, not {}",
            describe_value(other)
        )),
    }
}

fn from_mapping(m: &Mapping) -> Result<Datatype, String> {
    if let Some(members) = m.get("compound") {
        let fields = Fields::new(m, "compound", &["compound", "size"])?;
        return compound(members, fields.opt_usize("size")?);
    }
    let (key, body) = match m.iter().next() {
        Some((Value::String(k), body)) if m.len() == 1 => (k.as_str(), body),
        _ => return Err("a datatype mapping has exactly one key naming its category".into()),
    };
    let ctx = |e: String| format!("{key}: {e}");
    let body = body.as_mapping().ok_or_else(|| {
        ctx(format!(
            "expected a mapping, found {}",
            describe_value(body)
        ))
    })?;
    match key {
        "string" => {
            let f = Fields::new(body, key, &["length", "charset"])?;
            let charset = match f.req_str("charset")? {
                "ascii" => Charset::Ascii,
                "utf-32" => Charset::Utf32,
                other => {
                    return Err(ctx(format!(
                        "unknown charset `{other}`; expected ascii or utf-32"
                    )));
                }
            };
            Ok(Datatype::FixedString(FixedString {
                length: f.req_usize("length")?,
                charset,
            }))
        }
        "datetime" | "timedelta" => {
            let f = Fields::new(body, key, &["unit"])?;
            let unit: NumpyTimeUnit = f
                .req_str("unit")?
                .parse()
                .map_err(|e: TimeError| ctx(e.to_string()))?;
            Ok(Datatype::Time(if key == "datetime" {
                TimeType::datetime(unit)
            } else {
                TimeType::timedelta(unit)
            }))
        }
        "opaque" => {
            let f = Fields::new(body, key, &["size", "tag"])?;
            Ok(Datatype::Opaque(Opaque {
                size: f.req_usize("size")?,
                tag: f.opt_str("tag")?.map(String::from),
            }))
        }
        "enum" => enumeration(body).map_err(ctx),
        "regref" => {
            let f = Fields::new(body, key, &["selection"])?;
            match f.req_str("selection")? {
                "block" => Ok(Datatype::RegRef(Selection::Block)),
                "element" => Ok(Datatype::RegRef(Selection::Element)),
                other => Err(ctx(format!(
                    "unknown selection `{other}`; expected block or element"
                ))),
            }
        }
        "vlen" => {
            let f = Fields::new(body, key, &["base"])?;
            Ok(Datatype::Vlen(Box::new(
                from_value(f.req("base")?).map_err(ctx)?,
            )))
        }
        "optional" => {
            let f = Fields::new(body, key, &["base"])?;
            Ok(Datatype::Optional(Box::new(
                from_value(f.req("base")?).map_err(ctx)?,
            )))
        }
        "array" => {
            let f = Fields::new(body, key, &["base", "shape"])?;
            let base = from_value(f.req("base")?).map_err(ctx)?;
            let shape = f
                .req("shape")?
                .as_sequence()
                .ok_or_else(|| ctx("shape must be a list of sizes".into()))?
                .iter()
                .map(|d| {
                    as_usize(d).ok_or_else(|| {
                        ctx(format!("array extent {} is not a size", describe_value(d)))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let dt = Datatype::Array(Array {
                base: Box::new(base),
                shape,
            });
            dt.validate().map_err(|e| ctx(e.to_string()))?;
            Ok(dt)
        }
        other => Err(format!("unknown datatype category `{other}`")),
    }
}

fn enumeration(body: &Mapping) -> Result<Datatype, String> {
    let f = Fields::new(body, "enum", &["base", "members"])?;
    let members = f
        .req("members")?
        .as_mapping()
        .ok_or("members must be a mapping of names to values")?
        .iter()
        .map(|(k, v)| {
            let name = scalar_key(k)?;
            let value = as_i128(v).ok_or_else(|| {
                format!(
                    "member `{name}` has a non-integer value {}",
                    describe_value(v)
                )
            })?;
            Ok(EnumMember { name, value })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let e = match f.opt_str("base")? {
        None => Enum::with_inferred_base(members).map_err(|e| e.to_string())?,
        Some(word) => {
            let base = Datatype::from_keyword(word)
                .and_then(|d| d.as_int())
                .ok_or_else(|| format!("enum base must be an integer datatype, not `{word}`"))?;
            let e = Enum { base, members };
            Datatype::Enum(e.clone())
                .validate()
                .map_err(|e| e.to_string())?;
            e
        }
    };
    Ok(Datatype::Enum(e))
}

/// Members without `offset` go to the next C-aligned offset after the
/// member before; without `size` the record is rounded up to the largest
/// alignment: exactly the C layout for the spec's offset-less form. A
/// compound with a variable-length member has no layout, so neither
/// `offset` nor `size`.
fn compound(members: &Value, size: Option<usize>) -> Result<Datatype, String> {
    let list = members
        .as_sequence()
        .ok_or("compound must be a list of one-key mappings, one per member")?;
    let parsed = list
        .iter()
        .map(compound_member)
        .collect::<Result<Vec<_>, _>>()?;
    if let Some((m, _)) = parsed.iter().find(|(m, _)| m.datatype.size().is_none()) {
        return variable_compound(parsed.iter(), size, &m.name);
    }
    let mut laid = Vec::with_capacity(list.len());
    // `end` is where the member before ends, `last` the highest end: with
    // explicit offsets the members may be declared out of offset order.
    let (mut end, mut last, mut align) = (0usize, 0usize, 1usize);
    for (member, offset) in parsed {
        let ctx = |e: &str| format!("compound member `{}`: {e}", member.name);
        let a = member.datatype.alignment();
        align = align.max(a);
        let offset = match offset {
            Some(o) => o,
            None => {
                end.checked_add(a - 1)
                    .ok_or_else(|| ctx("offset overflows"))?
                    / a
                    * a
            }
        };
        let msize = member
            .datatype
            .size()
            .expect("variable members handled above");
        end = offset
            .checked_add(msize)
            .ok_or_else(|| ctx("offset overflows"))?;
        last = last.max(end);
        laid.push(Member { offset, ..member });
    }
    let size = match size {
        Some(s) => s,
        None => last.checked_add(align - 1).ok_or("record size overflows")? / align * align,
    };
    let dt = Datatype::Compound(Compound {
        size,
        members: laid,
    });
    dt.validate().map_err(|e| e.to_string())?;
    Ok(dt)
}

/// A compound whose member `variable` has no fixed size.
fn variable_compound<'a>(
    parsed: impl Iterator<Item = &'a (Member, Option<usize>)> + Clone,
    size: Option<usize>,
    variable: &str,
) -> Result<Datatype, String> {
    let no_layout = |what: String| {
        format!(
            "{what}, but member `{variable}` has a variable-length datatype, so the compound has no layout"
        )
    };
    if let Some(size) = size {
        return Err(no_layout(format!("the compound has size {size}")));
    }
    if let Some((m, _)) = parsed.clone().find(|(_, offset)| offset.is_some()) {
        return Err(no_layout(format!(
            "compound member `{}` has an offset",
            m.name
        )));
    }
    Compound::variable(parsed.map(|(m, _)| m.clone()))
        .map(Datatype::Compound)
        .map_err(|e| e.to_string())
}

/// One `- name: type` or `- name: {type: ..., offset: ...}` entry, with its
/// offset if given.
fn compound_member(entry: &Value) -> Result<(Member, Option<usize>), String> {
    let (name, body) = match entry.as_mapping() {
        Some(m) if m.len() == 1 => m.iter().next().expect("one entry"),
        _ => {
            return Err(format!(
                "compound member {} is not a one-key mapping",
                describe_value(entry)
            ));
        }
    };
    let name = scalar_key(name)?;
    let ctx = |e: String| format!("compound member `{name}`: {e}");
    let (datatype, offset, description, units, dims) = match body.as_mapping() {
        Some(long) if long.contains_key("type") => {
            let f = Fields::new(
                long,
                &name,
                &["type", "offset", "description", "units", "dims"],
            )?;
            let dt = from_value(f.req("type")?).map_err(ctx)?;
            (
                dt,
                f.opt_usize("offset")?,
                f.opt_str("description")?.map(String::from),
                f.opt_str("units")?.map(String::from),
                f.opt_strs("dims")?,
            )
        }
        _ => (from_value(body).map_err(ctx)?, None, None, None, Vec::new()),
    };
    let member = Member {
        name,
        offset: 0,
        datatype,
        description,
        units,
        dims,
    };
    Ok((member, offset))
}

/// The keys of one mapping, checked against the keys it may have.
struct Fields<'a> {
    map: &'a Mapping,
    what: &'a str,
}

impl<'a> Fields<'a> {
    fn new(map: &'a Mapping, what: &'a str, allowed: &[&str]) -> Result<Self, String> {
        for k in map.keys() {
            if !k.as_str().is_some_and(|k| allowed.contains(&k)) {
                return Err(format!(
                    "{what}: unknown key {}; expected one of: {}",
                    describe_value(k),
                    allowed.join(", ")
                ));
            }
        }
        Ok(Fields { map, what })
    }

    fn req(&self, key: &str) -> Result<&'a Value, String> {
        self.map
            .get(key)
            .ok_or_else(|| format!("{}: missing key `{key}`", self.what))
    }

    fn req_str(&self, key: &str) -> Result<&'a str, String> {
        self.opt_str(key)?
            .ok_or_else(|| format!("{}: missing key `{key}`", self.what))
    }

    fn opt_str(&self, key: &str) -> Result<Option<&'a str>, String> {
        self.map
            .get(key)
            .map(|v| {
                v.as_str().ok_or_else(|| {
                    format!(
                        "{}: `{key}` must be a string, not {}",
                        self.what,
                        describe_value(v)
                    )
                })
            })
            .transpose()
    }

    /// A list of strings, empty when the key is absent.
    fn opt_strs(&self, key: &str) -> Result<Vec<String>, String> {
        let Some(v) = self.map.get(key) else {
            return Ok(Vec::new());
        };
        let not_strings = || {
            format!(
                "{}: `{key}` must be a list of strings, not {}",
                self.what,
                describe_value(v)
            )
        };
        v.as_sequence()
            .ok_or_else(not_strings)?
            .iter()
            .map(|d| d.as_str().map(String::from).ok_or_else(not_strings))
            .collect()
    }

    fn req_usize(&self, key: &str) -> Result<usize, String> {
        self.opt_usize(key)?
            .ok_or_else(|| format!("{}: missing key `{key}`", self.what))
    }

    fn opt_usize(&self, key: &str) -> Result<Option<usize>, String> {
        self.map
            .get(key)
            .map(|v| {
                as_usize(v).ok_or_else(|| {
                    format!(
                        "{}: `{key}` must be a non-negative integer, not {}",
                        self.what,
                        describe_value(v)
                    )
                })
            })
            .transpose()
    }
}

/// Member names are strings; a key YAML reads as a number or bool (an
/// unquoted `1` or `ON` from a YAML 1.1 writer) is taken as its text.
fn scalar_key(k: &Value) -> Result<String, String> {
    match k {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(format!(
            "a member name must be a string, not {}",
            describe_value(other)
        )),
    }
}

pub(crate) fn as_usize(v: &Value) -> Option<usize> {
    v.as_u64().and_then(|n| usize::try_from(n).ok())
}

fn as_i128(v: &Value) -> Option<i128> {
    v.as_i64()
        .map(i128::from)
        .or_else(|| v.as_u64().map(i128::from))
}

impl IntType {
    /// Parses an NDL integer keyword.
    pub fn from_keyword(word: &str) -> Option<IntType> {
        Datatype::from_keyword(word)?.as_int()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Result<Datatype, String> {
        serde_yaml::from_str::<Datatype>(yaml).map_err(|e| e.to_string())
    }

    #[test]
    fn spec_enum_without_base_is_uint8() {
        let dt =
            parse("enum:\n  members:\n    'OFF': 0\n    'ON': 1\n    UNDEFINED: 255\n").unwrap();
        let Datatype::Enum(e) = dt else { panic!() };
        assert_eq!(e.base, IntType::UInt8);
        assert_eq!(e.members[1], EnumMember::new("ON", 1));
    }

    #[test]
    fn short_compound_gets_c_layout() {
        let dt = parse("compound:\n  - x: uint8\n  - y: float64\n  - z: int16\n").unwrap();
        assert_eq!(
            dt,
            Datatype::Compound(
                Compound::c_layout([
                    ("x", Datatype::UInt8),
                    ("y", Datatype::Float64),
                    ("z", Datatype::Int16)
                ])
                .unwrap()
            )
        );
    }

    #[test]
    fn members_out_of_offset_order_keep_their_order_and_size() {
        let dt = parse(
            "compound:\n  - b: {type: float64, offset: 8}\n  - a: {type: int32, offset: 0}\n",
        )
        .unwrap();
        let want = Compound {
            size: 16,
            members: vec![
                Member::new("b", 8, Datatype::Float64),
                Member::new("a", 0, Datatype::Int32),
            ],
        };
        assert_eq!(dt, Datatype::Compound(want));
        let overlap = parse(
            "compound:\n  - b: {type: float64, offset: 2}\n  - a: {type: int32, offset: 0}\n",
        );
        assert!(overlap.unwrap_err().contains("overlaps"));
    }

    #[test]
    fn round_trip_keeps_layout() {
        let inner = Compound {
            size: 12,
            members: vec![
                Member::new("a", 1, Datatype::Int32),
                Member {
                    description: Some("the b".into()),
                    ..Member::new("b", 6, Datatype::Int32)
                },
            ],
        };
        let dt = Datatype::Compound(Compound {
            size: 40,
            members: vec![
                Member::new("n", 0, Datatype::Compound(inner)),
                Member::new("m", 12, Datatype::UInt16.array_of(&[2, 3])),
                Member::new(
                    "s",
                    24,
                    Datatype::FixedString(FixedString {
                        length: 4,
                        charset: Charset::Utf32,
                    }),
                ),
            ],
        });
        let yaml = serde_yaml::to_string(&dt).unwrap();
        assert_eq!(parse(&yaml).unwrap(), dt, "{yaml}");
    }

    #[test]
    fn errors_say_where() {
        let e = parse("compound:\n  - x: {array: {base: flaot32, shape: [2]}}\n").unwrap_err();
        assert!(
            e.contains("compound member `x`") && e.contains("flaot32"),
            "{e}"
        );
        let e = parse("opaque: {size: 4, color: red}").unwrap_err();
        assert!(e.contains("unknown key") && e.contains("color"), "{e}");
        let e = parse("enum: {base: uint8, members: {a: 256}}").unwrap_err();
        assert!(e.contains("256"), "{e}");
        let e = parse("compound: [{a: {type: int32, offset: 0}}, {b: {type: int32, offset: 2}}]")
            .unwrap_err();
        assert!(e.contains("overlaps"), "{e}");
    }
}
