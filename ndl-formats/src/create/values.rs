//! NDL `value:`s as the bytes a file stores: elements of their datatype
//! in C order, numbers in native order.
//!
//! What NDL leaves open is read as NumPy and h5py write the same values:
//! an enum value is a member's name or its integer, a compound one a
//! mapping by member name (a member left out is zero) or a list in member
//! order, an array one nested lists of its shape, a complex one `[re, im]`,
//! an opaque one a list of bytes or a string of at most its size, a time
//! one its count of units.

use serde_yaml::Value;

use ndl_runtime::record::Column;
use ndl_runtime::{Charset, Compound, Datatype, IntType};

/// The values of an array or attribute, as a format writes them.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Values {
    /// None given: the fill value.
    Fill,
    /// Elements of a fixed-size datatype.
    Bytes(Vec<u8>),
    /// Elements of the datatype `string`.
    Strings(Vec<String>),
    /// Elements of a `vlen` datatype: a [`Column::List`] whose items are
    /// strings, lists again, or fixed-size values as [`Column::Plain`].
    Column(Column),
}

/// A value that does not convert: where (after the entity's location)
/// and why.
pub(crate) type Bad = (String, String);

/// The elements of `value`, nested lists of `extents`, of `datatype`;
/// a null element is `nulls` where given (an `optional`'s fill); `at` is
/// the location of the `value` key.
pub(crate) fn encode(
    value: &Value,
    extents: &[u64],
    datatype: &Datatype,
    nulls: Option<&[u8]>,
    at: &str,
) -> Result<Values, Bad> {
    let mut leaves = Vec::new();
    flatten(value, extents, at.to_string(), &mut leaves)?;
    if matches!(datatype, Datatype::Vlen(_))
        || matches!(datatype, Datatype::Compound(c) if c.is_variable())
    {
        return column(&leaves, datatype).map(Values::Column);
    }
    if *datatype == Datatype::String {
        return leaves
            .into_iter()
            .map(|(v, at)| {
                v.as_str()
                    .map(String::from)
                    .ok_or_else(|| (at, "expected a string".to_string()))
            })
            .collect::<Result<_, _>>()
            .map(Values::Strings);
    }
    let mut out = Vec::new();
    for (v, at) in leaves {
        match (v, nulls) {
            (Value::Null, Some(fill)) => out.extend(fill),
            _ => element(v, datatype, &at, &mut out)?,
        }
        let given = &out[out.len() - datatype.size().unwrap_or(0)..];
        if !v.is_null() && nulls.is_some_and(|fill| reads_as_null(given, fill, datatype)) {
            let why = format!(
                "{} is the fill that stands for null here, so it would read back as null: write null, or give `storage.fillvalue` a value the data never takes",
                describe(v)
            );
            return Err((at, why));
        }
    }
    Ok(Values::Bytes(out))
}

/// Whether the element `given` of `datatype` (native order) reads as the
/// null that `fill` stands for: its bytes, or for a float the same number
/// (`-0.0` is `0.0`) or any NaN where the fill is one, as netCDF4-python
/// and xarray compare with the fill.
fn reads_as_null(given: &[u8], fill: &[u8], datatype: &Datatype) -> bool {
    let float = |bytes: &[u8]| match datatype {
        Datatype::Float32 => bytes
            .try_into()
            .ok()
            .map(|b| f64::from(f32::from_ne_bytes(b))),
        Datatype::Float64 => bytes.try_into().ok().map(f64::from_ne_bytes),
        _ => None,
    };
    match (float(given), float(fill)) {
        (Some(x), Some(f)) => x == f || (x.is_nan() && f.is_nan()),
        _ => given == fill,
    }
}

/// The column of `items`, values of `datatype`: a `vlen`'s a list of
/// its items' column, a fixed-size datatype's its packed bytes.
fn column(items: &[(&Value, String)], datatype: &Datatype) -> Result<Column, Bad> {
    match datatype {
        Datatype::String => {
            let mut offsets = vec![0i64];
            let mut data = Vec::new();
            for (v, at) in items {
                let text = v.as_str().ok_or_else(|| {
                    (
                        at.clone(),
                        format!("expected a string, found {}", describe(v)),
                    )
                })?;
                data.extend(text.as_bytes());
                offsets.push(data.len() as i64);
            }
            Ok(Column::Strings { offsets, data })
        }
        Datatype::Vlen(base) => {
            let mut offsets = vec![0i64];
            let mut inner = Vec::new();
            for (v, at) in items {
                let list = v.as_sequence().ok_or_else(|| {
                    (
                        at.clone(),
                        format!("expected a list, found {}", describe(v)),
                    )
                })?;
                inner.extend(
                    list.iter()
                        .enumerate()
                        .map(|(j, x)| (x, format!("{at}[{j}]"))),
                );
                offsets.push(inner.len() as i64);
            }
            let values = Box::new(column(&inner, base)?);
            Ok(Column::List { offsets, values })
        }
        Datatype::Compound(c) if c.is_variable() => members(items, c),
        fixed => {
            let packed = packed(fixed);
            let mut bytes = Vec::new();
            for (v, at) in items {
                element(v, &packed, at, &mut bytes)?;
            }
            Ok(Column::Plain {
                datatype: packed,
                bytes,
            })
        }
    }
}

