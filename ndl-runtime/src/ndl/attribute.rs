//! The Attribute entity, in its long and short form.

use serde_yaml::{Mapping, Value};

use super::error::{Ctx, NdlError, NdlErrorKind, describe_value};
use super::read::{Keys, datatype_of};
use super::shape::Shape;
use super::storage::Storage;
use crate::Datatype;

/// A named property of a group, ndarray or dimcoord: shape, datatype,
/// value and optional storage directives.
///
/// NDL writes an attribute either in full (`{shape, type, value}`) or, for
/// a scalar, as the bare value, whose datatype is then the best match
/// ([`Attribute::best_match`]). The form read is kept in [`form`](Self::form)
/// and written back; a short attribute whose content no longer fits the
/// short form (another datatype, a storage directive) is written in full.
///
/// ```
/// use ndl_runtime::ndl::{Attribute, AttributeForm};
/// use ndl_runtime::Datatype;
///
/// let a = Attribute::from("Ηελλο ωορλδ");
/// assert_eq!((a.datatype.clone(), a.form), (Datatype::String, AttributeForm::Short));
/// assert_eq!(Attribute::from(10).datatype, Datatype::Int32);
/// assert!(Attribute::new(vec!["power on", "power off"]).is_err()); // a list needs the long form
/// let state = Attribute::long([2], Datatype::String, vec!["power on", "power off"]);
/// assert_eq!(state.form, AttributeForm::Long);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attribute {
    /// The shape of the value; `[]` for a scalar.
    pub shape: Shape,
    /// The datatype of the value.
    pub datatype: Datatype,
    /// The value: a scalar, or nested lists following the shape.
    pub value: Value,
    /// Storage directives (long form only).
    pub storage: Storage,
    /// How the attribute is written.
    pub form: AttributeForm,
}

/// The two ways of writing an [`Attribute`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AttributeForm {
    /// The bare scalar value, `same_as_b: 10`, when the content allows it.
    Short,
    /// `{shape, type, value}` and optionally `storage`.
    Long,
}

const KEYS: &[&str] = &["shape", "type", "value", "storage"];

impl Attribute {
    /// A short-form attribute: a scalar value with its best-match datatype.
    /// Lists, mappings and null have no best match and need
    /// [`Attribute::long`].
    ///
    /// ```
    /// use ndl_runtime::ndl::Attribute;
    /// use ndl_runtime::Datatype;
    ///
    /// assert_eq!(Attribute::new(1.0e3).unwrap().datatype, Datatype::Float64);
    /// assert!(Attribute::new(serde_yaml::Value::Null).is_err());
    /// ```
    pub fn new(value: impl Into<Value>) -> Result<Attribute, NdlError> {
        Attribute::short(value.into(), &Ctx::root())
    }

    /// A long-form attribute.
    ///
    /// ```
    /// use ndl_runtime::ndl::Attribute;
    /// use ndl_runtime::Datatype;
    ///
    /// let b = Attribute::long([], Datatype::Int32, 10);
    /// assert_eq!(b, Attribute { form: b.form, ..Attribute::from(10) });
    /// ```
    pub fn long(shape: impl Into<Shape>, datatype: Datatype, value: impl Into<Value>) -> Attribute {
        Attribute {
            shape: shape.into(),
            datatype,
            value: value.into(),
            storage: Storage::default(),
            form: AttributeForm::Long,
        }
    }

    /// The datatype a short-form value is read as, our reading of the spec's
    /// "the datatype that is the best match": a string is `string`, a
    /// float `float64`, a bool `bool` (an extension), an integer `int32`
    /// when it fits (the spec's `same_as_b: 10` is the same as the
    /// `int32` attribute `b`, and netCDF CDL reads bare integers alike),
    /// else `int64`, else `uint64`. Anything else has no best match.
    ///
    /// ```
    /// use ndl_runtime::ndl::Attribute;
    /// use ndl_runtime::Datatype;
    ///
    /// assert_eq!(Attribute::best_match(&3_000_000_000i64.into()), Some(Datatype::Int64));
    /// assert_eq!(Attribute::best_match(&u64::MAX.into()), Some(Datatype::UInt64));
    /// assert_eq!(Attribute::best_match(&true.into()), Some(Datatype::Bool));
    /// ```
    pub fn best_match(value: &Value) -> Option<Datatype> {
        match value {
            Value::String(_) => Some(Datatype::String),
            Value::Bool(_) => Some(Datatype::Bool),
            Value::Number(n) => Some(match (n.as_i64(), n.as_u64()) {
                (Some(i), _) if i32::try_from(i).is_ok() => Datatype::Int32,
                (Some(_), _) => Datatype::Int64,
                (None, Some(_)) => Datatype::UInt64,
                (None, None) => Datatype::Float64,
            }),
            _ => None,
        }
    }

