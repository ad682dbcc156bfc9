//! Records into neutral columns and back: every kind of field, empty
//! strings and lists, `None`, Unicode; fills; errors naming field and
//! record.

use ndl_runtime::record::{
    Bitmap, Bits, Column, ColumnView, Columns, Offsets, PlainVisitor, Values, ValuesView, columns,
    read,
};
use ndl_runtime::time::{DateTime64, Nanos};
use ndl_runtime::{FixedStr, NdlType, Record};

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u8)]
enum Side {
    Buy = 1,
    Sell = 2,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Point {
    ok: bool,
    x: f64,
}

#[derive(Clone, Debug, PartialEq, Record)]
struct Venue {
    code: String,
    id: u16,
}

#[derive(Clone, Debug, PartialEq, Record)]
struct Trade {
    id: u64,
    symbol: String,
    name: Box<str>,
    side: Side,
    at: DateTime64<Nanos>,
    code: FixedStr<3>,
    point: Point,
    corners: [f32; 2],
    #[ndl(fill = -1)]
    venue_id: Option<i32>,
    #[ndl(fill = "")]
    note: Option<String>,
    maybe: Option<f64>,
    levels: Vec<f32>,
    tags: Vec<String>,
    bytes: Box<[u8]>,
    names: [String; 2],
    venue: Venue,
    venues: Vec<Option<Venue>>,
    flag: bool,
}

fn trades() -> Vec<Trade> {
    (0..37u64)
        .map(|i| Trade {
            id: i,
            symbol: ["", "ABC", "Ünïcødé ∑", "🦀"][i as usize % 4].to_owned(),
            name: format!("n{i}").into(),
            side: if i % 2 == 0 { Side::Buy } else { Side::Sell },
            at: DateTime64::new(i as i64 * 1_000 - 5),
            code: FixedStr::try_from(&b"ab"[..]).unwrap(),
            point: Point {
                ok: i % 3 == 0,
                x: i as f64 / 3.0,
            },
            corners: [i as f32, -(i as f32)],
            venue_id: (i % 3 != 0).then_some(i as i32),
            note: (i % 5 == 1).then(|| "late ✓".to_owned()),
            maybe: (i % 2 == 0).then_some(f64::NAN),
            levels: (0..i % 4).map(|k| k as f32 * 0.5).collect(),
            tags: (0..i % 3).map(|k| format!("t{k}")).collect(),
            bytes: vec![i as u8; (i % 2) as usize].into(),
            names: [String::new(), "β".repeat(i as usize % 3)],
            venue: Venue {
                code: "XNYS".into(),
                id: i as u16,
            },
            venues: match i % 3 {
                0 => vec![],
                1 => vec![None],
                _ => vec![
                    Some(Venue {
                        code: String::new(),
                        id: 7,
                    }),
                    None,
                ],
            },
            flag: i % 7 == 0,
        })
        .collect()
}

/// Bitwise equality, so the NaNs of `maybe` compare.
fn same(a: &[Trade], b: &[Trade]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.maybe.map(f64::to_bits), y.maybe.map(f64::to_bits));
        let (x, y) = (
            Trade {
                maybe: None,
                ..x.clone()
            },
            Trade {
                maybe: None,
                ..y.clone()
            },
        );
        assert_eq!(x, y);
    }
}

#[test]
fn records_round_trip_through_columns() {
    let data = trades();
    let column = columns(&data);
    assert_eq!(column.len(), data.len());
    same(&read::<Trade>(&column.view()).unwrap(), &data);
    // Pushed one by one, as extend does in bulk.
    let mut c = <Trade as Record>::Columns::with_capacity(0);
    for t in &data {
        c.push(t);
    }
    // Debug text, as the NaNs of `maybe` are unequal to themselves.
    assert_eq!(format!("{:?}", c.finish()), format!("{column:?}"));
    let empty = columns::<Trade>(&[]);
    assert!(read::<Trade>(&empty.view()).unwrap().is_empty());
}

fn field<'a>(column: &'a Column, name: &str) -> &'a Column {
    let Column::Struct { fields, .. } = column else {
        panic!("not a struct: {column:?}")
    };
    &fields.iter().find(|(n, _)| n == name).unwrap().1
}