/// The column of compound values `items` (each a mapping by member name
/// or a list in member order) of a compound holding variable-length
/// members: a column per member, a member left out its zero, `""` or `[]`.
fn members(items: &[(&Value, String)], compound: &Compound) -> Result<Column, Bad> {
    for (v, at) in items {
        check_members(v, compound, at)?;
    }
    let mut fields = Vec::with_capacity(compound.members.len());
    for (i, m) in compound.members.iter().enumerate() {
        let mut values = Vec::with_capacity(items.len());
        for (v, at) in items {
            let given = match v {
                Value::Mapping(map) => map.get(m.name.as_str()),
                Value::Sequence(list) => list.get(i),
                _ => {
                    let why = format!("expected a mapping of member values, found {}", describe(v));
                    return Err((at.clone(), why));
                }
            };
            values.push((given, format!("{at}.{}", m.name)));
        }
        fields.push((m.name.clone(), member_column(&values, &m.datatype)?));
    }
    Ok(Column::Struct {
        len: items.len(),
        fields,
    })
}

/// The column of one member's `values`, `None` where left out.
fn member_column(values: &[(Option<&Value>, String)], datatype: &Datatype) -> Result<Column, Bad> {
    // A compound of no member values given is an empty list.
    static EMPTY: [Value; 2] = [Value::String(String::new()), Value::Sequence(Vec::new())];
    let left_out = match datatype {
        Datatype::String => &EMPTY[0],
        _ if datatype.variable_member().is_some() => &EMPTY[1],
        fixed => {
            let packed = packed(fixed);
            let size = packed.size().unwrap_or(0);
            let mut bytes = Vec::with_capacity(values.len() * size);
            for (v, at) in values {
                match v {
                    Some(v) => element(v, &packed, at, &mut bytes)?,
                    None => bytes.resize(bytes.len() + size, 0),
                }
            }
            return Ok(Column::Plain {
                datatype: packed,
                bytes,
            });
        }
    };
    let given: Vec<(&Value, String)> = values
        .iter()
        .map(|(v, at)| (v.unwrap_or(left_out), at.clone()))
        .collect();
    column(&given, datatype)
}

/// `datatype` with every compound in it packed, members in offset order
/// without gaps: the layout of [`Column::Plain`].
fn packed(datatype: &Datatype) -> Datatype {
    match datatype {
        Datatype::Compound(c) => {
            let mut members = c.members.clone();
            members.sort_by_key(|m| m.offset);
            let mut offset = 0;
            for m in &mut members {
                m.datatype = packed(&m.datatype);
                m.offset = offset;
                offset += m.datatype.size().unwrap_or(0);
            }
            Datatype::Compound(Compound {
                size: offset,
                members,
            })
        }
        Datatype::Array(a) => Datatype::Array(ndl_runtime::Array {
            base: Box::new(packed(&a.base)),
            shape: a.shape.clone(),
        }),
        other => other.clone(),
    }
}

/// The leaves of nested lists of exactly `extents`, with their locations.
fn flatten<'a>(
    value: &'a Value,
    extents: &[u64],
    at: String,
    out: &mut Vec<(&'a Value, String)>,
) -> Result<(), Bad> {
    let Some((&n, rest)) = extents.split_first() else {
        out.push((value, at));
        return Ok(());
    };
    let list = value
        .as_sequence()
        .ok_or_else(|| (at.clone(), format!("expected a list of {n} values")))?;
    if list.len() as u64 != n {
        let why = format!("a list of {n} values was expected, found {}", list.len());
        return Err((at, why));
    }
    list.iter()
        .enumerate()
        .try_for_each(|(i, v)| flatten(v, rest, format!("{at}[{i}]"), out))
}