    /// The value, if it is a string.
    pub fn as_str(&self) -> Option<&str> {
        self.value.as_str()
    }

    /// Whether this is written in the short form: it was read or made so,
    /// and its content is exactly what the bare value would be read as.
    pub fn is_written_short(&self) -> bool {
        self.form == AttributeForm::Short
            && self.shape.is_scalar()
            && self.storage.is_empty()
            && Attribute::best_match(&self.value).as_ref() == Some(&self.datatype)
    }

    pub(crate) fn to_value(&self) -> Value {
        if self.is_written_short() {
            return self.value.clone();
        }
        let mut m = Mapping::new();
        m.insert("shape".into(), self.shape.to_value());
        m.insert(
            "type".into(),
            super::datatype_yaml::to_value(&self.datatype),
        );
        m.insert("value".into(), self.value.clone());
        if !self.storage.is_empty() {
            m.insert("storage".into(), self.storage.to_value());
        }
        Value::Mapping(m)
    }

    /// Reads either form; `ctx` is the attribute's location.
    pub(crate) fn from_value(value: &Value, ctx: &Ctx) -> Result<Attribute, NdlError> {
        if !value.is_mapping() {
            return Attribute::short(value.clone(), ctx);
        }
        let keys = Keys::new(value, ctx, "an attribute", KEYS)?;
        Ok(Attribute {
            shape: Shape::from_value(keys.req("shape")?, &ctx.at("shape"))?,
            datatype: datatype_of(keys.req("type")?, ctx)?,
            value: keys.req("value")?.clone(),
            storage: Storage::from_keys(&keys, ctx)?,
            form: AttributeForm::Long,
        })
    }

    fn short(value: Value, ctx: &Ctx) -> Result<Attribute, NdlError> {
        let datatype = Attribute::best_match(&value)
            .ok_or_else(|| ctx.err(NdlErrorKind::NoShortForm(describe_value(&value))))?;
        Ok(Attribute {
            shape: Shape::scalar(),
            datatype,
            value,
            storage: Storage::default(),
            form: AttributeForm::Short,
        })
    }
}

macro_rules! short_from {
    ($($t:ty),*) => {$(
        /// A short-form attribute of this scalar, with its best-match datatype.
        impl From<$t> for Attribute {
            fn from(v: $t) -> Attribute {
                Attribute::new(v).expect("a scalar always has a best match")
            }
        }
    )*};
}

short_from!(&str, String, bool, i32, i64, u32, u64, f64);

#[cfg(test)]
mod tests {
    use super::*;

    fn read(yaml: &str) -> Result<Attribute, NdlError> {
        let v: Value = serde_yaml::from_str(yaml).unwrap();
        Attribute::from_value(&v, &Ctx::root().at("attribute `a`"))
    }

    #[test]
    fn short_form_is_kept_only_while_it_fits() {
        let mut a = read("10").unwrap();
        assert_eq!(a.to_value(), Value::from(10));
        a.datatype = Datatype::Int64;
        assert!(!a.is_written_short());
        let long = a.to_value();
        assert_eq!(
            read(&serde_yaml::to_string(&long).unwrap())
                .unwrap()
                .datatype,
            Datatype::Int64
        );
    }

    #[test]
    fn lists_and_null_have_no_short_form() {
        let e = read("[1, 2]").unwrap_err();
        assert_eq!(e.location(), "attribute `a`");
        assert!(matches!(e.kind(), NdlErrorKind::NoShortForm(_)), "{e}");
        assert!(read("~").is_err());
    }

    #[test]
    fn long_form_needs_its_keys() {
        let e = read("{shape: [], type: int32}").unwrap_err();
        assert_eq!(e.to_string(), "attribute `a`: missing key `value`");
        let e = read("{shape: [], type: int32, value: 1, units: m}").unwrap_err();
        assert!(matches!(e.kind(), NdlErrorKind::UnknownKey { .. }), "{e}");
        let e = read("{shape: [], type: int23, value: 1}").unwrap_err();
        assert_eq!(
            e.to_string(),
            "attribute `a`: type: unknown datatype `int23`"
        );
    }
}
