//! What a document makes, worked out whole before anything is written:
//! every extent resolved through the dimcoords, every value converted,
//! every directive read, so a document that cannot be made fails here.

use ndl_runtime::lang::zarr::Codec;
use ndl_runtime::ndl::{Attribute, DimCoord, Extent, File, FileForm, NameMap, Ndarray, Storage};
use ndl_runtime::{ByteOrder, Compound, Datatype};
use serde_yaml::Value;

use super::values::{Values, encode, keyword};

/// A filter of an array's chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Filter {
    /// zlib's deflate (`gzip`, `deflate`, `zlib`) at a level from 0 to 9.
    Deflate(u8),
    /// The byte shuffle (`shuffle`).
    Shuffle,
    /// A Zarr codec, as `ndl describe` gives a store's (`{name: zstd,
    /// configuration: {level: 3, checksum: false}}`); HDF5 takes its
    /// gzip and zlib as deflate.
    Zarr(Codec),
}

impl Filter {
    /// The filter as HDF5 has it, if it has it.
    pub fn hdf5(self) -> Option<Filter> {
        match self {
            Filter::Zarr(Codec::Gzip(level) | Codec::Zlib(level)) if level <= 9 => {
                u8::try_from(level).ok().map(Filter::Deflate)
            }
            Filter::Zarr(_) => None,
            other => Some(other),
        }
    }
}

/// Deflate's level where the document gives none: zlib's and h5py's default.
const DEFAULT_LEVEL: u8 = 4;

/// Everything a document makes.
pub(crate) struct Plan {
    /// The groups, in document order.
    pub groups: Vec<PlannedGroup>,
}

/// One group: its attributes, then its dimcoords and its ndarrays.
pub(crate) struct PlannedGroup {
    /// Its path (`/`, `/group1`).
    pub path: String,
    pub attributes: Vec<PlannedAttribute>,
    pub dimcoords: Vec<PlannedArray>,
    pub ndarrays: Vec<PlannedArray>,
}

/// An attribute with its values.
#[derive(Clone)]
pub(crate) struct PlannedAttribute {
    pub name: String,
    pub datatype: Datatype,
    pub shape: Vec<u64>,
    pub values: Values,
    /// The document's value, for formats that keep attributes as JSON.
    pub value: Value,
}

/// A dimcoord or ndarray: the array to make.
#[derive(Clone)]
pub(crate) struct PlannedArray {
    pub name: String,
    /// Where it is in the document, as errors name it.
    pub at: String,
    /// Its path name (`/group1/d2`).
    pub path: String,
    pub datatype: Datatype,
    /// The extents it is made with.
    pub extents: Vec<u64>,
    /// Per dimension, the declared size; `None` for unlimited.
    pub max: Vec<Option<u64>>,
    /// Per dimension, the dimcoord it is mapped to, by group path and name.
    pub dims: Vec<Option<(String, String)>>,
    pub chunk: Option<Vec<u64>>,
    pub filters: Vec<Filter>,
    pub byte_order: ByteOrder,
    /// The value standing for none, one element in native order: the
    /// document's `storage.fillvalue`, or an `optional`'s default.
    pub fill: Option<Vec<u8>>,
    /// Whether the document's datatype is `optional` (now `datatype`, its
    /// base): its nulls are `fill`, which readers are told to mask.
    pub optional: bool,
    /// Whether readers are told to mask `fill` (its `_FillValue`
    /// attribute, written of the array's type): an `optional`'s, or one
    /// the document gives as a `_FillValue` attribute.
    pub masked: bool,
    pub values: Values,
    /// The document's value, for formats that store another layout.
    pub value: Option<Value>,
    pub attributes: Vec<PlannedAttribute>,
}

/// Where in the document and what is wrong.
pub(crate) type PlanError = (String, String);