/// Appends the bytes of one element of `datatype`.
fn element(v: &Value, datatype: &Datatype, at: &str, out: &mut Vec<u8>) -> Result<(), Bad> {
    let bad = |why: String| (at.to_string(), why);
    let not = |what: &str| bad(format!("expected {what}, found {}", describe(v)));
    match datatype {
        Datatype::Float32 => {
            let x = v.as_f64().ok_or_else(|| not("a number"))?;
            if x.is_finite() && !(x as f32).is_finite() {
                return Err(bad(format!("{x} is out of the range of float32")));
            }
            out.extend((x as f32).to_ne_bytes())
        }
        Datatype::Float64 => out.extend(v.as_f64().ok_or_else(|| not("a number"))?.to_ne_bytes()),
        Datatype::Float16 => {
            let x = v.as_f64().ok_or_else(|| not("a number"))?;
            if x.is_finite() && !half::f16::from_f64(x).is_finite() {
                return Err(bad(format!("{x} is out of the range of float16")));
            }
            out.extend(half::f16::from_f64(x).to_ne_bytes())
        }
        Datatype::Bool => out.push(u8::from(v.as_bool().ok_or_else(|| not("true or false"))?)),
        Datatype::Complex64 | Datatype::Complex128 => {
            let part = if *datatype == Datatype::Complex64 {
                Datatype::Float32
            } else {
                Datatype::Float64
            };
            let pair = v
                .as_sequence()
                .filter(|p| p.len() == 2)
                .ok_or_else(|| not("[real, imaginary]"))?;
            for p in pair {
                element(p, &part, at, out)?;
            }
        }
        Datatype::FixedString(s) => fixed_string(v, s.length, s.charset, at, out)?,
        Datatype::Time(_) => int(IntType::Int64, v, at, out)?,
        Datatype::Opaque(o) => opaque(v, o.size, at, out)?,
        Datatype::Enum(e) => {
            let member = v.as_str().map(|name| {
                e.members
                    .iter()
                    .find(|m| m.name == name)
                    .map(|m| m.value)
                    .ok_or_else(|| bad(format!("`{name}` is no member of the enum")))
            });
            match member {
                Some(value) => out.extend(int_bytes(e.base, value?)),
                None => int(e.base, v, at, out)?,
            }
        }
        Datatype::Compound(c) => {
            check_members(v, c, at)?;
            let start = out.len();
            out.resize(start + c.size, 0);
            for (i, m) in c.members.iter().enumerate() {
                let given = match v {
                    Value::Mapping(map) => map.get(m.name.as_str()),
                    Value::Sequence(list) => list.get(i),
                    _ => return Err(not("a mapping of member values")),
                };
                let Some(given) = given else { continue };
                let mut bytes = Vec::new();
                element(given, &m.datatype, &format!("{at}.{}", m.name), &mut bytes)?;
                out[start + m.offset..start + m.offset + bytes.len()].copy_from_slice(&bytes);
            }
        }
        Datatype::Array(a) => {
            let extents: Vec<u64> = a.shape.iter().map(|&d| d as u64).collect();
            let mut leaves = Vec::new();
            flatten(v, &extents, at.to_string(), &mut leaves)?;
            for (leaf, at) in leaves {
                element(leaf, &a.base, &at, out)?;
            }
        }
        other => match other.as_int() {
            Some(t) => int(t, v, at, out)?,
            None => return Err(bad(format!("values of {} are not written", keyword(other)))),
        },
    }
    Ok(())
}

/// Refuses a compound value `v` that names a member the compound does not
/// have, or lists some but not all of its members' values: what it gives
/// would be lost or put in the wrong member.
fn check_members(v: &Value, compound: &Compound, at: &str) -> Result<(), Bad> {
    let names = || {
        let names: Vec<&str> = compound.members.iter().map(|m| m.name.as_str()).collect();
        names.join(", ")
    };
    match v {
        Value::Mapping(map) => match map
            .keys()
            .find(|k| k.as_str().is_none_or(|k| compound.member(k).is_none()))
        {
            Some(key) => {
                let key = serde_yaml::to_string(key).unwrap_or_default();
                let why = format!(
                    "`{}` is no member of the compound ({})",
                    key.trim(),
                    names()
                );
                Err((at.to_string(), why))
            }
            None => Ok(()),
        },
        // `[]` gives no member, as a mapping may.
        Value::Sequence(list) if !list.is_empty() && list.len() != compound.members.len() => {
            let why = format!(
                "expected a list of {} member values ({}), found {}",
                compound.members.len(),
                names(),
                list.len()
            );
            Err((at.to_string(), why))
        }
        _ => Ok(()),
    }
}

fn int(t: IntType, v: &Value, at: &str, out: &mut Vec<u8>) -> Result<(), Bad> {
    let n = v
        .as_i64()
        .map(i128::from)
        .or_else(|| v.as_u64().map(i128::from))
        .filter(|&n| t.contains(n))
        .ok_or_else(|| {
            (
                at.to_string(),
                format!("{} is not a value of {}", describe(v), t.keyword()),
            )
        })?;
    out.extend(int_bytes(t, n));
    Ok(())
}

