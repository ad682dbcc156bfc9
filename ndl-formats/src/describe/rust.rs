//! The Rust type that reads one array's records exactly.

use std::path::Path;

use ndl_runtime::{Compound, Datatype, Member};

use crate::contents::{Contents, Entry};
use crate::error::{Error, Result};

/// The Rust source of the records of the array `member` (needed when the
/// file holds several), its top-level type named `type_name`, else after
/// the member asked for, else after the file.
pub(super) fn source(
    path: &Path,
    contents: &Contents,
    member: Option<&str>,
    type_name: Option<&str>,
) -> Result<String> {
    let entry = pick(path, contents, member)?;
    let type_name = type_name.or(member.map(|_| entry.name.as_str()));
    if let Some((field, arrow)) = arrow_only(&entry.spec.datatype) {
        let what = match field.is_empty() {
            true => format!("`{}` is", entry.name),
            false => format!("column `{field}` is"),
        };
        return Err(Error::Description {
            path: path.to_path_buf(),
            message: format!(
                "{what} Arrow's {arrow}, which ndl reads into no Rust type; cast it to a number or a string first (pyarrow's `Table.cast`, polars' `cast`), or read the other columns with a type of your own"
            ),
        });
    }
    let datatype = without_handle_offsets(entry.spec.datatype.clone());
    ndl_runtime::lang::rust::to_rust(&datatype, &name_of(path, type_name))
        .map_err(super::in_entry(path, entry))
}

/// The first field (dotted path) of `datatype` whose Arrow type the typed
/// readers take into no Rust type (a decimal, a time of day: described as
/// opaque bytes tagged `arrow:`), and that type.
fn arrow_only(datatype: &Datatype) -> Option<(String, String)> {
    match datatype {
        Datatype::Opaque(o) => {
            let arrow = o.tag.as_deref()?.strip_prefix("arrow:")?;
            Some((String::new(), arrow.to_string()))
        }
        Datatype::Compound(c) => c.members.iter().find_map(|m| {
            let (inner, arrow) = arrow_only(&m.datatype)?;
            let field = match inner.is_empty() {
                true => m.name.clone(),
                false => format!("{}.{inner}", m.name),
            };
            Some((field, arrow))
        }),
        Datatype::Vlen(inner) | Datatype::Optional(inner) => arrow_only(inner),
        Datatype::Array(a) => arrow_only(&a.base),
        _ => None,
    }
}

/// `datatype` with each compound holding strings or sequences made as a
/// Rust record has it, with no layout: an HDF5 file's gives its members
/// the offsets of HDF5's handles (`hvl_t`, `char *`), as h5py's dtype
/// does, which a `#[derive(Record)]` type has no use for.
fn without_handle_offsets(datatype: Datatype) -> Datatype {
    match datatype {
        Datatype::Compound(c) => {
            let members = c.members.iter().cloned().map(|m| Member {
                datatype: without_handle_offsets(m.datatype),
                ..m
            });
            match Compound::variable(members) {
                Ok(variable) => Datatype::Compound(variable),
                Err(_) => Datatype::Compound(c),
            }
        }
        Datatype::Vlen(items) => Datatype::Vlen(Box::new(without_handle_offsets(*items))),
        Datatype::Optional(base) => Datatype::Optional(Box::new(without_handle_offsets(*base))),
        other => other,
    }
}

/// The Rust source of the records of the table that the file's arrays
/// are the columns of (read by `ndl_hdf5::read_columns`).
pub(super) fn of_table(
    path: &Path,
    datatype: &Datatype,
    type_name: Option<&str>,
) -> Result<String> {
    ndl_runtime::lang::rust::to_rust(datatype, &name_of(path, type_name)).map_err(|e| {
        Error::Description {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    })
}

fn name_of(path: &Path, type_name: Option<&str>) -> String {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("Record");
    type_name.unwrap_or(stem).to_string()
}

/// The array named `member`, or the only one.
fn pick<'a>(path: &Path, contents: &'a Contents, member: Option<&str>) -> Result<&'a Entry> {
    let labels = || {
        let labels: Vec<String> = contents
            .entries
            .iter()
            .map(|e| format!("`{}`", e.label()))
            .collect();
        labels.join(", ")
    };
    let error = |message: String| Error::Description {
        path: path.to_path_buf(),
        message,
    };
    match (member, contents.entries.as_slice()) {
        (Some(m), entries) => {
            let wanted = m.trim_start_matches('/');
            entries
                .iter()
                .find(|e| e.label() == wanted)
                .ok_or_else(|| error(format!("no array `{m}`; it holds {}", labels())))
        }
        (None, [one]) => Ok(one),
        (None, []) => Err(error("it holds no array to describe as a Rust type".into())),
        (None, _) => Err(error(format!(
            "it holds several arrays, {}: name one with --member",
            labels()
        ))),
    }
}
