//! `ndl describe`: the arrays of a `.npy` or `.npz` file, or of a Zarr
//! store, in each language.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::{Path, PathBuf};

use ndl_runtime::lang::{cdl, zarr};
use ndl_runtime::ndl::{self, Ndarray};
use ndl_runtime::npy::{self, Header, HeaderLimits};
use ndl_runtime::npz::{self, NpzReader};
use ndl_runtime::records::PackedLayout;
use ndl_runtime::Datatype;
use ndl_zarr::{ArrayInfo, StoreInfo};

use crate::Format;

/// How to read the file.
pub struct Options {
    /// NumPy's `max_header_size`.
    pub max_header_size: usize,
    /// Whether to merge an NDL sidecar found beside the file.
    pub sidecar: bool,
}

/// The description, and what the user should know about it.
pub struct Described {
    pub text: String,
    pub warnings: Vec<String>,
}

/// One array of the file.
struct Array {
    /// The group path (`/` for top-level arrays).
    group: String,
    /// The array's name within its group.
    name: String,
    header: Header,
    /// The store's own view, for an array read from a Zarr store.
    store: Option<ArrayInfo>,
}

impl Array {
    /// The name a flat listing uses: the npz member name without `.npy`.
    fn label(&self) -> String {
        match self.group.as_str() {
            "/" => self.name.clone(),
            g => format!("{}/{}", &g[1..], self.name),
        }
    }
}

/// What a path is: a file, by its first bytes, or a store directory.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Npy,
    Npz,
    /// A Zarr store holding one array.
    Store,
    /// A Zarr store holding a group of arrays (the columns layout).
    Group,
}

/// Describes the file at `path` in `format`.
pub fn describe(path: &Path, format: Format, options: &Options) -> Result<Described, String> {
    let mut warnings = Vec::new();
    let limits = HeaderLimits {
        max_header_size: options.max_header_size,
    };
    let mut group_attributes = serde_json::Map::new();
    let (kind, mut arrays) = if path.is_dir() || crate::is_remote(path) {
        load_store(path, &mut group_attributes)?
    } else {
        load(path, &limits, &mut warnings)?
    };
    let sidecar = if options.sidecar && !matches!(kind, Kind::Store | Kind::Group) {
        read_sidecar(path, &mut warnings)
    } else {
        None
    };
    if let Some(sidecar) = &sidecar {
        adopt_datatypes(sidecar, &mut arrays, &mut warnings);
    }
    let text = match format {
        Format::Ndl => document(&kind, &arrays, &group_attributes).map(|mut doc| {
            if let Some(sidecar) = &sidecar {
                merge_attributes(sidecar, &mut doc, &mut warnings);
            }
            doc.to_yaml()
        }),
        Format::Numpy => numpy_dicts(&kind, &arrays),
        Format::Datashape => listing(&kind, &arrays, |a| Ok(datashape(&a.header))),
        Format::Zarr => zarr_metadata(&kind, &arrays),
        Format::Cdl if kind == Kind::Group => group_cdl(path, &arrays, &group_attributes),
        Format::Cdl => cdl_document(path, &arrays),
    }
    // Every error names the file, as the reading errors do.
    .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Described { text, warnings })
}

fn load(
    path: &Path,
    limits: &HeaderLimits,
    warnings: &mut Vec<String>,
) -> Result<(Kind, Vec<Array>), String> {
    let shown = path.display();
    let mut file = File::open(path).map_err(|e| format!("{shown}: {e}"))?;
    let mut start = Vec::with_capacity(6);
    (&mut file)
        .take(6)
        .read_to_end(&mut start)
        .map_err(|e| format!("{shown}: {e}"))?;
    if start.as_slice() == npy::MAGIC {
        let file_len = file.metadata().map_err(|e| format!("{shown}: {e}"))?.len();
        file.rewind().map_err(|e| format!("{shown}: {e}"))?;
        let mut reader = BufReader::new(file);
        let header = Header::read(&mut reader, limits).map_err(|e| e.in_file(path).to_string())?;
        // Only the header is read, but a file cut short is still broken:
        // NumPy could not load it, so neither is it described.
        let data_start = reader
            .stream_position()
            .map_err(|e| format!("{shown}: {e}"))?;
        let data_len = header.data_len().map_err(|e| e.in_file(path).to_string())?;
        let available = file_len.saturating_sub(data_start);
        if available < data_len {
            return Err(npy::Error::UnexpectedEof {
                what: "array data",
                offset: data_start,
                expected: data_len,
                got: available,
            }
            .in_file(path)
            .to_string());
        }
        let array = Array {
            group: "/".into(),
            name: stem(path),
            header,
            store: None,
        };
        return Ok((Kind::Npy, vec![array]));
    }
    if start.starts_with(b"PK\x03\x04") || start.starts_with(b"PK\x05\x06") {
        return load_npz(path, limits, warnings).map(|arrays| (Kind::Npz, arrays));
    }
    if start.is_empty() {
        return Err(format!("{shown}: the file is empty"));
    }
    // `np.load` takes anything else for a pickle; say so when it is one.
    let pickle = match start.as_slice() {
        [0x80, 2..=5, ..] => " (a Python pickle, which is not described)",
        _ => "",
    };
    Err(format!(
        "{shown}: not a .npy file (which starts with \\x93NUMPY) nor a .npz archive (a zip file); it starts with {}{pickle}",
        escape_bytes(&start)
    ))
}