impl Plan {
    /// The plan of `file`, which [`File::from_yaml`] has checked.
    pub fn of(file: &File) -> Result<Plan, PlanError> {
        let mut groups = Vec::new();
        for (path, group) in file.groups.iter() {
            let ctx = match file.form {
                FileForm::Flat => String::new(),
                FileForm::Grouped => path.to_string(),
            };
            let mut planned = PlannedGroup {
                path: path.to_string(),
                attributes: attributes(&group.attributes, &ctx)?,
                dimcoords: Vec::new(),
                ndarrays: Vec::new(),
            };
            for (name, dc) in group.dimcoords.iter() {
                let at = join(&ctx, &format!("dimcoord `{name}`"));
                planned.dimcoords.push(dimcoord(path, name, dc, &at)?);
            }
            for (name, nd) in group.ndarrays.iter() {
                let at = join(&ctx, &format!("ndarray `{name}`"));
                if group.dimcoords.get(name).is_some() {
                    let why = "a dimcoord of this group has the name too; a group holds one object of a name (a dimcoord is an array of its own)";
                    return Err((at, why.into()));
                }
                planned.ndarrays.push(ndarray(file, path, name, nd, &at)?);
            }
            groups.push(planned);
        }
        let plan = Plan { groups };
        plan.refuse_groups_named_like_arrays()?;
        Ok(plan)
    }

    /// Refuses a group at an array's path, or below it (whose parent the
    /// array would be): a file or store holds one object at a path.
    fn refuse_groups_named_like_arrays(&self) -> Result<(), PlanError> {
        for (_, a) in self.arrays() {
            let below = format!("{}/", a.path);
            let group = self
                .groups
                .iter()
                .find(|g| g.path == a.path || g.path.starts_with(&below));
            if let Some(g) = group {
                let why = format!(
                    "the group `{}` needs its path, `{}`, for a group; a path names one object",
                    g.path, a.path
                );
                return Err((a.at.clone(), why));
            }
        }
        Ok(())
    }

    /// Every array, dimcoords first, with its group's path.
    pub fn arrays(&self) -> impl Iterator<Item = (&str, &PlannedArray)> {
        let dimcoords = self
            .groups
            .iter()
            .flat_map(|g| g.dimcoords.iter().map(move |a| (g.path.as_str(), a)));
        let ndarrays = self
            .groups
            .iter()
            .flat_map(|g| g.ndarrays.iter().map(move |a| (g.path.as_str(), a)));
        dimcoords.chain(ndarrays)
    }
}

fn join(ctx: &str, segment: &str) -> String {
    match ctx.is_empty() {
        true => segment.to_string(),
        false => format!("{ctx}: {segment}"),
    }
}

fn path_of(group: &str, name: &str) -> String {
    format!("{}/{name}", group.trim_end_matches('/'))
}

fn dimcoord(group: &str, name: &str, dc: &DimCoord, at: &str) -> Result<PlannedArray, PlanError> {
    let given = value_len(dc.value.as_ref());
    let current = dc.storage.size.or(given).or(dc.size).unwrap_or(0) as u64;
    let max = vec![dc.size.map(|n| n as u64)];
    let dims = vec![Some((group.to_string(), name.to_string()))];
    array(group, name, &dc.datatype, &dc.storage, &dc.attributes, at)
        .map(|a| a.shaped(vec![current], max, dims))?
        .with_values(dc.value.as_ref(), at)
}

