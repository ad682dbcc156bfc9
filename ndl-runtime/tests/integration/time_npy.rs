//! Time fields in `.npy` files, both ways with real NumPy: derived records
//! holding `DateTime64`/`TimeDelta64` as fields, in arrays and in nested
//! records; plain arrays of every marker unit; NumPy's own files in both
//! byte orders, with multiples and units no marker types.
//!
//! Run with `NDL_PYTHON=/path/to/python` (numpy 2.4.6).

use std::path::Path;

use ndl_runtime::npy::{self, ByteOrder, WriteOptions};
use ndl_runtime::time::{
    BaseUnit, DateTime64, Days, Micros, Millis, Nanos, NumpyTimeUnit, Seconds, TimeDelta64,
};
use ndl_runtime::{Datatype, NdlType, TimeType};

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Leg {
    at: DateTime64<Millis>,
    flag: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Trip {
    id: u32,
    start: DateTime64<Nanos>,
    took: TimeDelta64<Seconds>,
    days: [DateTime64<Days>; 3],
    legs: [Leg; 2],
}

/// The dtype NumPy builds for `Trip` from its own spelling, for comparing.
const TRIP_DTYPE: &str = "np.dtype({'names': ['id', 'start', 'took', 'days', 'legs'], \
    'formats': ['<u4', '<M8[ns]', '<m8[s]', ('<M8[D]', (3,)), \
    (np.dtype({'names': ['at', 'flag'], 'formats': ['<M8[ms]', 'u1'], 'offsets': [0, 8], 'itemsize': 16}), (2,))], \
    'offsets': [0, 8, 16, 24, 48], 'itemsize': 80})";

fn trips() -> Vec<Trip> {
    let leg = |ms: i64, flag| Leg {
        at: DateTime64::new(ms),
        flag,
    };
    vec![
        Trip {
            id: 1,
            start: DateTime64::new(1_795_608_000_000_000_001),
            took: TimeDelta64::new(-90),
            days: [DateTime64::new(0), DateTime64::new(-1), DateTime64::NAT],
            legs: [leg(1_795_608_000_250, 1), leg(-1, 0)],
        },
        Trip {
            id: 2,
            start: DateTime64::NAT,
            took: TimeDelta64::NAT,
            days: [DateTime64::new(i64::MAX); 3],
            legs: [leg(i64::MIN + 1, 2), leg(0, 3)],
        },
    ]
}

#[test]
fn derived_records_hold_time_fields() {
    let Datatype::Compound(c) = Trip::datatype() else {
        panic!("a record")
    };
    let ns = NumpyTimeUnit::new(BaseUnit::Nanos);
    assert_eq!(
        c.members[1].datatype,
        Datatype::Time(TimeType::datetime(ns))
    );
    assert_eq!(
        c.members[2].datatype,
        Datatype::Time(TimeType::timedelta(NumpyTimeUnit::new(BaseUnit::Seconds)))
    );
    assert_eq!(
        c.members[3].datatype,
        DateTime64::<Days>::datatype().array_of(&[3])
    );
    assert_eq!((c.members[4].offset, c.size), (48, 80));
    assert_eq!(
        Trip::datatype()
            .numpy_descr_with_order(ByteOrder::Big)
            .unwrap(),
        "[('id', '>u4'), ('', '|V4'), ('start', '>M8[ns]'), ('took', '>m8[s]'), \
         ('days', '>M8[D]', (3,)), ('legs', [('at', '>M8[ms]'), ('flag', '|u1'), ('', '|V7')], (2,))]"
    );
}

#[test]
fn numpy_reads_our_records_and_we_read_numpys() {
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("ours.npy");
    let big = dir.path().join("big.npy");
    npy::write_file(&ours, &trips()).unwrap();
    WriteOptions::new()
        .byte_order(ByteOrder::Big)
        .write_file(&big, &trips())
        .unwrap();
    let script = format!(
        r#"
import sys, io
import numpy as np
out = sys.argv[1]
want = {TRIP_DTYPE}
for name, dtype in [('ours', want), ('big', want.newbyteorder('>'))]:
    a = np.load(f'{{out}}/{{name}}.npy')
    assert a.dtype == dtype, (name, a.dtype, dtype)
    buf = io.BytesIO()
    np.save(buf, a)
    assert buf.getvalue() == open(f'{{out}}/{{name}}.npy', 'rb').read(), name
    strs = [str(a[f][i]) for i in range(2) for f in ('start', 'took')]
    strs += [str(v) for v in a['days'].ravel()] + [str(v) for v in a['legs']['at'].ravel()]
    print(name, '|'.join(strs))
nat = np.datetime64('NaT')
b = np.zeros(2, want)
b['id'] = [1, 2]
b['start'] = [np.datetime64(1795608000000000001, 'ns'), nat]
b['took'] = [np.timedelta64(-90, 's'), np.timedelta64('NaT')]
b['days'] = [[0, -1, np.iinfo(np.int64).min], [np.iinfo(np.int64).max] * 3]
b['legs']['at'] = [[1795608000250, -1], [np.iinfo(np.int64).min + 1, 0]]
b['legs']['flag'] = [[1, 0], [2, 3]]
np.save(f'{{out}}/numpy.npy', b)
np.save(f'{{out}}/numpy_big.npy', b.astype(want.newbyteorder('>')))
"#
    );
    let printed = ndl_testkit::run_python(&script, &[dir.path().to_str().unwrap()]);
    let t = trips();
    let mut strs: Vec<String> = t
        .iter()
        .flat_map(|r| [r.start.to_string(), r.took.to_string()])
        .collect();
    strs.extend(t.iter().flat_map(|r| r.days).map(|d| d.to_string()));
    strs.extend(t.iter().flat_map(|r| r.legs).map(|l| l.at.to_string()));
    let ours_line = strs.join("|");
    for (line, name) in printed.lines().zip(["ours", "big"]) {
        assert_eq!(line, format!("{name} {ours_line}"));
    }
    for name in ["numpy.npy", "numpy_big.npy"] {
        assert_eq!(
            npy::read_file::<Trip>(dir.path().join(name)).unwrap(),
            t,
            "{name}"
        );
    }
}

/// Writes one plain array with NumPy: `np.array(values, dtype)`.
fn numpy_array(dir: &Path, name: &str, dtype: &str, values: &str) -> std::path::PathBuf {
    let path = dir.join(format!("{name}.npy"));
    ndl_testkit::run_python(
        &format!(
            "import numpy as np, sys\nnp.save(sys.argv[1], np.array({values}, dtype='{dtype}'))"
        ),
        &[path.to_str().unwrap()],
    );
    path
}

#[test]
fn plain_arrays_of_every_byte_order_and_unit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ns = numpy_array(d, "ns", "<M8[ns]", "[0, -1, 'NaT', 1795608000000000001]");
    assert_eq!(
        npy::read_file::<DateTime64<Nanos>>(&ns).unwrap(),
        [0, -1, i64::MIN, 1_795_608_000_000_000_001].map(DateTime64::new)
    );
    let s = numpy_array(d, "s", ">m8[s]", "[5, -7, 'NaT']");
    assert_eq!(
        npy::read_file::<TimeDelta64<Seconds>>(&s).unwrap(),
        [5, -7, i64::MIN].map(TimeDelta64::new)
    );
    let days = numpy_array(d, "days", "<M8[D]", "['2026-11-25', '1969-12-31']");
    assert_eq!(
        npy::read_file::<DateTime64<Days>>(&days).unwrap(),
        [20_782, -1].map(DateTime64::new)
    );

    // A unit no marker types is described, and refused by a typed read
    // with both types named.
    let ten = numpy_array(d, "ten", "<M8[10ms]", "[1, 2]");
    let header = npy::read_header_file(&ten).unwrap();
    assert_eq!(header.datatype, Datatype::Time("M8[10ms]".parse().unwrap()));
    assert_eq!(
        header
            .datatype
            .numpy_descr_with_order(ByteOrder::Little)
            .unwrap(),
        "'<M8[10ms]'"
    );
    let err = npy::read_file::<DateTime64<Millis>>(&ten)
        .unwrap_err()
        .to_string();
    assert!(err.contains("M8[10ms]") && err.contains("M8[ms]"), "{err}");
    let err = npy::read_file::<i64>(&ns).unwrap_err().to_string();
    assert!(err.contains("M8[ns]"), "{err}");
    let err = npy::read_file::<DateTime64<Micros>>(&ns)
        .unwrap_err()
        .to_string();
    assert!(err.contains("M8[ns]") && err.contains("M8[us]"), "{err}");

    // Ours, in each order, are np.save's bytes.
    for order in [ByteOrder::Little, ByteOrder::Big] {
        let path = d.join(format!("ours_{}.npy", order.name()));
        let values = [1, -1, i64::MIN].map(TimeDelta64::<Micros>::new);
        WriteOptions::new()
            .byte_order(order)
            .write_file(&path, &values)
            .unwrap();
        let o = order.numpy_char();
        let theirs = numpy_array(d, "theirs", &format!("{o}m8[us]"), "[1, -1, 'NaT']");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(&theirs).unwrap()
        );
    }
}