fn load_npz(
    path: &Path,
    limits: &HeaderLimits,
    warnings: &mut Vec<String>,
) -> Result<Vec<Array>, String> {
    let mut archive = NpzReader::open(path)
        .map_err(|e| e.to_string())?
        .max_header_size(limits.max_header_size);
    let mut arrays = Vec::new();
    for name in archive.names() {
        let header = match archive.header(&name) {
            Ok(h) => h,
            // As `np.load` does, a member without the whole magic string
            // is not an array (NumPy returns its bytes); one that has the
            // magic but is broken after it is a broken array.
            Err(e)
                if matches!(
                    e.kind(),
                    npy::Error::BadMagic { .. }
                        | npy::Error::UnexpectedEof {
                            what: "magic string",
                            got: 0..=5,
                            ..
                        }
                ) =>
            {
                warnings.push(format!(
                    "{}: member `{name}` is not a .npy array; left out",
                    path.display()
                ));
                continue;
            }
            // The error names the member as `archive.npz/member.npy`.
            Err(e) => return Err(e.to_string()),
        };
        let (group, name) = npz::group_path(&name);
        arrays.push(Array {
            group,
            name,
            header,
            store: None,
        });
    }
    Ok(arrays)
}

/// The arrays of a Zarr store: one array of records, packed as the store
/// holds them with the enum names and descriptions of its `ndl_datatype`
/// attribute; or the arrays of a group, with the group's attributes.
fn load_store(
    path: &Path,
    group_attributes: &mut serde_json::Map<String, serde_json::Value>,
) -> Result<(Kind, Vec<Array>), String> {
    let array = |name: String, info: ArrayInfo| -> Result<Array, String> {
        let datatype = PackedLayout::new(&info.datatype())
            .map_err(|e| format!("{}: {e}", path.display()))?
            .datatype()
            .clone();
        let mut header = Header::new(datatype, info.shape().to_vec());
        header.byte_order = info.byte_order();
        Ok(Array {
            group: "/".into(),
            name,
            header,
            store: Some(info),
        })
    };
    match StoreInfo::open(path).map_err(|e| e.to_string())? {
        StoreInfo::Array(info) => Ok((Kind::Store, vec![array(stem(path), *info)?])),
        StoreInfo::Group(group) => {
            *group_attributes = group.attributes().clone();
            let arrays = group
                .arrays()
                .iter()
                .map(|(name, info)| array(name.clone(), info.clone()))
                .collect::<Result<_, _>>()?;
            Ok((Kind::Group, arrays))
        }
    }
}

/// Attributes that keep a store's bookkeeping, not the data's meaning.
fn is_bookkeeping(name: &str) -> bool {
    matches!(
        name,
        "_ARRAY_DIMENSIONS" | "_NCZARR_ATTR" | "_nczarr_attr" | "ndl_datatype"
    )
}