#[test]
fn columns_have_arrows_layout() {
    let data = &trades()[..4];
    let column = columns(data);
    let Column::Strings {
        offsets,
        data: bytes,
    } = field(&column, "symbol")
    else {
        panic!()
    };
    assert_eq!(
        offsets[..],
        [
            0,
            0,
            3,
            3 + "Ünïcødé ∑".len() as i64,
            3 + "Ünïcødé ∑".len() as i64 + 4
        ]
    );
    assert_eq!(&bytes[..3], b"ABC");
    assert!(
        matches!(field(&column, "id"), Column::Values { values: Values::U64(v), .. } if v[..] == [0, 1, 2, 3])
    );
    assert!(
        matches!(field(&column, "side"), Column::Values { values: Values::U8(v), .. } if v[..] == [1, 2, 1, 2])
    );
    assert!(
        matches!(field(&column, "at"), Column::Values { values: Values::I64(v), .. } if v[1] == 995)
    );
    let Column::Nullable {
        validity,
        values,
        fill,
    } = field(&column, "venue_id")
    else {
        panic!()
    };
    assert_eq!(validity.as_bytes(), [0b0110]);
    // The `None`s hold the fill, so a format without nulls stores it as is.
    assert!(
        matches!(&**values, Column::Values { values: Values::I32(v), .. } if v[..] == [-1, 1, 2, -1])
    );
    assert!(
        matches!(fill.as_deref(), Some(Column::Values { values: Values::I32(v), .. }) if v[..] == [-1])
    );
    let Column::Nullable { fill, .. } = field(&column, "maybe") else {
        panic!()
    };
    assert_eq!(*fill, None);
    let Column::List { offsets, values } = field(&column, "levels") else {
        panic!()
    };
    assert_eq!(offsets[..], [0, 0, 1, 3, 6]);
    assert!(matches!(&**values, Column::Values { values: Values::F32(v), .. } if v.len() == 6));
    assert!(matches!(
        field(&column, "corners"),
        Column::FixedList { size: 2, .. }
    ));
    assert!(matches!(
        field(&column, "venue"),
        Column::Struct { len: 4, .. }
    ));
    let Column::Plain { datatype, bytes } = field(&column, "point") else {
        panic!()
    };
    assert_eq!(datatype.size(), Some(9), "packed, without the padding");
    assert_eq!(bytes.len(), 4 * 9);
    assert!(matches!(field(&column, "flag"), Column::Bool(b) if b.as_bytes() == [0b0001]));
}

#[test]
fn a_some_equal_to_the_fill_is_found() {
    let mut data = trades();
    assert_eq!(field(&columns(&data), "venue_id").fill_clash(), None);
    data[4].venue_id = Some(-1);
    assert_eq!(field(&columns(&data), "venue_id").fill_clash(), Some(4));
    data[2].note = Some(String::new());
    assert_eq!(field(&columns(&data), "note").fill_clash(), Some(2));
}

#[test]
fn columns_come_by_name_in_any_order() {
    let column = columns(&trades());
    let ColumnView::Struct { len, mut fields } = column.view() else {
        panic!()
    };
    fields.reverse();
    let back = read::<Trade>(&ColumnView::Struct { len, fields }).unwrap();
    same(&back, &trades());
}

#[test]
fn arrow_buffers_read_without_copies() {
    #[derive(Debug, PartialEq, Record)]
    struct Row {
        s: String,
        v: Option<Vec<i32>>,
    }
    // 32-bit offsets and a validity bitmap starting at bit 1 of its byte,
    // as a sliced Arrow array has.
    let data = "xyzé".as_bytes();
    let s_offsets = [0i32, 1, 3, 5];
    let v_offsets = [0i32, 0, 2, 2];
    let items = [10, 20];
    let validity = [0b1010u8];
    let view = ColumnView::Struct {
        len: 3,
        fields: vec![
            (
                "s",
                ColumnView::Strings {
                    offsets: Offsets::I32(&s_offsets),
                    data,
                },
            ),
            (
                "v",
                ColumnView::Nullable {
                    validity: Bits::new(&validity, 1, 3).unwrap(),
                    values: Box::new(ColumnView::List {
                        offsets: Offsets::I32(&v_offsets),
                        values: Box::new(ColumnView::Values(ValuesView::I32(&items))),
                    }),
                },
            ),
        ],
    };
    assert_eq!(
        read::<Row>(&view).unwrap(),
        [
            Row {
                s: "x".into(),
                v: Some(vec![])
            },
            Row {
                s: "yz".into(),
                v: None
            },
            Row {
                s: "é".into(),
                v: Some(vec![])
            },
        ]
    );
}

