#![doc = include_str!("../README.md")]

mod ast;
mod attr;
mod ctxt;
mod expand;
mod kind;
mod record;
mod valid;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `ndl_runtime::NdlType` for a `#[repr(C)]` struct (also with
/// `packed`, `packed(N)` or `align(N)`), a `#[repr(transparent)]` struct, or a
/// fieldless enum with an integer repr (`#[repr(u8)]` … `#[repr(i64)]`).
///
/// Attributes: `#[ndl(rename = "...")]` on fields and variants,
/// `#[ndl(rename_all = "...")]` and `#[ndl(crate = "path")]` on the type,
/// `#[ndl(string)]` on a `[u8; N]` (NumPy `S<N>`) or `[u32; N]` (NumPy `U<N>`)
/// field, `#[ndl(opaque)]` or `#[ndl(opaque = "tag")]` on a `[u8; N]` field,
/// `#[ndl(padding)]` on a `[u8; N]` field that stands for bytes no member
/// holds (a gap between members, trailing padding): it is counted in the
/// offsets and the size but is no member, so a type can have any layout a
/// file has (`ndl describe FILE --format rust` writes such fields).
/// Doc comments on the type and its fields become descriptions.
///
/// Every `NdlType` is also a `Record`: the derive implements both.
#[proc_macro_derive(NdlType, attributes(ndl))]
pub fn derive_ndl_type(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input).into()
}

/// Derives `ndl_runtime::Record` for a struct with named fields, each a
/// `Record` (`String`, `Box<str>`, `Vec<T>`, `Box<[T]>`, `Option<T>`,
/// `[T; N]`, every `NdlType`, other `Record` structs); no `repr` needed.
///
/// Attributes: those of `NdlType` fields and types, and
/// `#[ndl(fill = EXPR)]` on an `Option<T>` field: the value that stands
/// for `None` in a format without nulls. The derive also generates
/// `<Name>Columns` and `<Name>Reader`, the record's column builder and
/// reader.
#[proc_macro_derive(Record, attributes(ndl))]
pub fn derive_record(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand_record(&input).into()
}

fn expand(input: &DeriveInput) -> proc_macro2::TokenStream {
    let cx = ctxt::Ctxt::default();
    let parsed = ast::Input::from_syn(&cx, input);
    if let Some(parsed) = &parsed {
        valid::check(&cx, parsed);
    }
    match (cx.into_compile_errors(), parsed) {
        (Some(errors), Some(parsed)) => {
            let checks = expand::field_checks_only(&parsed);
            quote::quote!(#errors #checks)
        }
        (Some(errors), None) => errors,
        (None, Some(parsed)) => {
            let ndl_type = expand::derive(&parsed);
            let record = match &parsed {
                ast::Input::Struct(s) => record::derive_plain_struct(s),
                ast::Input::Enum(e) => record::derive_enum(e),
            };
            quote::quote!(#ndl_type #record)
        }
        (None, None) => unreachable!("a failed parse reports an error"),
    }
}

fn expand_record(input: &DeriveInput) -> proc_macro2::TokenStream {
    let cx = ctxt::Ctxt::default();
    let parsed = ast::Input::from_syn(&cx, input);
    if let Some(parsed) = &parsed {
        valid::check_record(&cx, parsed, input);
    }
    match (cx.into_compile_errors(), parsed) {
        (Some(errors), Some(parsed)) => {
            let checks = record::field_checks_only(&parsed);
            quote::quote!(#errors #checks)
        }
        (Some(errors), None) => errors,
        (None, Some(ast::Input::Struct(s))) => record::derive_struct(&s, &input.vis),
        (None, _) => unreachable!("a failed parse or an enum reports an error"),
    }
}