/// `n`, which `t` holds, in `t`'s bytes.
fn int_bytes(t: IntType, n: i128) -> Vec<u8> {
    match t {
        IntType::Int8 => (n as i8).to_ne_bytes().to_vec(),
        IntType::UInt8 => (n as u8).to_ne_bytes().to_vec(),
        IntType::Int16 => (n as i16).to_ne_bytes().to_vec(),
        IntType::UInt16 => (n as u16).to_ne_bytes().to_vec(),
        IntType::Int32 => (n as i32).to_ne_bytes().to_vec(),
        IntType::UInt32 => (n as u32).to_ne_bytes().to_vec(),
        IntType::Int64 => (n as i64).to_ne_bytes().to_vec(),
        IntType::UInt64 => (n as u64).to_ne_bytes().to_vec(),
    }
}

fn fixed_string(
    v: &Value,
    length: usize,
    charset: Charset,
    at: &str,
    out: &mut Vec<u8>,
) -> Result<(), Bad> {
    let text = v.as_str().ok_or_else(|| {
        (
            at.to_string(),
            format!("expected a string, found {}", describe(v)),
        )
    })?;
    let too_long = || {
        (
            at.to_string(),
            format!("the string {text:?} is longer than {length} characters"),
        )
    };
    let bytes: Vec<u8> = match charset {
        Charset::Ascii if !text.is_ascii() => {
            return Err((at.to_string(), format!("the string {text:?} is not ASCII")));
        }
        Charset::Ascii => text.as_bytes().to_vec(),
        Charset::Utf32 => text
            .chars()
            .flat_map(|c| (c as u32).to_ne_bytes())
            .collect(),
    };
    let size = length * charset.width();
    if bytes.len() > size {
        return Err(too_long());
    }
    out.extend(&bytes);
    out.resize(out.len() + size - bytes.len(), 0);
    Ok(())
}

fn opaque(v: &Value, size: usize, at: &str, out: &mut Vec<u8>) -> Result<(), Bad> {
    let bytes: Vec<u8> = match v {
        Value::String(s) => s.as_bytes().to_vec(),
        Value::Sequence(list) => list
            .iter()
            .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
            .collect::<Option<_>>()
            .ok_or_else(|| {
                (
                    at.to_string(),
                    "expected a list of bytes (0 to 255)".to_string(),
                )
            })?,
        other => {
            return Err((
                at.to_string(),
                format!("expected a list of bytes, found {}", describe(other)),
            ));
        }
    };
    if bytes.len() > size {
        return Err((
            at.to_string(),
            format!("{} bytes do not fit an opaque of {size}", bytes.len()),
        ));
    }
    out.extend(&bytes);
    out.resize(out.len() + size - bytes.len(), 0);
    Ok(())
}

/// The NDL keyword of a datatype, or a word for it.
pub(crate) fn keyword(dt: &Datatype) -> &'static str {
    dt.keyword().unwrap_or("this datatype")
}

fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("{b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {s:?}"),
        Value::Sequence(_) => "a list".into(),
        Value::Mapping(_) => "a mapping".into(),
        Value::Tagged(_) => "a tagged value".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(yaml: &str, extents: &[u64], dt: &str) -> Result<Values, Bad> {
        let v: Value = serde_yaml::from_str(yaml).unwrap();
        let dt: Datatype = serde_yaml::from_str(dt).unwrap();
        encode(&v, extents, &dt, None, "value")
    }

    #[test]
    fn compounds_by_name_or_order() {
        let dt = "compound: [x: int8, y: int16]";
        let by_name = enc("[{y: 2, x: 1}]", &[1], dt).unwrap();
        assert_eq!(by_name, enc("[[1, 2]]", &[1], dt).unwrap());
        let Values::Bytes(b) = by_name else { panic!() };
        assert_eq!(b.len(), 4);
        assert_eq!((b[0], i16::from_ne_bytes([b[2], b[3]])), (1, 2));
    }

    #[test]
    fn enums_by_name_and_errors_say_where() {
        let dt = "enum: {base: int8, members: {UP: 0, DOWN: 25}}";
        assert_eq!(
            enc("[DOWN, 0]", &[2], dt).unwrap(),
            Values::Bytes(vec![25, 0])
        );
        let (at, why) = enc("[UP, SIDE]", &[2], dt).unwrap_err();
        assert_eq!(
            (at.as_str(), why.as_str()),
            ("value[1]", "`SIDE` is no member of the enum")
        );
        let (at, _) = enc("[[1, 2], [3]]", &[2, 2], "int8").unwrap_err();
        assert_eq!(at, "value[1]");
    }
}