/// An NDL attribute for a Zarr attribute: text, a number, or a list of
/// numbers of `element`'s type (the CF flags of a column).
fn ndl_attribute(value: &serde_json::Value, element: &Datatype) -> Option<ndl::Attribute> {
    use serde_json::Value as J;
    match value {
        J::String(s) => Some(ndl::Attribute::from(s.as_str())),
        J::Array(items) if element.as_int().is_some() && items.iter().all(J::is_number) => {
            let values: Vec<serde_yaml::Value> = items
                .iter()
                .filter_map(|v| serde_yaml::to_value(v).ok())
                .collect();
            Some(ndl::Attribute::long(
                [values.len()],
                element.clone(),
                values,
            ))
        }
        other => ndl::Attribute::new(serde_yaml::to_value(other).ok()?).ok(),
    }
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or_else(|| "array".into(), |s| s.to_string_lossy().into_owned())
}

fn escape_bytes(bytes: &[u8]) -> String {
    let escaped: String = bytes
        .iter()
        .flat_map(|b| b.escape_ascii())
        .map(char::from)
        .collect();
    format!("b\"{escaped}\"")
}

/// The NDL document of the file: one ndarray per array, in groups for npz
/// member names with `/`.
fn document(
    kind: &Kind,
    arrays: &[Array],
    group_attributes: &serde_json::Map<String, serde_json::Value>,
) -> Result<ndl::File, String> {
    if let (Kind::Npy | Kind::Store, [a]) = (kind, arrays) {
        return Ok(ndl::File::single_ndarray(a.name.clone(), ndarray(a)));
    }
    let mut doc = ndl::File::new();
    if let Some(root) = doc.groups.get_mut("/") {
        for (name, value) in group_attributes.iter().filter(|(n, _)| !is_bookkeeping(n)) {
            if let Some(attr) = ndl_attribute(value, &Datatype::String) {
                root.attributes.insert(name, attr);
            }
        }
    }
    for a in arrays {
        doc.insert_ndarray(&a.group, a.name.clone(), ndarray(a))
            .map_err(|e| format!("array `{}`: {e}", a.label()))?;
    }
    Ok(doc)
}

fn ndarray(a: &Array) -> Ndarray {
    let h = &a.header;
    let shape: Vec<usize> = h.shape.iter().map(|&d| d as usize).collect();
    let storage = match &a.store {
        Some(info) => info.storage(),
        None => npy::storage_of(h, &h.datatype),
    };
    let mut nd = Ndarray::new(shape, h.datatype.clone()).with_storage(storage);
    let attributes = a.store.iter().flat_map(|info| info.attributes());
    for (name, value) in attributes.filter(|(n, _)| !is_bookkeeping(n)) {
        if let Some(attr) = ndl_attribute(value, &h.datatype) {
            nd.attributes.insert(name, attr);
        }
    }
    nd
}

/// Takes enum names, descriptions and attributes from the sidecar for every
/// ndarray whose sidecar datatype has the file's layout.
/// The NDL sidecar beside `path` (`.yaml`, else `.yml`), if there is one
/// that reads; one that is there but does not read is worth a warning: the
/// user expects its names in the output.
fn read_sidecar(path: &Path, warnings: &mut Vec<String>) -> Option<(PathBuf, ndl::File)> {
    let side_path = npy::find_sidecar(path)?;
    let parsed = std::fs::read_to_string(&side_path)
        .map_err(|e| e.to_string())
        .and_then(|text| ndl::File::from_yaml(&text).map_err(|e| e.to_string()));
    match parsed {
        Ok(sidecar) => Some((side_path, sidecar)),
        Err(e) => {
            warnings.push(format!("sidecar {} ignored: {e}", side_path.display()));
            None
        }
    }
}

/// Takes each array's datatype from the sidecar where it has the file's
/// layout: it adds enum member names and descriptions in every language.
fn adopt_datatypes(
    (side_path, sidecar): &(PathBuf, ndl::File),
    arrays: &mut [Array],
    warnings: &mut Vec<String>,
) {
    for a in arrays {
        let full = join(&a.group, &a.name);
        let Some(side_dt) = sidecar.ndarray(&full).and_then(|nd| nd.datatype.as_ref()) else {
            continue;
        };
        if side_dt.same_layout(&a.header.datatype) {
            a.header.datatype = side_dt.clone();
        } else {
            warnings.push(format!(
                "sidecar {}: `{full}` has a datatype of another layout than the file's; its datatype is not used",
                side_path.display()
            ));
        }
    }
}