fn ndarray(
    file: &File,
    group: &str,
    name: &str,
    nd: &Ndarray,
    at: &str,
) -> Result<PlannedArray, PlanError> {
    let datatype = nd.datatype.as_ref().ok_or_else(|| {
        (
            at.to_string(),
            "no `type`: `ndl create` needs the datatype of every ndarray".to_string(),
        )
    })?;
    let mut extents = Vec::new();
    let mut max = Vec::new();
    let mut dims = Vec::new();
    for (k, e) in nd.shape.0.iter().enumerate() {
        let given = value_len(nested(nd.value.as_ref(), k));
        let (declared, dim, current) = match e {
            Extent::Size(n) => (Some(*n as u64), None, *n as u64),
            Extent::Unlimited => (None, None, given.unwrap_or(0) as u64),
            Extent::Dim(r) => {
                let (path, dc) = file.resolve_dimcoord(group, r).ok_or_else(|| {
                    (
                        format!("{at}: shape[{k}]"),
                        format!("`{r}` names no dimcoord"),
                    )
                })?;
                let (g, n) = path.rsplit_once('/').unwrap_or(("", &path));
                let g = if g.is_empty() { "/" } else { g };
                let current = dc
                    .storage
                    .size
                    .or(given)
                    .or(value_len(dc.value.as_ref()))
                    .or(dc.size);
                (
                    dc.size.map(|n| n as u64),
                    Some((g.to_string(), n.to_string())),
                    current.unwrap_or(0) as u64,
                )
            }
        };
        max.push(declared);
        dims.push(dim);
        extents.push(current);
    }
    if let Some(stored) = &nd.storage.shape {
        extents = stored.iter().map(|&n| n as u64).collect();
    }
    countable(&extents, datatype, at)?;
    array(group, name, datatype, &nd.storage, &nd.attributes, at)
        .map(|a| a.shaped(extents, max, dims))?
        .with_values(nd.value.as_ref(), at)
}

/// Checks that the extents of an array of `datatype`, and the bytes they
/// hold, multiply to a number 64 bits count (every format counts them so;
/// the HDF5 library multiplies them even where one is 0).
fn countable(extents: &[u64], datatype: &Datatype, at: &str) -> Result<(), PlanError> {
    let size = datatype.size().unwrap_or(1).max(1) as u64;
    let bytes = extents
        .iter()
        .try_fold(size, |n, &d| n.checked_mul(d.max(1)));
    match bytes {
        Some(_) => Ok(()),
        None => Err((
            format!("{at}: shape"),
            format!("extents {extents:?} of {size}-byte elements multiply past 2^64"),
        )),
    }
}

/// The array without its shape and values, its storage read.
fn array(
    group: &str,
    name: &str,
    datatype: &Datatype,
    storage: &Storage,
    attrs: &NameMap<Attribute>,
    at: &str,
) -> Result<PlannedArray, PlanError> {
    check_array_type(datatype, at)?;
    let optional = matches!(datatype, Datatype::Optional(_));
    let (said, attrs) = said_fill(datatype, attrs, storage.fillvalue.as_ref(), at)?;
    let given = match (&storage.fillvalue, &said) {
        (Some(fill), _) => Some((fill, "storage.fillvalue")),
        (None, Some(fill)) => Some((fill, "attribute `_FillValue`")),
        (None, None) => None,
    };
    let (datatype, fill) = fill_of(datatype, given, at)?;
    if let Some(charset) = &storage.charset
        && !matches!(
            charset.to_ascii_lowercase().as_str(),
            "utf-8" | "utf8" | "ascii"
        )
    {
        let why = format!("unknown charset `{charset}`; expected ascii or utf-8");
        return Err((format!("{at}: storage.charset"), why));
    }
    Ok(PlannedArray {
        name: name.to_string(),
        at: at.to_string(),
        path: path_of(group, name),
        datatype,
        extents: Vec::new(),
        max: Vec::new(),
        dims: Vec::new(),
        chunk: storage
            .chunk
            .as_ref()
            .map(|c| c.iter().map(|&n| n as u64).collect()),
        filters: filters(storage.filter.as_deref(), at)?,
        byte_order: storage.endian.unwrap_or(ByteOrder::NATIVE),
        fill,
        optional,
        masked: optional || said.is_some(),
        values: Values::Fill,
        value: None,
        attributes: attributes(&attrs, at)?,
    })
}

