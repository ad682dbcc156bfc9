//! `ndl describe`: the arrays of a `.npy` or `.npz` file, in each language.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use ndl_runtime::lang::{cdl, zarr};
use ndl_runtime::ndl::{self, Ndarray, Storage};
use ndl_runtime::npy::{self, Header, HeaderLimits};
use ndl_runtime::npz::{self, NpzReader};

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

/// What a file is, by its first bytes.
enum Kind {
    Npy,
    Npz,
}

/// Describes the file at `path` in `format`.
pub fn describe(path: &Path, format: Format, options: &Options) -> Result<Described, String> {
    let mut warnings = Vec::new();
    let limits = HeaderLimits {
        max_header_size: options.max_header_size,
    };
    let (kind, arrays) = load(path, &limits, &mut warnings)?;
    let text = match format {
        Format::Ndl => {
            let mut doc = document(path, &kind, &arrays)?;
            if options.sidecar {
                merge_sidecar(path, &mut doc, &mut warnings);
            }
            doc.to_yaml()
        }
        Format::Numpy => listing(&kind, &arrays, numpy_dict)?,
        Format::Datashape => listing(&kind, &arrays, |a| Ok(datashape(&a.header)))?,
        Format::Zarr => zarr_metadata(&kind, &arrays)?,
        Format::Cdl => cdl_document(path, &arrays)?,
    };
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
        let mut reader = BufReader::new(File::open(path).map_err(|e| format!("{shown}: {e}"))?);
        let header = Header::read(&mut reader, limits).map_err(|e| e.in_file(path).to_string())?;
        let array = Array {
            group: "/".into(),
            name: stem(path),
            header,
        };
        return Ok((Kind::Npy, vec![array]));
    }
    if start.starts_with(b"PK\x03\x04") || start.starts_with(b"PK\x05\x06") {
        return load_npz(path, limits, warnings).map(|arrays| (Kind::Npz, arrays));
    }
    if start.is_empty() {
        return Err(format!("{shown}: the file is empty"));
    }
    Err(format!(
        "{shown}: not a .npy file (which starts with \\x93NUMPY) nor a .npz archive (a zip file); it starts with {}",
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
            Err(e) if matches!(e.kind(), npy::Error::BadMagic { .. }) => {
                warnings.push(format!(
                    "{}: member `{name}` is not a .npy array; left out",
                    path.display()
                ));
                continue;
            }
            Err(e) => return Err(format!("{}: array `{name}`: {e}", path.display())),
        };
        let (group, name) = npz::group_path(&name);
        arrays.push(Array {
            group,
            name,
            header,
        });
    }
    Ok(arrays)
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
fn document(path: &Path, kind: &Kind, arrays: &[Array]) -> Result<ndl::File, String> {
    if let (Kind::Npy, [a]) = (kind, arrays) {
        return Ok(ndl::File::single_ndarray(
            a.name.clone(),
            ndarray(&a.header),
        ));
    }
    let mut doc = ndl::File::new();
    for a in arrays {
        doc.insert_ndarray(&a.group, a.name.clone(), ndarray(&a.header))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(doc)
}

fn ndarray(h: &Header) -> Ndarray {
    let shape: Vec<usize> = h.shape.iter().map(|&d| d as usize).collect();
    let storage = Storage {
        endian: h.datatype.has_multibyte_numbers().then_some(h.byte_order),
        ..Storage::default()
    };
    Ndarray::new(shape, h.datatype.clone()).with_storage(storage)
}

/// Takes enum names, descriptions and attributes from the sidecar for every
/// ndarray whose sidecar datatype has the file's layout.
fn merge_sidecar(path: &Path, doc: &mut ndl::File, warnings: &mut Vec<String>) {
    let Some((side_path, text)) = ["yaml", "yml"].iter().find_map(|ext| {
        let p: PathBuf = path.with_extension(ext);
        std::fs::read_to_string(&p).ok().map(|t| (p, t))
    }) else {
        return;
    };
    let sidecar = match ndl::File::from_yaml(&text) {
        Ok(s) => s,
        Err(e) => {
            warnings.push(format!("sidecar {} ignored: {e}", side_path.display()));
            return;
        }
    };
    for (group_path, group) in doc.groups.iter_mut() {
        if let Some(side_group) = sidecar.group(group_path) {
            for (name, attr) in side_group.attributes.iter() {
                group.attributes.insert(name, attr.clone());
            }
        }
        for (name, nd) in group.ndarrays.iter_mut() {
            let full = join(group_path, name);
            let Some(side) = sidecar.ndarray(&full) else {
                continue;
            };
            if let (Some(side_dt), Some(file_dt)) = (&side.datatype, &nd.datatype) {
                if side_dt.same_layout(file_dt) {
                    nd.datatype = Some(side_dt.clone());
                } else {
                    warnings.push(format!(
                        "sidecar {}: `{full}` has a datatype of another layout than the file's; its datatype is not used",
                        side_path.display()
                    ));
                }
            }
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
            Kind::Npy => writeln!(out, "{text}"),
            Kind::Npz => writeln!(out, "{}: {text}", a.label()),
        }
        .expect("writing to a String");
    }
    Ok(out)
}

/// The header dict as NumPy writes it, without the padding.
fn numpy_dict(a: &Array) -> Result<String, String> {
    let bytes = a.header.to_bytes().map_err(|e| e.to_string())?;
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
        let h = &a.header;
        let mut meta = zarr::v2_array_metadata(&h.datatype, h.byte_order, &h.shape, None)
            .map_err(|e| format!("`{}`: {e}", a.label()))?;
        if h.fortran_order {
            meta["order"] = "F".into();
        }
        Ok(meta)
    };
    let value = match (kind, arrays) {
        (Kind::Npy, [a]) => one(a)?,
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

/// A CDL document with a dimension per axis and a variable per array.
fn cdl_document(path: &Path, arrays: &[Array]) -> Result<String, String> {
    let mut doc = cdl::Document::new(&stem(path)).map_err(|e| e.to_string())?;
    for a in arrays {
        if a.group != "/" {
            return Err(format!(
                "`{}`: CDL output holds top-level arrays only; this archive has groups (use --format ndl)",
                a.label()
            ));
        }
        let dims: Vec<String> = (0..a.header.shape.len())
            .map(|i| format!("{}_dim{i}", a.name))
            .collect();
        for (dim, &size) in dims.iter().zip(&a.header.shape) {
            // netCDF has no fixed dimension of length 0; an unlimited one
            // holding 0 records says the same.
            let size = (size > 0).then_some(size as usize);
            doc.add_dimension(dim, size).map_err(|e| e.to_string())?;
        }
        let dim_refs: Vec<&str> = dims.iter().map(String::as_str).collect();
        doc.add_variable(
            &a.name,
            &a.header.datatype,
            &format!("{}_t", a.name),
            &dim_refs,
        )
        .map_err(|e| format!("`{}`: {e}", a.label()))?;
    }
    Ok(doc.to_string())
}
