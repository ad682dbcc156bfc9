//! netCDF-4 CDL: user-defined type definitions exactly as `ncdump -h`
//! prints them, and a small document builder (`netcdf name { types:
//! dimensions: variables: }`) that `ncgen -k nc4` compiles.
//!
//! | Datatype | CDL |
//! | --- | --- |
//! | `int8` `uint8` `int16` `uint16` `int32` `uint32` `int64` `uint64` | `byte` `ubyte` `short` `ushort` `int` `uint` `int64` `uint64` |
//! | `float32` / `float64` / `string` | `float` / `double` / `string` |
//! | time (`M8[s]`, `m8[ns]`) | `int64`; a time variable has CF `units` (`seconds since 1970-01-01 00:00:00`, or `nanoseconds` for durations), `calendar = "proleptic_gregorian"` for instants, and `_FillValue` = NaT (`i64::MIN`); a time compound member is a bare `int64` (a member has no attributes); a time variable of a unit CF has no name for (years, months, weeks, below nanoseconds, multiples such as `10ms`) is an error |
//! | `bool` | `byte enum bool_t {FALSE = 0, TRUE = 1} ;` (the h5py convention, so h5py reads it back as bool) |
//! | `complex64` / `complex128` | the nc-complex compounds `_PFNC_FLOAT_COMPLEX_TYPE` / `_PFNC_DOUBLE_COMPLEX_TYPE` with fields `r`, `i` |
//! | `enum` | `<base> enum <name> {A = 0, ...} ;` |
//! | `opaque` of `n` bytes | `opaque(n) <name> ;` (the tag is dropped) |
//! | `vlen` of `T` | `T(*) <name> ;` |
//! | `compound` | `compound <name> { ... }; // <name>` |
//! | array member of shape `(a, b)` | `T member(a, b) ;` |
//! | fixed ASCII string of `n` as a member | `char member(n) ;` |
//! | fixed ASCII string of `n > 1` as a variable | `char v(dims..., string<n>) ;`, the dimension `string<n> = n` declared once, as xarray names it |
//! | fixed UTF-32 string (NumPy `U`) as a variable | `string v(dims...) ;`, as `ncdump` shows netCDF-4 text |
//!
//! Errors: `float16`, UTF-32 strings inside compounds, references, empty
//! compounds and enums, `opaque(0)`, a vlen of a fixed string or an
//! array, and a fixed string, array or `float16` used as a type
//! definition (netCDF spells those with dimensions of a variable).
//!
//! **Names.** The root type's name is the one given; a nested compound,
//! enum, opaque or vlen is named after its member, `<member>_t` (a vlen's
//! element `<member>_elem_t`), with `_2`, `_3` … inserted before `_t` when
//! that name already holds a different definition. A nested type identical
//! to one already defined is that type (structural sharing); the root type
//! always gets the name given. Names are checked as netCDF-C's `NC_check_name` does (not
//! empty, at most 256 bytes, no `/`, no control characters, no trailing
//! space, first character a letter, digit, `_` or non-ASCII). Names are
//! escaped like `ncdump` does, plus `%`, which `ncdump` leaves bare
//! although `ncgen` rejects a bare `%`. CDL's reserved words (`byte`,
//! `int`, `float`, `string`, `compound`, `NaN`, ...) are valid netCDF
//! names but have no escape that `ncgen` reads (netCDF-C 4.9's lexer
//! takes a backslash before punctuation and digits only): they are
//! printed bare, as `ncdump` prints them, and a first comment line of the
//! document names them, since `ncgen` cannot compile that text.
//!
//! **Layout.** CDL has no offsets: `ncgen` lays compounds out with C
//! alignment. A compound's padding is therefore not described; a
//! `#[repr(C)]` record gets the same layout back, a packed or hand-placed
//! one does not.
//!
//! **Order.** `ncgen` sorts type definitions (first those built only from
//! primitive types, in order, then the rest as their dependencies allow) and
//! `ncdump` prints them in that order; the output is sorted the same way, so
//! it reproduces `ncdump -h` text, including where `ncdump` wraps long enum
//! lines.

mod document;
mod name;
mod print;
mod types;
mod value;

pub use document::{AttrValue, Document};
pub use name::escape_name;
pub use print::type_definitions;
pub use value::MemberValue;