#[test]
fn subarrays_and_descrs_numpy_writes_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub.npy");
    ndl_testkit::run_python(
        "import numpy as np, sys\n\
         dt = np.dtype([('t', '<M8[s]', (3,)), ('d', '>m8[10us]'), ('w', '<M8[W]'), ('y', '>M8[Y]'), ('a', '<m8[as]')])\n\
         a = np.zeros(2, dt)\n\
         a['t'] = [[0, 1, 2], [3, 4, 'NaT']]\n\
         np.save(sys.argv[1], a)",
        &[path.to_str().unwrap()],
    );
    let header = npy::read_header_file(&path).unwrap();
    let descr = header.descr().unwrap();
    assert_eq!(
        descr,
        "[('t', '<M8[s]', (3,)), ('d', '>m8[10us]'), ('w', '<M8[W]'), ('y', '>M8[Y]'), ('a', '<m8[as]')]"
    );

    #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
    #[repr(C)]
    struct Sub {
        t: [DateTime64<Seconds>; 3],
        d: i64,
        w: i64,
        y: i64,
        a: i64,
    }
    // Fields of units no marker types cannot be read as `i64`.
    assert!(npy::read_file::<Sub>(&path).is_err());
}

#[test]
fn npz_members_hold_time_arrays_numpy_reads() {
    use ndl_runtime::npz::{NpzReader, NpzWriter};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.npz");
    let mut w = NpzWriter::create_compressed(&path).unwrap();
    w.add("trips", &trips()).unwrap();
    let stamps = [0, -1, i64::MIN].map(DateTime64::<Micros>::new);
    w.add("stamps", &stamps).unwrap();
    w.finish().unwrap();
    let out = ndl_testkit::run_python(
        "import sys, numpy as np\n\
         z = np.load(sys.argv[1])\n\
         print(z['stamps'].dtype, '|'.join(map(str, z['stamps'])), z['trips']['took'][0])",
        &[path.to_str().unwrap()],
    );
    assert_eq!(
        out.trim(),
        "datetime64[us] 1970-01-01T00:00:00.000000|1969-12-31T23:59:59.999999|NaT -90 seconds"
    );
    let mut r = NpzReader::open(&path).unwrap();
    assert_eq!(r.read::<DateTime64<Micros>>("stamps").unwrap(), stamps);
    assert_eq!(r.read::<Trip>("trips").unwrap(), trips());
}