/// Adds the sidecar's attributes to the document, and says which of its
/// arrays the file does not have.
fn merge_attributes(
    (side_path, sidecar): &(PathBuf, ndl::File),
    doc: &mut ndl::File,
    warnings: &mut Vec<String>,
) {
    for (group_path, side_group) in sidecar.groups.iter() {
        for name in side_group.ndarrays.names() {
            let full = join(group_path, name);
            if doc.ndarray(&full).is_none() {
                warnings.push(format!(
                    "sidecar {}: the file has no array `{full}`; its description is not used",
                    side_path.display()
                ));
            }
        }
    }
    for (group_path, group) in doc.groups.iter_mut() {
        let Some(side_group) = sidecar.group(group_path) else {
            continue;
        };
        for (name, attr) in side_group.attributes.iter() {
            group.attributes.insert(name, attr.clone());
        }
        for (name, nd) in group.ndarrays.iter_mut() {
            let Some(side) = side_group.ndarrays.get(name) else {
                continue;
            };
            for (attr_name, attr) in side.attributes.iter() {
                nd.attributes.insert(attr_name, attr.clone());
            }
        }
    }
}

fn join(group: &str, name: &str) -> String {
    if group == "/" {
        format!("/{name}")
    } else {
        format!("{group}/{name}")
    }
}

/// One line for a single `.npy`; `name: text` lines for an archive.
fn listing(
    kind: &Kind,
    arrays: &[Array],
    render: impl Fn(&Array) -> Result<String, String>,
) -> Result<String, String> {
    let mut out = String::new();
    for a in arrays {
        let text = render(a)?;
        match kind {
            Kind::Npy | Kind::Store => writeln!(out, "{text}"),
            Kind::Npz | Kind::Group => writeln!(out, "{}: {text}", a.label()),
        }
        .expect("writing to a String");
    }
    Ok(out)
}

/// The header dict of a `.npy` file; for an archive, one Python dict
/// literal of them keyed by array name, so `ast.literal_eval` reads either.
fn numpy_dicts(kind: &Kind, arrays: &[Array]) -> Result<String, String> {
    if let (Kind::Npy | Kind::Store, [a]) = (kind, arrays) {
        return Ok(numpy_dict(a)? + "\n");
    }
    let mut out = String::from("{\n");
    for a in arrays {
        // A JSON string is a Python str literal: its escapes (\", \\, \n,
        // \uXXXX) mean the same in Python, and it writes no `\/`.
        let key = serde_json::to_string(&a.label()).expect("strings serialise");
        writeln!(out, "  {key}: {},", numpy_dict(a)?).expect("writing to a String");
    }
    out.push_str("}\n");
    Ok(out)
}

/// The header dict as NumPy writes it, without the padding.
fn numpy_dict(a: &Array) -> Result<String, String> {
    let bytes = a
        .header
        .to_bytes()
        .map_err(|e| format!("`{}`: {e}", a.label()))?;
    let length_field = if bytes[6] == 1 { 2 } else { 4 };
    let text = &bytes[8 + length_field..];
    let text = match std::str::from_utf8(text) {
        Ok(t) => t.to_owned(),
        // Versions 1 and 2 are latin-1.
        Err(_) => text.iter().map(|&b| char::from(b)).collect(),
    };
    Ok(text.trim_end().to_owned())
}

fn datashape(h: &Header) -> String {
    let mut out = String::new();
    for d in &h.shape {
        write!(out, "{d} * ").expect("writing to a String");
    }
    out + &h.datatype.to_datashape()
}

fn zarr_metadata(kind: &Kind, arrays: &[Array]) -> Result<String, String> {
    let one = |a: &Array| -> Result<serde_json::Value, String> {
        if let Some(info) = &a.store {
            return Ok(info.metadata().clone());
        }
        let h = &a.header;
        // Zarr stores records packed: padding never reaches a store.
        let packed = PackedLayout::new(&h.datatype).map_err(|e| format!("`{}`: {e}", a.label()))?;
        let mut meta = zarr::v2_array_metadata(packed.datatype(), h.byte_order, &h.shape, None)
            .map_err(|e| format!("`{}`: {e}", a.label()))?;
        if h.fortran_order {
            meta["order"] = "F".into();
        }
        Ok(meta)
    };
    let value = match (kind, arrays) {
        (Kind::Npy | Kind::Store, [a]) => one(a)?,
        _ => {
            let mut map = serde_json::Map::new();
            for a in arrays {
                map.insert(a.label(), one(a)?);
            }
            serde_json::Value::Object(map)
        }
    };
    let mut text = serde_json::to_string_pretty(&value).expect("JSON values serialise");
    text.push('\n');
    Ok(text)
}

