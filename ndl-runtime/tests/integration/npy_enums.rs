//! Enums of every integer base, through real NumPy both ways: NumPy loads
//! the base integer with every member's value, and what NumPy writes in
//! either byte order reads back as the enum, checked.

use ndl_testkit::every_enum_base;

use ndl_runtime::npy::{self, ByteOrder, WriteOptions};

macro_rules! every_base {
    ($($test:ident: $name:ident $t:ident $code:literal;)*) => {$(
        every_enum_base!($name $t);

        #[test]
        fn $test() {
            let dir = tempfile::tempdir().unwrap();
            let ours = dir.path().join("ours.npy");
            let values = [$name::High, $name::Low, $name::One];
            for order in [ByteOrder::Little, ByteOrder::Big] {
                WriteOptions::new().byte_order(order).write_file(&ours, &values).unwrap();
                let code = format!("{}{}", order.numpy_char(), $code);
                let out = ndl_testkit::run_python(
                    "import sys, numpy as np\n\
                     a = np.load(sys.argv[1])\n\
                     assert a.dtype == np.dtype(sys.argv[2]), (a.dtype, sys.argv[2])\n\
                     print(' '.join(str(int(v)) for v in a))",
                    &[ours.to_str().unwrap(), &code],
                );
                assert_eq!(out.trim(), format!("{} {} 1", $t::MAX, $t::MIN));
            }

            let theirs = dir.path().join("theirs.npy");
            for code in [concat!("<", $code), concat!(">", $code)] {
                ndl_testkit::run_python(
                    "import sys, numpy as np\n\
                     info = np.iinfo(sys.argv[2])\n\
                     np.save(sys.argv[1], np.array([1, info.min, info.max], dtype=sys.argv[2]))",
                    &[theirs.to_str().unwrap(), code],
                );
                let back = npy::read_file::<$name>(&theirs).unwrap();
                assert_eq!(back, [$name::One, $name::Low, $name::High], "{code}");
            }

            // A value that is no member is an error naming the record.
            ndl_testkit::run_python(
                "import sys, numpy as np\n\
                 np.save(sys.argv[1], np.array([1, 1, 2], dtype=sys.argv[2]))",
                &[theirs.to_str().unwrap(), concat!("<", $code)],
            );
            let err = npy::read_file::<$name>(&theirs).unwrap_err().to_string();
            assert!(err.contains("record 2") && err.contains("2"), "{err}");
        }
    )*};
}

every_base! {
    uint8_base: E1 u8 "u1";
    uint16_base: E2 u16 "u2";
    uint32_base: E3 u32 "u4";
    uint64_base: E4 u64 "u8";
    int8_base: E5 i8 "i1";
    int16_base: E6 i16 "i2";
    int32_base: E7 i32 "i4";
    int64_base: E8 i64 "i8";
}