/// The fill a number array's `_FillValue` attribute gives (one number,
/// or a list of one, as `ndl describe` gives a netCDF variable's), and
/// the attributes without it: the fill is written as the array's (its
/// HDF5 fill, a Zarr `fill_value`) and the attribute of the array's type,
/// as netCDF-C and xarray want it. Beside a `storage.fillvalue`, the
/// attribute must be that value.
fn said_fill(
    datatype: &Datatype,
    attrs: &NameMap<Attribute>,
    fillvalue: Option<&Value>,
    at: &str,
) -> Result<(Option<Value>, NameMap<Attribute>), PlanError> {
    let base = match datatype {
        Datatype::Optional(base) => base,
        other => other,
    };
    let given = attrs.get("_FillValue").map(|a| match &a.value {
        Value::Sequence(one) if one.len() == 1 => one[0].clone(),
        other => other.clone(),
    });
    let Some(given) = given.filter(|v| is_number(base) && v.is_number()) else {
        return Ok((None, attrs.clone()));
    };
    let mut rest = attrs.clone();
    rest.remove("_FillValue");
    let Some(fillvalue) = fillvalue else {
        return Ok((Some(given), rest));
    };
    let fill_at = format!("{at}: storage.fillvalue");
    let given_at = format!("{at}: attribute `_FillValue`");
    let same = encode(fillvalue, &[], base, None, &fill_at)?
        == encode(&given, &[], base, None, &given_at)?;
    if !same {
        let why = format!(
            "`_FillValue` is {}, and `storage.fillvalue` another: give the fill once",
            serde_yaml::to_string(&given).unwrap_or_default().trim()
        );
        return Err((given_at, why));
    }
    Ok((Some(given), rest))
}

impl PlannedArray {
    /// Whether this dimcoord of `group` is a dimension alone, as `ndl
    /// describe` gives one that has no coordinate variable: its indices
    /// (`uint64`, no values, no attributes). netCDF-4 and Zarr make the
    /// dimension without an array, as netCDF-C and xarray do.
    pub fn is_dimension_only(&self, group: &str) -> bool {
        let own = self.dims.first().and_then(Option::as_ref);
        own.is_some_and(|(g, n)| g == group && *n == self.name)
            && self.datatype == Datatype::UInt64
            && self.values == Values::Fill
            && self.fill.is_none()
            && self.attributes.is_empty()
    }

    /// The name of the dimension `k`, which maps to no dimcoord: one of
    /// its size shared in the group (`dim_<size>`), the second of that
    /// size in this array `dim_<size>_2` and so on (xarray refuses a
    /// variable naming one dimension twice); an unlimited one its own
    /// (`<ndarray>_<k>`).
    pub fn anonymous_dimension(&self, k: usize) -> String {
        let Some(n) = self.max[k] else {
            return format!("{}_{k}", self.name);
        };
        let before = (0..k)
            .filter(|&j| self.dims[j].is_none() && self.max[j] == Some(n))
            .count();
        match before {
            0 => format!("dim_{n}"),
            _ => format!("dim_{n}_{}", before + 1),
        }
    }

    /// The array with one more last dimension of fixed size `n`, the same
    /// elements: a fixed string's characters in netCDF.
    pub fn with_extent(&self, n: u64) -> PlannedArray {
        let mut more = self.clone();
        more.extents.push(n);
        more.max.push(Some(n));
        more.dims.push(None);
        if let Some(chunk) = &mut more.chunk {
            chunk.push(n);
        }
        more
    }

    /// The array with its array datatype's dimensions as its last ones,
    /// for formats without array-typed arrays. The elements' bytes are
    /// the same; so is the value, nested one level per dimension.
    pub fn without_array_type(&self) -> PlannedArray {
        let mut flat = self.clone();
        let Datatype::Array(array) = &self.datatype else {
            return flat;
        };
        let shape = array.shape.iter().map(|&d| d as u64);
        flat.datatype = (*array.base).clone();
        flat.extents.extend(shape.clone());
        flat.max.extend(shape.clone().map(Some));
        flat.dims.extend(shape.clone().map(|_| None));
        if let Some(chunk) = &mut flat.chunk {
            chunk.extend(shape);
        }
        flat
    }