/// A CDL document with a dimension per axis and a variable per array; an
/// archive's groups become netCDF-4 groups (`group: name { ... }`).
fn cdl_document(path: &Path, arrays: &[Array]) -> Result<String, String> {
    let cdl_err = |e: ndl_runtime::lang::LangError| e.to_string();
    // Group paths in first-seen order, each after its parent.
    let mut groups: Vec<(String, cdl::Document)> = vec![(
        "/".into(),
        cdl::Document::new(&stem(path)).map_err(cdl_err)?,
    )];
    for a in arrays {
        for g in ancestors_and_self(&a.group) {
            if !groups.iter().any(|(p, _)| *p == g) {
                let name = g.rsplit('/').next().unwrap_or_default();
                let doc = cdl::Document::new(name).map_err(|e| format!("group `{g}`: {e}"))?;
                groups.push((g, doc));
            }
        }
        let doc = &mut groups
            .iter_mut()
            .find(|(p, _)| *p == a.group)
            .expect("the group was just added")
            .1;
        let at = |e: ndl_runtime::lang::LangError| format!("`{}`: {e}", a.label());
        let dims: Vec<String> = (0..a.header.shape.len())
            .map(|i| format!("{}_dim{i}", a.name))
            .collect();
        for (dim, &size) in dims.iter().zip(&a.header.shape) {
            // netCDF has no fixed dimension of length 0; an unlimited one
            // holding 0 records says the same.
            let size = (size > 0).then_some(size as usize);
            doc.add_dimension(dim, size).map_err(at)?;
        }
        let dim_refs: Vec<&str> = dims.iter().map(String::as_str).collect();
        doc.add_variable(
            &a.name,
            &a.header.datatype,
            &format!("{}_t", a.name),
            &dim_refs,
        )
        .map_err(at)?;
    }
    Ok(render_cdl_group(&groups, "/"))
}

/// The CDL of a group of arrays as netCDF-C reads a Zarr group: a
/// dimension per dimension name, a variable per array, the attributes as
/// `ncdump -h` shows them (bookkeeping ones too, as text).
fn group_cdl(
    path: &Path,
    arrays: &[Array],
    group_attributes: &serde_json::Map<String, serde_json::Value>,
) -> Result<String, String> {
    let err = |e: ndl_runtime::lang::LangError| e.to_string();
    let mut doc = cdl::Document::new(&stem(path)).map_err(err)?;
    let mut dims: Vec<(String, u64)> = Vec::new();
    let mut var_dims = Vec::new();
    for a in arrays {
        let names: Vec<String> = match a.store.as_ref().and_then(|i| i.dimension_names()) {
            Some(names) => names
                .iter()
                .enumerate()
                .map(|(k, n)| n.clone().unwrap_or_else(|| format!("_zdim_{k}")))
                .collect(),
            None => (0..a.header.shape.len())
                .map(|k| format!("_zdim_{k}"))
                .collect(),
        };
        for (name, &size) in names.iter().zip(&a.header.shape) {
            match dims.iter().find(|(n, _)| n == name) {
                Some((_, s)) if *s != size => {
                    return Err(format!(
                        "`{}`: dimension `{name}` is {size} long here and {s} elsewhere",
                        a.name
                    ))
                }
                Some(_) => {}
                None => dims.push((name.clone(), size)),
            }
        }
        var_dims.push(names);
    }
    for (name, size) in &dims {
        doc.add_dimension(name, (*size > 0).then_some(*size as usize))
            .map_err(err)?;
    }
    for (a, names) in arrays.iter().zip(&var_dims) {
        let at = |e: ndl_runtime::lang::LangError| format!("`{}`: {e}", a.name);
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        doc.add_variable(&a.name, &a.header.datatype, &format!("{}_t", a.name), &refs)
            .map_err(at)?;
        let attributes = a.store.iter().flat_map(|info| info.attributes());
        for (name, value) in attributes
            .filter(|(n, _)| n.as_str() != "_ARRAY_DIMENSIONS" && n.as_str() != "_NCZARR_ATTR")
        {
            doc.add_attribute(
                Some(&a.name),
                name,
                cdl_attribute(value, &a.header.datatype),
            )
            .map_err(at)?;
        }
    }
    for (name, value) in group_attributes
        .iter()
        .filter(|(n, _)| n.as_str() != "_NCZARR_ATTR")
    {
        doc.add_attribute(None, name, cdl_attribute(value, &Datatype::String))
            .map_err(err)?;
    }
    Ok(doc.to_string())
}