fn error_of(view: &ColumnView<'_>) -> String {
    read::<Trade>(view).unwrap_err().to_string()
}

/// `column` with the field `name` replaced by `with`.
fn replaced<'a>(column: &'a Column, name: &str, with: ColumnView<'a>) -> ColumnView<'a> {
    let ColumnView::Struct { len, mut fields } = column.view() else {
        panic!()
    };
    fields.iter_mut().find(|(n, _)| *n == name).unwrap().1 = with;
    ColumnView::Struct { len, fields }
}

#[test]
fn wrong_columns_are_errors_naming_field_and_record() {
    let data = trades();
    let column = columns(&data);

    let floats = vec![0.0f64; data.len()];
    let e = error_of(&replaced(
        &column,
        "id",
        ColumnView::Values(ValuesView::F64(&floats)),
    ));
    assert!(e.starts_with("field `id`") && e.contains("f64"), "{e}");

    let ColumnView::Struct { len, fields } = column.view() else {
        panic!()
    };
    let without: Vec<_> = fields.into_iter().filter(|(n, _)| *n != "symbol").collect();
    let e = error_of(&ColumnView::Struct {
        len,
        fields: without,
    });
    assert!(
        e.starts_with("field `symbol`") && e.contains("no column"),
        "{e}"
    );

    let bad = [0xffu8, b'a'];
    let offsets: Vec<i64> = (0..=data.len() as i64).map(|i| i.min(2)).collect();
    let e = error_of(&replaced(
        &column,
        "symbol",
        ColumnView::Strings {
            offsets: Offsets::I64(&offsets),
            data: &bad,
        },
    ));
    assert!(
        e.starts_with("field `symbol`, record 0") && e.contains("UTF-8"),
        "{e}"
    );

    // UTF-8 as a whole, but split inside a character: "é" as two strings.
    let split = "aé".as_bytes();
    let offsets: Vec<i64> = (0..=data.len())
        .map(|i| [0, 2].get(i).map_or(3, |&o| o))
        .collect();
    let e = error_of(&replaced(
        &column,
        "symbol",
        ColumnView::Strings {
            offsets: Offsets::I64(&offsets),
            data: split,
        },
    ));
    assert!(
        e.starts_with("field `symbol`, record 0") && e.contains("UTF-8"),
        "{e}"
    );

    let sides = vec![1u8, 2, 3]
        .into_iter()
        .cycle()
        .take(data.len())
        .collect::<Vec<_>>();
    let e = error_of(&replaced(
        &column,
        "side",
        ColumnView::Values(ValuesView::U8(&sides)),
    ));
    assert!(
        e.starts_with("field `side`, record 2") && e.contains("3 stands for no value"),
        "{e}"
    );

    // A null where the field is not an `Option`.
    let ColumnView::Struct { fields, .. } = column.view() else {
        panic!()
    };
    let mut bits = Bitmap::default();
    (0..data.len()).for_each(|i| bits.push(i != 5));
    let id = fields.iter().find(|(n, _)| *n == "id").unwrap().1.clone();
    let e = error_of(&replaced(
        &column,
        "id",
        ColumnView::Nullable {
            validity: bits.bits(),
            values: Box::new(id),
        },
    ));
    assert!(
        e.starts_with("field `id`, record 5") && e.contains("not an `Option`"),
        "{e}"
    );

    // Offsets past the items, and descending.
    let past: Vec<i64> = (0..=data.len() as i64).map(|i| i * 100).collect();
    let e = error_of(&replaced(
        &column,
        "symbol",
        ColumnView::Strings {
            offsets: Offsets::I64(&past),
            data: b"abc",
        },
    ));
    assert!(
        e.starts_with("field `symbol`") && e.contains("past the 3 items"),
        "{e}"
    );

    // A nested field's error names the path.
    let ColumnView::Struct { fields, .. } = column.view() else {
        panic!()
    };
    let ColumnView::Struct { len, fields: inner } = fields
        .iter()
        .find(|(n, _)| *n == "venue")
        .unwrap()
        .1
        .clone()
    else {
        panic!()
    };
    let ids = vec![0i64; len];
    let inner = inner
        .into_iter()
        .map(|(n, c)| {
            (
                n,
                if n == "id" {
                    ColumnView::Values(ValuesView::I64(&ids))
                } else {
                    c
                },
            )
        })
        .collect();
    let e = error_of(&replaced(
        &column,
        "venue",
        ColumnView::Struct { len, fields: inner },
    ));
    assert!(e.starts_with("field `venue.id`"), "{e}");

    // A fixed-size list of the wrong size.
    let floats = vec![0.0f32; data.len() * 3];
    let e = error_of(&replaced(
        &column,
        "corners",
        ColumnView::FixedList {
            size: 3,
            values: Box::new(ColumnView::Values(ValuesView::F32(&floats))),
        },
    ));
    assert!(
        e.starts_with("field `corners`") && e.contains("do not fit `[_; 2]`"),
        "{e}"
    );

    // Fields of different lengths.
    let short = vec![0u64; 3];
    let e = error_of(&replaced(
        &column,
        "id",
        ColumnView::Values(ValuesView::U64(&short)),
    ));
    assert!(e.contains("3 records, but its struct has 37"), "{e}");
}

