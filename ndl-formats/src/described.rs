//! A source with what is said of it beside its bytes: a datatype (an NDL
//! sidecar's enum names and descriptions), attributes (a sidecar's, or
//! those a conversion carries from a netCDF variable or a Zarr array) and
//! notes. Its elements are its source's, as they are.

use ndl_runtime::ndl::{Attribute, NameMap};
use ndl_runtime::{ArraySpec, Datatype};

use crate::error::Result;
use crate::source::{Origin, Source};

/// `source` itself where nothing is said beyond it, else with the
/// `datatype`, `attributes` and `notes` said of it.
pub(crate) fn described(
    source: Box<dyn Source>,
    datatype: Option<Datatype>,
    attributes: Option<NameMap<Attribute>>,
    notes: Vec<String>,
) -> Box<dyn Source> {
    if datatype.is_none() && attributes.is_none() && notes.as_slice() == source.notes() {
        return source;
    }
    let spec = ArraySpec {
        datatype: datatype.unwrap_or_else(|| source.spec().datatype.clone()),
        ..source.spec().clone()
    };
    Box::new(Described {
        inner: source,
        spec,
        attributes,
        notes,
    })
}

/// A source with what is said of it beside its bytes.
struct Described {
    inner: Box<dyn Source>,
    spec: ArraySpec,
    attributes: Option<NameMap<Attribute>>,
    notes: Vec<String>,
}

impl Source for Described {
    fn origin(&self) -> Origin<'_> {
        Origin::new(&self.spec, self.inner.location())
    }

    fn wrapped(&self) -> Option<&dyn Source> {
        Some(&*self.inner)
    }

    fn attributes(&self) -> Option<&NameMap<Attribute>> {
        self.attributes.as_ref()
    }

    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        self.inner.read(buf)
    }

    fn each_value(&mut self, each: &mut dyn FnMut(&[u8]) -> Result<()>) -> Option<Result<u64>> {
        // A datatype said of the values (a sidecar's) is not theirs to
        // keep when they are handed as stored.
        if self.spec.datatype != self.inner.spec().datatype {
            return None;
        }
        self.inner.each_value(each)
    }
}
