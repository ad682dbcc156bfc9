//! The NDL sidecar: `readings.yaml` beside `readings.npy`, the NDL spec's
//! naming rule. It carries what a `.npy` header cannot: enum member names,
//! descriptions and attributes.

use std::path::{Path, PathBuf};

use super::io::{publish, temp_file_beside};
use super::{Error, Header, Result};
use crate::Order;
use crate::ndl::{self, Attribute, NameMap, Ndarray, Storage};
use crate::schema::join_field;
use crate::{Datatype, NdlType};

/// The path of the NDL sidecar of the `.npy` file at `npy`: the same name
/// with the extension `.yaml`.
///
/// ```
/// use std::path::Path;
/// use ndl_runtime::npy::sidecar_path;
///
/// assert_eq!(sidecar_path(Path::new("data/readings.npy")), Path::new("data/readings.yaml"));
/// ```
pub fn sidecar_path(npy: &Path) -> PathBuf {
    npy.with_extension("yaml")
}

/// The sidecar beside the `.npy` file at `npy`, if there is one: the same
/// name with `.yaml`, else `.yml` (the NDL spec allows both).
pub fn find_sidecar(npy: &Path) -> Option<PathBuf> {
    ["yaml", "yml"]
        .iter()
        .map(|ext| npy.with_extension(ext))
        .find(|p| p.is_file())
}

/// The NDL sidecar beside `npy` ([`find_sidecar`]) and its document, or
/// why it does not read; `None` when there is no sidecar.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let npy = dir.path().join("t.npy");
/// assert!(ndl_runtime::npy::read_sidecar(&npy).is_none());
/// std::fs::write(dir.path().join("t.yaml"), "not: [an, NDL document")?;
/// let (path, doc) = ndl_runtime::npy::read_sidecar(&npy).unwrap();
/// assert!(path.ends_with("t.yaml") && doc.is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_sidecar(npy: &Path) -> Option<(PathBuf, std::result::Result<ndl::File, String>)> {
    let path = find_sidecar(npy)?;
    let doc = std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|text| ndl::File::from_yaml(&text).map_err(|e| e.to_string()));
    Some((path, doc))
}

/// The name the array has in its sidecar: the file's stem.
fn array_name(npy: &Path) -> String {
    npy.file_stem()
        .map_or_else(|| "array".into(), |s| s.to_string_lossy().into_owned())
}

/// The NDL document of the `.npy` file at `npy` holding `header`'s array
/// of `T`, with `attributes` on the ndarray.
pub(crate) fn document<T: NdlType>(
    npy: &Path,
    header: &Header,
    attributes: &NameMap<Attribute>,
) -> ndl::File {
    document_of(npy, header, T::datatype(), T::description(), attributes)
}

/// The NDL document of the `.npy` file at `npy` holding `header`'s array
/// of `datatype` (which may name what the header cannot: enum members,
/// descriptions, units), described so, with `attributes` on the ndarray.
fn document_of(
    npy: &Path,
    header: &Header,
    datatype: Datatype,
    description: Option<&str>,
    attributes: &NameMap<Attribute>,
) -> ndl::File {
    let shape: Vec<usize> = header.shape.iter().map(|&d| d as usize).collect();
    let storage = storage_of(header, &datatype);
    let mut ndarray = Ndarray::new(shape, datatype).with_storage(storage);
    if let Some(text) = description {
        ndarray = ndarray.with_description(text);
    }
    for (name, attribute) in attributes.iter() {
        ndarray.attributes.insert(name, attribute.clone());
    }
    ndl::File::single_ndarray(array_name(npy), ndarray)
}

/// The storage directives a `.npy` header gives for an array of
/// `datatype`: the byte order where numbers have one, and the element
/// order where there are two dimensions or more.
///
/// ```
/// use ndl_runtime::Order;
/// use ndl_runtime::npy::{storage_of, Header};
/// use ndl_runtime::{ByteOrder, Datatype};
///
/// let mut h = Header::new(Datatype::Int16, vec![2, 3]);
/// h.byte_order = ByteOrder::Big;
/// h.order = Order::Fortran;
/// let s = storage_of(&h, &h.datatype);
/// assert_eq!((s.endian, s.order), (Some(ByteOrder::Big), Some(Order::Fortran)));
/// assert_eq!(storage_of(&Header::new(Datatype::UInt8, vec![4]), &Datatype::UInt8).order, None);
/// ```
pub fn storage_of(header: &Header, datatype: &Datatype) -> Storage {
    let order = if header.order.is_fortran() {
        Order::Fortran
    } else {
        Order::C
    };
    Storage {
        endian: datatype
            .has_multibyte_numbers()
            .then_some(header.byte_order),
        order: (header.shape.len() > 1).then_some(order),
        ..Storage::default()
    }
}