#[test]
fn plain_records_hand_formats_their_ndl_type() {
    struct Bytes<'a, R>(&'a [R]);
    impl<R: 'static> PlainVisitor for Bytes<'_, R> {
        type Output = usize;
        fn visit<T: NdlType>(self) -> usize {
            let typed: &[T] = ndl_runtime::record::same_slice(self.0).expect("R is T");
            std::mem::size_of_val(typed)
        }
    }
    let points = [Point { ok: true, x: 1.0 }; 3];
    assert_eq!(Point::visit_plain(Bytes(&points)), Some(3 * 16));
    assert_eq!(<[u16; 2]>::visit_plain(Bytes(&[[1u16, 2]])), Some(4));
    assert_eq!(Trade::visit_plain(Bytes(&trades())), None);
    assert!(ndl_runtime::record::same_slice::<u8, i8>(&[1]).is_none());
    let v: Vec<u32> = ndl_runtime::record::same_vec::<u32, u32>(vec![1, 2]).unwrap();
    assert_eq!(v, [1, 2]);
}

#[test]
fn a_none_of_a_plain_type_whose_zero_is_no_value_reads_back() {
    #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
    #[repr(C)]
    struct Tagged {
        side: Side, // no member is 0, so a zero placeholder is no value
        v: u16,
    }
    #[derive(Debug, PartialEq, Record)]
    struct Row {
        t: Option<Tagged>,
        all: [Option<Tagged>; 2],
    }
    let tagged = Tagged {
        side: Side::Sell,
        v: 9,
    };
    let rows = [
        Row {
            t: None,
            all: [None, Some(tagged)],
        },
        Row {
            t: Some(tagged),
            all: [Some(tagged), None],
        },
    ];
    let column = columns(&rows);
    assert_eq!(read::<Row>(&column.view()).unwrap(), rows);
    // Read as a plain field, the placeholder is refused, naming the record.
    #[derive(Debug, Record)]
    struct Plain {
        #[allow(dead_code)]
        t: Tagged,
    }
    let Column::Struct { fields, .. } = &column else {
        panic!()
    };
    let Column::Nullable { values, .. } = &fields[0].1 else {
        panic!()
    };
    let view = ColumnView::Struct {
        len: 2,
        fields: vec![("t", values.view())],
    };
    let e = read::<Plain>(&view).unwrap_err().to_string();
    assert!(e.starts_with("field `t`, record 0"), "{e}");
}
