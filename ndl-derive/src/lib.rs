#![doc = include_str!("../README.md")]

mod ast;
mod attr;
mod ctxt;
mod expand;
mod valid;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Derives `ndl_runtime::NdlType` for a `#[repr(C)]` struct (also with
/// `packed`, `packed(N)` or `align(N)`), a `#[repr(transparent)]` struct, or a
/// fieldless enum with an integer repr (`#[repr(u8)]` … `#[repr(i64)]`).
///
/// Attributes: `#[ndl(rename = "...")]` on fields and variants,
/// `#[ndl(rename_all = "...")]` and `#[ndl(crate = "path")]` on the type,
/// `#[ndl(string)]` on a `[u8; N]` (NumPy `S<N>`) or `[u32; N]` (NumPy `U<N>`)
/// field, `#[ndl(opaque)]` or `#[ndl(opaque = "tag")]` on a `[u8; N]` field.
/// Doc comments on the type and its fields become descriptions.
#[proc_macro_derive(NdlType, attributes(ndl))]
pub fn derive_ndl_type(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input).into()
}

fn expand(input: &DeriveInput) -> proc_macro2::TokenStream {
    let cx = ctxt::Ctxt::default();
    let parsed = ast::Input::from_syn(&cx, input);
    if let Some(parsed) = &parsed {
        valid::check(&cx, parsed);
    }
    match (cx.into_compile_errors(), parsed) {
        (Some(errors), _) => errors,
        (None, Some(parsed)) => expand::derive(&parsed),
        (None, None) => unreachable!("a failed parse reports an error"),
    }
}
