//! A source whose elements mix byte orders, read as elements in one: what
//! the sinks of formats that give every number of an element one byte
//! order are written from.

use ndl_runtime::MixedOrder;

use crate::error::Result;
use crate::source::{Origin, Source};
use ndl_runtime::ArraySpec;

/// `source`, with its elements put into its spec's one byte order as they
/// are read when they mix orders (the spec then lists no other order);
/// `source` itself when they do not.
pub(crate) fn in_one_order(source: Box<dyn Source>) -> Box<dyn Source> {
    let spec = source.spec();
    let Some(mixed) = MixedOrder::new(&spec.datatype, &spec.other_order) else {
        return source;
    };
    let mut spec = spec.clone();
    spec.other_order.clear();
    Box::new(OneOrder {
        inner: source,
        spec,
        mixed,
    })
}

struct OneOrder {
    inner: Box<dyn Source>,
    /// The inner source's spec, in one byte order.
    spec: ArraySpec,
    mixed: MixedOrder,
}

impl Source for OneOrder {
    fn origin(&self) -> Origin<'_> {
        Origin::new(&self.spec, self.inner.location())
    }

    fn wrapped(&self) -> Option<&dyn Source> {
        Some(&*self.inner)
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let n = self.inner.read(buf)?;
        let size = self.spec.element_size();
        self.mixed.to_one_order(&mut buf[..n * size]);
        Ok(n)
    }
}