    /// What a null value stands for: an `optional`'s fill.
    pub fn nulls(&self) -> Option<&[u8]> {
        self.fill.as_deref().filter(|_| self.optional)
    }

    fn shaped(
        mut self,
        extents: Vec<u64>,
        max: Vec<Option<u64>>,
        dims: Vec<Option<(String, String)>>,
    ) -> PlannedArray {
        self.extents = extents;
        self.max = max;
        self.dims = dims;
        self
    }

    /// Whether the array is of records holding variable-length members: a
    /// compound with `string` or `vlen` members.
    pub(crate) fn is_records(&self) -> bool {
        matches!(&self.datatype, Datatype::Compound(c) if c.is_variable())
    }

    fn with_values(mut self, value: Option<&Value>, at: &str) -> Result<PlannedArray, PlanError> {
        if let Some(v) = value {
            let at = format!("{at}: value");
            self.values = encode(v, &self.extents, &self.datatype, self.nulls(), &at)?;
            self.value = Some(v.clone());
        }
        Ok(self)
    }
}

/// The length of a list value: what an unlimited dimension holds.
fn value_len(value: Option<&Value>) -> Option<usize> {
    value?.as_sequence().map(Vec::len)
}

/// The first list `depth` levels down, whose length is that dimension's.
fn nested(value: Option<&Value>, depth: usize) -> Option<&Value> {
    (0..depth).try_fold(value?, |v, _| v.as_sequence()?.first())
}

/// The datatype of an array: any [`check_datatype`] takes, a `vlen`
/// sequence of any of them, strings and sequences included, an
/// `optional` number, or a compound with `string` and `vlen` members
/// (records as h5py writes them).
fn check_array_type(datatype: &Datatype, at: &str) -> Result<(), PlanError> {
    match datatype {
        Datatype::Vlen(base) => check_vlen_base(base, at),
        Datatype::Optional(base) if is_number(base) => Ok(()),
        Datatype::Optional(_) => Err((
            format!("{at}: type"),
            "`ndl create` makes optional numbers: their nulls are stored as the fill \
             (`_FillValue`), which other datatypes have no convention for"
                .to_string(),
        )),
        Datatype::Compound(c) if c.is_variable() => check_record(c, at),
        other => check_datatype(other, at),
    }
}

fn check_vlen_base(base: &Datatype, at: &str) -> Result<(), PlanError> {
    match base {
        Datatype::String => Ok(()),
        Datatype::Vlen(inner) => check_vlen_base(inner, at),
        other => check_fixed(other, at),
    }
}

/// The members of a compound holding variable-length ones: strings,
/// sequences, compounds of them and fixed-size values.
fn check_record(compound: &Compound, at: &str) -> Result<(), PlanError> {
    compound.members.iter().try_for_each(|m| match &m.datatype {
        Datatype::String => Ok(()),
        Datatype::Vlen(base) => check_vlen_base(base, at),
        Datatype::Compound(c) if c.is_variable() => check_record(c, at),
        Datatype::Optional(_) => Err((
            format!("{at}: type"),
            format!(
                "member `{}`: `ndl create` makes no optional compound members: a null \
                 needs a fill, and NDL gives one per ndarray (`storage.fillvalue`), not \
                 per member; give the member its base type",
                m.name
            ),
        )),
        other => check_fixed(other, at),
    })
}

pub(crate) fn is_number(datatype: &Datatype) -> bool {
    datatype.as_int().is_some() || matches!(datatype, Datatype::Float32 | Datatype::Float64)
}