/// A Zarr attribute as netCDF-C 4.9 types it: text as text, numbers of the
/// variable's integer type (what `_NCZARR_ATTR` says of CF flags), other
/// integers as `int` or `int64`, floats as `double`, anything else as its
/// JSON text.
fn cdl_attribute(value: &serde_json::Value, element: &Datatype) -> cdl::AttrValue {
    use serde_json::Value as J;
    let items: Vec<&J> = match value {
        J::Array(items) => items.iter().collect(),
        one => vec![one],
    };
    if let J::String(s) = value {
        return cdl::AttrValue::Text(s.clone());
    }
    if items.iter().all(|v| v.is_i64() || v.is_u64()) && !items.is_empty() {
        let ints: Vec<i128> = items
            .iter()
            .map(|v| {
                v.as_i64()
                    .map(i128::from)
                    .or(v.as_u64().map(i128::from))
                    .unwrap_or(0)
            })
            .collect();
        let t = element
            .as_int()
            .filter(|t| ints.iter().all(|&v| t.contains(v)))
            .unwrap_or(if ints.iter().all(|&v| i32::try_from(v).is_ok()) {
                ndl_runtime::IntType::Int32
            } else {
                ndl_runtime::IntType::Int64
            });
        return cdl::AttrValue::Ints(t, ints);
    }
    if items.iter().all(|v| v.is_number()) && !items.is_empty() {
        return cdl::AttrValue::Doubles(items.iter().filter_map(|v| v.as_f64()).collect());
    }
    cdl::AttrValue::Text(netcdf_json(value))
}

/// JSON as netCDF-C writes it back as text: `", "` between an object's
/// members, `","` between a list's items, `": "` after keys.
fn netcdf_json(value: &serde_json::Value) -> String {
    use serde_json::Value as J;
    match value {
        J::Object(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", J::String(k.clone()), netcdf_json(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        J::Array(items) => {
            let items: Vec<String> = items.iter().map(netcdf_json).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

/// `/a/b` -> `/`, `/a`, `/a/b`.
fn ancestors_and_self(group: &str) -> Vec<String> {
    let mut out = vec!["/".to_string()];
    let mut path = String::new();
    for part in group.split('/').filter(|p| !p.is_empty()) {
        path.push('/');
        path.push_str(part);
        out.push(path.clone());
    }
    out
}

/// The group's document text with its subgroups nested before the closing
/// brace, where CDL puts them (after the variables).
fn render_cdl_group(groups: &[(String, cdl::Document)], path: &str) -> String {
    let (_, doc) = groups
        .iter()
        .find(|(p, _)| p == path)
        .expect("rendered groups exist");
    let text = doc.to_string();
    let mut out = text
        .strip_suffix("}\n")
        .expect("a CDL document ends with its closing brace")
        .to_string();
    let children = groups.iter().filter(|(p, _)| p != "/" && parent(p) == path);
    for (child, _) in children {
        let inner = render_cdl_group(groups, child);
        // `netcdf name {` ... `}` becomes `group: name {` ... `} // group name`.
        let inner = inner
            .strip_prefix("netcdf ")
            .expect("a CDL document starts with `netcdf`");
        let header_end = inner.find(" {\n").expect("the document's opening line");
        let name = &inner[..header_end];
        let body = inner.strip_suffix("}\n").expect("the closing brace");
        // Indented as `ncdump` indents nested groups.
        let mut lines = body.lines();
        let first = lines.next().unwrap_or_default();
        write!(out, "\ngroup: {first}\n").expect("writing to a String");
        for line in lines {
            let indent = if line.is_empty() { "" } else { "  " };
            writeln!(out, "{indent}{line}").expect("writing to a String");
        }
        writeln!(out, "  }} // group {name}").expect("writing to a String");
    }
    out.push_str("}\n");
    out
}

/// `/a/b` -> `/a`; `/a` -> `/`.
fn parent(path: &str) -> &str {
    match path.rsplit_once('/') {
        Some(("", _)) | None => "/",
        Some((p, _)) => p,
    }
}
