//! `ndl describe --format cdl` of netCDF-4 files is `ncdump -h`'s text,
//! and `ncgen -k nc4` compiles it back to the same header (issue #27):
//! compound attribute values, nested types named by the file, and each
//! dimension declared in the group that declares it.

use crate::common;

use std::path::Path;

use common::cli::{describe, ok, without_records};
use ndl_testkit::netcdf::{compile_cdl, ncdump, try_ncgen};
use ndl_testkit::python::{python312, run_file};

/// Writes the cases with netCDF4-python: `argv[1]/NAME.nc`.
const CASES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/python/netcdf4_cdl_cases.py"
);

/// Our CDL of `<dir>/<name>.nc` is `ncdump -h`'s, and what ncgen makes
/// of it dumps as the same header. Returns our CDL.
fn described_as_ncdump_prints(dir: &Path, name: &str) -> String {
    let nc = dir.join(format!("{name}.nc"));
    let ours = ok(describe(&nc, "cdl", &[]), name);
    let header = ncdump(&["-h"], &nc);
    assert_eq!(ours, header, "{name}: our CDL is not ncdump -h's");
    let again = format!("{name}_again");
    let compiled = compile_cdl(&ours, dir, &again);
    assert_eq!(
        without_records(&compiled.replacen(
            &format!("netcdf {again} {{"),
            &format!("netcdf {name} {{"),
            1
        )),
        without_records(&header),
        "{name}: what ncgen made of our CDL"
    );
    ours
}

fn cases() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    run_file(
        &python312(),
        Path::new(CASES),
        &[dir.path().to_str().unwrap()],
    );
    dir
}

#[test]
fn compound_attributes_are_values_of_their_named_type() {
    let dir = cases();
    let cdl = described_as_ncdump_prints(dir.path(), "compound_attributes");
    assert!(
        cdl.contains("\t\tpair_t v:pair = {1, 2.5}, {-3, 0.125} ;\n"),
        "{cdl}"
    );
    // ncdump's line position runs on from the attributes before: this
    // one wraps after its first record.
    assert!(
        cdl.contains(
            "\t\twide_t :wide = {NaNf, 1e+20, -1099511627776}, \n    \
             {0.3333333, -Infinity, 5}, {0.5, 0.1, 0} ;\n\
             \t\tlabel_t :label = {3, {\"a\\\"b\"}} ;\n"
        ),
        "{cdl}"
    );
}

/// netCDF4-python cannot give a compound variable a `_FillValue`;
/// netCDF-C's ncgen can.
#[test]
fn a_compound_fill_value_is_described() {
    let dir = tempfile::tempdir().unwrap();
    let cdl = "netcdf fill {\ntypes:\n  compound pair_t {\n    int i ;\n    double x ;\n  }; // pair_t\n\
               dimensions:\n\tn = 2 ;\nvariables:\n\tpair_t v(n) ;\n\
               \t\tpair_t v:_FillValue = {-1, 0.5} ;\n}\n";
    try_ncgen(cdl, dir.path(), "fill").unwrap();
    let ours = described_as_ncdump_prints(dir.path(), "fill");
    assert!(
        ours.contains("\t\tpair_t v:_FillValue = {-1, 0.5} ;\n"),
        "{ours}"
    );
}

#[test]
fn nested_types_are_named_by_the_file() {
    let dir = cases();
    let cdl = described_as_ncdump_prints(dir.path(), "nested_types");
    assert!(cdl.contains("    position where ;\n"), "{cdl}");
    assert!(!cdl.contains("where_t"), "{cdl}");
}

#[test]
fn each_dimension_is_declared_in_its_own_group() {
    let dir = cases();
    let cdl = described_as_ncdump_prints(dir.path(), "dimension_groups");
    assert!(
        cdl.contains("dimensions:\n\tt = UNLIMITED ; // (4 currently)\n\tx = 3 ;\n\ts = 5 ;\n"),
        "{cdl}"
    );
    assert!(
        cdl.contains("group: deeper {\n    variables:\n"),
        "the deeper group declares no dimension: {cdl}"
    );
}

#[test]
fn a_dimension_no_variable_uses_is_declared() {
    let dir = cases();
    let cdl = described_as_ncdump_prints(dir.path(), "scalars_only");
    assert!(cdl.contains("dimensions:\n\tn = 3 ;\n"), "{cdl}");
    assert!(cdl.contains("\t\tx:units = \"m\" ;\n"), "{cdl}");
}

#[test]
fn a_subgroup_uses_the_types_of_the_groups_around_it() {
    let dir = cases();
    let cdl = described_as_ncdump_prints(dir.path(), "group_types");
    assert_eq!(cdl.matches("compound pair_t {").count(), 1, "{cdl}");
    assert!(cdl.contains("\t\tpair_t v:pair = {1, 2} ;\n"), "{cdl}");
}
