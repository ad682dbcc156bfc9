//! The two layouts of a store ([`Layout`](crate::Layout)): [`records`],
//! one array whose elements are whole records, and [`columns`], a group
//! with one array per leaf field. Each reads through the one reading path
//! ([`PartSource`](crate::part_reader::PartSource)) and writes through appenders.

pub(crate) mod columns;
pub(crate) mod records;