/// The datatype an array is stored as and its fill, in native order: an
/// `optional`'s base, its fill the one `given` (the value and the key it
/// is at: `storage.fillvalue`, or the `_FillValue` attribute) or, where
/// none is, NaN for floats and netCDF-C's default fill for integers (what
/// netCDF-C writes where no value is); a number's fill the one given.
/// Fills of other datatypes are refused, naming them.
fn fill_of(
    datatype: &Datatype,
    given: Option<(&Value, &str)>,
    at: &str,
) -> Result<(Datatype, Option<Vec<u8>>), PlanError> {
    let base = match datatype {
        Datatype::Optional(base) => (**base).clone(),
        other => other.clone(),
    };
    let (given, key) = match (given, datatype) {
        (Some(given), _) => given,
        (None, Datatype::Optional(_)) => return Ok((base.clone(), default_fill(&base))),
        (None, _) => return Ok((base, None)),
    };
    let at = format!("{at}: {key}");
    if !is_number(&base) {
        let why = format!(
            "`ndl create` sets fills of numbers only, not of {}",
            keyword(&base)
        );
        return Err((at, why));
    }
    match encode(given, &[], &base, None, &at)? {
        Values::Bytes(bytes) => Ok((base, Some(bytes))),
        _ => Err((at, "the fill is not one number".to_string())),
    }
}

/// An optional number's fill where none is given: NaN for floats,
/// netCDF-C's default fill for integers (`NC_FILL_INT` …).
fn default_fill(number: &Datatype) -> Option<Vec<u8>> {
    match number {
        Datatype::Float32 => Some(f32::NAN.to_ne_bytes().to_vec()),
        Datatype::Float64 => Some(f64::NAN.to_ne_bytes().to_vec()),
        other => ndl_hdf5::netcdf_default_fill(other),
    }
}

/// Datatypes of attributes: a `string`, or any [`check_fixed`] takes.
fn check_datatype(datatype: &Datatype, at: &str) -> Result<(), PlanError> {
    match datatype {
        Datatype::String => Ok(()),
        other => check_fixed(other, at),
    }
}

/// Datatypes of a fixed size, which compound members of fixed-size
/// compounds, array items and a sequence's items are: any but references,
/// `string`, `vlen` and `optional`.
fn check_fixed(datatype: &Datatype, at: &str) -> Result<(), PlanError> {
    let why = match datatype {
        Datatype::ObjRef | Datatype::RegRef(_) => "`ndl create` does not make references",
        Datatype::String | Datatype::Vlen(_) | Datatype::Optional(_) => {
            "`ndl create` makes `string` and `vlen` the type of an ndarray, of a member \
             of an ndarray's compound, or of a sequence's items; not of an attribute's \
             compound member or the items of an array; and `optional` the type of an \
             ndarray of numbers"
        }
        Datatype::Compound(c) => {
            return c
                .members
                .iter()
                .try_for_each(|m| check_fixed(&m.datatype, at));
        }
        Datatype::Array(a) => return check_fixed(&a.base, at),
        Datatype::Enum(e) => {
            let mut seen = std::collections::BTreeMap::new();
            for m in &e.members {
                if let Some(first) = seen.insert(m.value, &m.name) {
                    let why = format!(
                        "enum members `{first}` and `{}` have one value, {}: a reader could not tell them apart (HDF5 refuses them)",
                        m.name, m.value
                    );
                    return Err((format!("{at}: type"), why));
                }
            }
            return Ok(());
        }
        Datatype::Opaque(_) | Datatype::FixedString(_)
            if datatype.size().is_none_or(|n| n > MAX_PADDED_BYTES) =>
        {
            "`ndl create` makes opaque values and fixed strings of at most 16 MiB: each \
             value is padded to its size before it is written"
        }
        _ => return Ok(()),
    };
    Err((format!("{at}: type"), why.to_string()))
}

/// The largest opaque value or fixed string `ndl create` makes.
const MAX_PADDED_BYTES: usize = 16 << 20;

fn attributes(attrs: &NameMap<Attribute>, ctx: &str) -> Result<Vec<PlannedAttribute>, PlanError> {
    attrs
        .iter()
        .map(|(name, a)| attribute(name, a, ctx))
        .collect()
}

