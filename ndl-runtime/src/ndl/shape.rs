//! The Shape entity: rank and extent of an ndarray (or an attribute).

use serde_yaml::Value;

use super::error::{Ctx, NdlError, NdlErrorKind};

/// The extents of an ndarray's dimensions; no extent at all (`shape: []`)
/// is a scalar.
///
/// ```
/// use ndl_runtime::ndl::{Extent, Shape};
///
/// let shape: Shape = serde_yaml::from_str("[null, 20, /group1/d2]").unwrap();
/// assert_eq!(
///     shape,
///     Shape(vec![Extent::Unlimited, Extent::Size(20), Extent::Dim("/group1/d2".into())])
/// );
/// assert_eq!(Shape::from([10, 20]).rank(), 2);
/// assert!(Shape::scalar().is_scalar());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shape(pub Vec<Extent>);

/// The extent of one dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Extent {
    /// A fixed size (an integer in YAML).
    Size(usize),
    /// Unlimited size (`null` in YAML).
    Unlimited,
    /// The size of a dimension coordinate, named by its path (`/group1/d2`)
    /// or by a name relative to the ndarray's group (`t`); see
    /// [`File::resolve_dimcoord`](super::File::resolve_dimcoord).
    Dim(String),
}

impl Shape {
    /// The shape of a scalar: `[]`.
    pub fn scalar() -> Shape {
        Shape(Vec::new())
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.0.len()
    }

    /// Whether this is the shape of a scalar.
    pub fn is_scalar(&self) -> bool {
        self.0.is_empty()
    }

    /// The YAML list of extents.
    pub(crate) fn to_value(&self) -> Value {
        Value::Sequence(self.0.iter().map(Extent::to_value).collect())
    }

    /// Reads a YAML list of extents; `ctx` is the location of the `shape` key.
    pub(crate) fn from_value(value: &Value, ctx: &Ctx) -> Result<Shape, NdlError> {
        let list = value
            .as_sequence()
            .ok_or_else(|| ctx.expected("a list of extents", value))?;
        list.iter()
            .enumerate()
            .map(|(i, v)| Extent::from_value(v, &ctx.suffixed(format!("[{i}]"))))
            .collect::<Result<_, _>>()
            .map(Shape)
    }
}

impl Extent {
    fn to_value(&self) -> Value {
        match self {
            Extent::Size(n) => Value::from(*n as u64),
            Extent::Unlimited => Value::Null,
            Extent::Dim(path) => Value::from(path.as_str()),
        }
    }

    fn from_value(value: &Value, ctx: &Ctx) -> Result<Extent, NdlError> {
        match value {
            Value::Null => Ok(Extent::Unlimited),
            Value::String(s) if is_dim_reference(s) => Ok(Extent::Dim(s.clone())),
            Value::String(s) => Err(ctx.err(NdlErrorKind::BadDimReference(s.clone()))),
            v => super::datatype_yaml::as_usize(v)
                .map(Extent::Size)
                .ok_or_else(|| ctx.expected("a size, null (unlimited) or a dimcoord name", value)),
        }
    }
}

/// A dimcoord path (`/g/d`) or relative name (`d`, `g/d`): non-empty
/// segments separated by single `/`, no `/` at the end.
pub(crate) fn is_dim_reference(s: &str) -> bool {
    let relative = s.strip_prefix('/').unwrap_or(s);
    !relative.is_empty() && relative.split('/').all(|seg| !seg.is_empty())
}

impl From<Vec<Extent>> for Shape {
    fn from(extents: Vec<Extent>) -> Shape {
        Shape(extents)
    }
}

impl From<&[usize]> for Shape {
    fn from(sizes: &[usize]) -> Shape {
        Shape(sizes.iter().map(|&n| Extent::Size(n)).collect())
    }
}

impl From<Vec<usize>> for Shape {
    fn from(sizes: Vec<usize>) -> Shape {
        Shape::from(sizes.as_slice())
    }
}

impl<const N: usize> From<[usize; N]> for Shape {
    fn from(sizes: [usize; N]) -> Shape {
        Shape::from(sizes.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dim_references() {
        for ok in ["t", "/d1", "/group1/d2", "g/d", "ON"] {
            assert!(is_dim_reference(ok), "{ok}");
        }
        for bad in ["", "/", "//d", "/g/", "g//d"] {
            assert!(!is_dim_reference(bad), "{bad}");
        }
    }

    #[test]
    fn extents_read_and_write() {
        let v: Value = serde_yaml::from_str("[10, null, /g/d, 0]").unwrap();
        let shape = Shape::from_value(&v, &Ctx::root().at("shape")).unwrap();
        assert_eq!(shape.to_value(), v);
        let bad: Value = serde_yaml::from_str("[10, 2.5]").unwrap();
        let e = Shape::from_value(&bad, &Ctx::root().at("shape")).unwrap_err();
        assert_eq!(e.location(), "shape[1]");
        let bad: Value = serde_yaml::from_str("[/g/]").unwrap();
        let e = Shape::from_value(&bad, &Ctx::root().at("shape")).unwrap_err();
        assert_eq!(e.kind(), &NdlErrorKind::BadDimReference("/g/".into()));
    }
}
