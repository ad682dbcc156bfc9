//! The bytes numcodecs itself makes, for the codecs' tests: Python
//! expressions evaluated in zarr-python 3.4's venv.

/// The bytes numcodecs (of zarr-python 3.4's venv) encodes the NumPy
/// array `array` to with `codec` (both Python expressions).
pub(crate) fn numcodecs_bytes(codec: &str, array: &str) -> Vec<u8> {
    python_bytes(&format!("{codec}.encode({array})"))
}

/// The bytes of the Python expression `expr` (numpy as `np` and
/// numcodecs imported), evaluated in zarr-python 3.4's venv.
pub(crate) fn python_bytes(expr: &str) -> Vec<u8> {
    let script = format!("import numcodecs, numpy as np\nprint(bytes({expr}).hex())");
    let hex = ndl_testkit::python::run_with(&ndl_testkit::python::python312(), &script, &[]);
    let hex = hex.trim();
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex from python"))
        .collect()
}
