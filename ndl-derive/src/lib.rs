//! `#[derive(NdlType)]`; see the `ndl-runtime` crate.
use proc_macro::TokenStream;

/// Derives `ndl_runtime::NdlType`.
#[proc_macro_derive(NdlType, attributes(ndl))]
pub fn derive_ndl_type(input: TokenStream) -> TokenStream {
    let _ = input;
    TokenStream::new()
}