/// Writes the sidecar of the `.npy` file at `npy`, through a temporary file
/// so the sidecar is never partial.
pub(crate) fn write<T: NdlType>(
    npy: &Path,
    header: &Header,
    attributes: &NameMap<Attribute>,
    durable: bool,
) -> Result<()> {
    write_document(npy, &document::<T>(npy, header, attributes), durable)
}

/// Writes the sidecar of the `.npy` file at `npy`, which holds `header`'s
/// array, with `attributes` on the ndarray: for a file whose datatype is
/// known only at run time, where the header's datatype names what NumPy's
/// header cannot hold (enum members, descriptions, units).
pub fn write_sidecar(
    npy: &Path,
    header: &Header,
    attributes: &NameMap<Attribute>,
    durable: bool,
) -> Result<()> {
    let document = document_of(npy, header, header.datatype.clone(), None, attributes);
    write_document(npy, &document, durable)
}

/// Writes `document` as the sidecar of `npy`, through a temporary file.
fn write_document(npy: &Path, document: &ndl::File, durable: bool) -> Result<()> {
    use std::io::Write as _;
    let path = sidecar_path(npy);
    let run = || -> Result<()> {
        let mut tmp = temp_file_beside(&path)?;
        tmp.write_all(document.to_yaml().as_bytes())?;
        publish(tmp, &path, durable)
    };
    run().map_err(|e| e.in_file(&path))
}

/// Checks the sidecar beside `npy`, if there is one, against `T`: where it
/// describes this array, it must describe `T`'s layout, and every enum in
/// it must have exactly the members of the Rust enum at the same place.
///
/// A YAML file that is not an NDL document, or does not describe this
/// array (a `config.yaml` beside `config.npy`), is not this file's sidecar
/// and is left alone.
pub(crate) fn check<T: NdlType>(npy: &Path) -> Result<()> {
    let Some((path, described)) = described(npy) else {
        return Ok(());
    };
    let name = array_name(npy);
    let described = &described;
    let bad = |message: String| Error::Sidecar {
        path: path.clone(),
        message,
    };
    let expected = T::datatype();
    if !expected.same_layout(described) {
        return Err(bad(format!(
            "ndarray `{name}` has a datatype of another layout than the Rust type's; \
             if the sidecar is stale, remove it, or read with `ReadOptions::sidecar(false)`"
        )));
    }
    check_enums(&expected, described, "").map_err(bad)
}

/// The sidecar beside `npy` that describes its array, and the datatype it
/// gives; `None` when there is none (see [`check`]).
pub(crate) fn described(npy: &Path) -> Option<(PathBuf, Datatype)> {
    let (path, doc) = read_sidecar(npy)?;
    let datatype = doc
        .ok()?
        .ndarray(&format!("/{}", array_name(npy)))?
        .datatype
        .clone()?;
    Some((path, datatype))
}

/// Walks two datatypes of the same layout and compares their enums. A
/// sidecar with a plain integer where the type has an enum says less, not
/// something else, and passes.
fn check_enums(
    expected: &Datatype,
    described: &Datatype,
    at: &str,
) -> std::result::Result<(), String> {
    let place = || {
        if at.is_empty() {
            "the array's enum".to_owned()
        } else {
            format!("field `{at}`")
        }
    };
    match (expected, described) {
        (Datatype::Enum(e), Datatype::Enum(d)) if e.members != d.members => Err(format!(
            "{}: the sidecar's enum members {} differ from the Rust enum's {}",
            place(),
            members(&d.members),
            members(&e.members)
        )),
        // The same layout has the same names, maybe in another order.
        (Datatype::Compound(e), Datatype::Compound(d)) => e.members.iter().try_for_each(|em| {
            d.member(&em.name).map_or(Ok(()), |dm| {
                check_enums(&em.datatype, &dm.datatype, &join_field(at, &em.name))
            })
        }),
        (Datatype::Array(e), Datatype::Array(d)) => {
            check_enums(&e.base, &d.base, &format!("{at}[]"))
        }
        _ => Ok(()),
    }
}

fn members(members: &[crate::EnumMember]) -> String {
    let list: Vec<String> = members
        .iter()
        .map(|m| format!("{} = {}", m.name, m.value))
        .collect();
    format!("{{{}}}", list.join(", "))
}