/// The attribute `name`, `a`, of the object at `ctx`, with its values as
/// the formats write them.
pub(crate) fn attribute(
    name: &str,
    a: &Attribute,
    ctx: &str,
) -> Result<PlannedAttribute, PlanError> {
    let at = join(ctx, &format!("attribute `{name}`"));
    check_datatype(&a.datatype, &at)?;
    let shape = a
        .shape
        .0
        .iter()
        .enumerate()
        .map(|(k, e)| match e {
            Extent::Size(n) => Ok(*n as u64),
            _ => Err((
                format!("{at}: shape[{k}]"),
                "an attribute's extent is a number".to_string(),
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let values = encode(&a.value, &shape, &a.datatype, None, &format!("{at}: value"))?;
    Ok(PlannedAttribute {
        name: name.to_string(),
        datatype: a.datatype.clone(),
        shape,
        values,
        value: a.value.clone(),
    })
}

/// The `filter:` list: `gzip`/`deflate`/`zlib` (a level as `{gzip: 6}`)
/// and `shuffle`, or filters as `ndl describe` prints them
/// (`{name, configuration}`, a Zarr codec among them).
fn filters(list: Option<&[Value]>, at: &str) -> Result<Vec<Filter>, PlanError> {
    let Some(list) = list else {
        return Ok(Vec::new());
    };
    list.iter()
        .enumerate()
        .map(|(i, f)| filter(f).map_err(|why| (format!("{at}: storage.filter[{i}]"), why)))
        .collect()
}

fn filter(f: &Value) -> Result<Filter, String> {
    if let Some(name) = f.get("name") {
        return described_filter(f, name);
    }
    let (name, arg) = match f {
        Value::String(name) => (name.as_str(), None),
        Value::Mapping(m) if m.len() == 1 => {
            let (k, v) = m.iter().next().expect("one entry");
            (k.as_str().unwrap_or(""), Some(v))
        }
        _ => return Err("expected a filter name or {name: level}".into()),
    };
    match (name, arg) {
        ("gzip" | "deflate" | "zlib", None) => Ok(Filter::Deflate(DEFAULT_LEVEL)),
        ("gzip" | "deflate" | "zlib", Some(level)) => level
            .as_u64()
            .filter(|&l| l <= 9)
            .map(|l| Filter::Deflate(l as u8))
            .ok_or_else(|| format!("the {name} level is a number from 0 to 9")),
        ("shuffle", _) => Ok(Filter::Shuffle),
        _ => Err(format!(
            "unknown filter `{name}`; expected gzip (deflate, zlib) or shuffle"
        )),
    }
}

/// A filter as `ndl describe` gives it, `{name, configuration}`: HDF5's
/// `deflate` and `shuffle`, or a Zarr codec.
fn described_filter(f: &Value, name: &Value) -> Result<Filter, String> {
    let level = f.get("configuration").and_then(|c| c.get("level"));
    match name.as_str() {
        Some("shuffle") => return Ok(Filter::Shuffle),
        Some("deflate") => {
            return match level {
                None => Ok(Filter::Deflate(DEFAULT_LEVEL)),
                Some(l) => l
                    .as_u64()
                    .filter(|&l| l <= 9)
                    .map(|l| Filter::Deflate(l as u8))
                    .ok_or_else(|| "the deflate level is a number from 0 to 9".into()),
            };
        }
        _ => {}
    }
    let codec = serde_json::to_value(f)
        .ok()
        .and_then(|json| Codec::from_v3_codecs(&[json]));
    codec.map(Filter::Zarr).ok_or_else(|| {
        let name = serde_yaml::to_string(name).unwrap_or_default();
        format!(
            "unknown filter `{}`; expected deflate, shuffle, or a Zarr codec exactly as `ndl describe` prints a store's (`zstd`, `gzip`, `numcodecs.zlib`, `blosc`, `numcodecs.bz2`, `numcodecs.lz4`, `crc32c`, each with its whole configuration)",
            name.trim()
        )
    })
}
