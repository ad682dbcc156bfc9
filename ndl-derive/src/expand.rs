//! The generated `unsafe impl NdlType`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Generics, LitStr, Path, parse_quote};

use crate::ast::{Enum, Field, Input, Struct};
use crate::attr::Storage;

pub fn derive(input: &Input) -> TokenStream {
    match input {
        Input::Struct(s) => derive_struct(s),
        Input::Enum(e) => derive_enum(e),
    }
}

pub(crate) fn krate(path: &Option<Path>) -> TokenStream {
    match path {
        Some(p) => quote!(#p),
        None => quote!(::ndl_runtime),
    }
}

pub(crate) fn option_str(krate: &TokenStream, s: &Option<String>) -> TokenStream {
    match s {
        Some(s) => quote!(#krate::__private::Option::Some(#s)),
        None => quote!(#krate::__private::Option::None),
    }
}

/// Adds `T: NdlType` for every type parameter.
fn bounded(generics: &Generics, krate: &TokenStream) -> Generics {
    let mut g = generics.clone();
    for p in g.type_params_mut() {
        p.bounds.push(parse_quote!(#krate::NdlType));
    }
    g
}

fn derive_struct(s: &Struct) -> TokenStream {
    let krate = krate(&s.attrs.krate);
    let ident = s.ident;
    let generics = bounded(s.generics, &krate);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let description = option_str(&krate, &s.attrs.doc);
    let body = if s.attrs.repr.transparent {
        let ty = s.fields[0].ty;
        quote! {
            const {
                ::core::assert!(
                    #krate::__private::size_of::<Self>() == #krate::__private::size_of::<#ty>(),
                    "a transparent struct has the size of its field",
                )
            };
            <#ty as #krate::NdlType>::datatype()
        }
    } else {
        // Padding fields hold the bytes between and after members: they
        // shape the offsets and the size, and are no member themselves.
        let members = s
            .fields
            .iter()
            .filter(|f| !matches!(f.attrs.storage, Storage::Padding(_)))
            .map(|f| member(f, &krate));
        quote! {
            #krate::__private::compound(
                #krate::__private::size_of::<Self>(),
                #krate::__private::Vec::from([#(#members),*]),
            )
        }
    };
    let checks = s.fields.iter().map(|f| field_check(f, &krate));
    quote! {
        // SAFETY: the struct is `#[repr(C)]` (or transparent), checked by the
        // derive; offsets and size come from the compiler itself, and every
        // member's datatype from its field type's own `NdlType` impl.
        #[automatically_derived]
        unsafe impl #impl_generics #krate::NdlType for #ident #ty_generics #where_clause {
            fn datatype() -> #krate::Datatype {
                #(#checks)*
                #body
            }

            fn description() -> #krate::__private::Option<&'static str> {
                #description
            }
        }
    }
}

fn member(f: &Field, krate: &TokenStream) -> TokenStream {
    let name = &f.name;
    let m = &f.member;
    let description = option_str(krate, &f.attrs.doc);
    let units = option_str(krate, &f.attrs.units.as_ref().map(LitStr::value));
    let dims = f.attrs.dims.iter().flat_map(|(_, names)| names);
    let datatype = field_datatype(f, krate);
    quote! {
        #krate::__private::member(
            #name,
            #krate::__private::offset_of!(Self, #m),
            #datatype,
            #description,
            #units,
            &[#(#dims),*],
        )
    }
}

pub(crate) fn field_datatype(f: &Field, krate: &TokenStream) -> TokenStream {
    let ty = f.ty;
    match &f.attrs.storage {
        Storage::Native => quote_spanned!(ty.span()=> <#ty as #krate::NdlType>::datatype()),
        Storage::String(_) => quote_spanned!(ty.span()=> #krate::__private::fixed_string::<#ty>()),
        // `valid.rs` keeps padding out of records, whose members these are.
        Storage::Padding(_) => {
            quote_spanned!(ty.span()=> #krate::__private::opaque::<#ty>(#krate::__private::Option::None))
        }
        Storage::Opaque(_, tag) => {
            let tag = option_str(krate, &tag.as_ref().map(|t| t.value()));
            quote_spanned!(ty.span()=> #krate::__private::opaque::<#ty>(#tag))
        }
    }
}

/// Every field type must itself be an `NdlType`, even one described as a
/// string or opaque bytes: its bytes are read back as that type.
pub(crate) fn field_check(f: &Field, krate: &TokenStream) -> TokenStream {
    let ty = f.ty;
    quote_spanned!(ty.span()=> const { #krate::__private::assert_ndl_type::<#ty>() };)
}

fn derive_enum(e: &Enum) -> TokenStream {
    let krate = krate(&e.attrs.krate);
    let ident = e.ident;
    let base = e
        .attrs
        .repr
        .int
        .as_ref()
        .expect("valid.rs rejects enums without an integer repr");
    let (impl_generics, ty_generics, where_clause) = e.generics.split_for_impl();
    let description = option_str(&krate, &e.attrs.doc);
    let members = e.variants.iter().map(|v| {
        let name = &v.name;
        let variant = v.ident;
        // The compiler computes each value; the discriminant expression
        // itself is never copied.
        quote!((#name, Self::#variant as ::core::primitive::#base))
    });
    quote! {
        // SAFETY: a fieldless enum with `#[repr(#base)]` has the size of its
        // base, and its valid values are exactly the variants listed here.
        #[automatically_derived]
        unsafe impl #impl_generics #krate::NdlType for #ident #ty_generics #where_clause {
            fn datatype() -> #krate::Datatype {
                // What the datatype's size rests on, checked by the compiler.
                const {
                    ::core::assert!(
                        #krate::__private::size_of::<Self>()
                            == #krate::__private::size_of::<::core::primitive::#base>(),
                        "an enum has the size of its integer repr",
                    )
                };
                #krate::__private::enumeration::<::core::primitive::#base>(&[#(#members),*])
            }

            fn description() -> #krate::__private::Option<&'static str> {
                #description
            }
        }
    }
}

/// When the derive reports errors, the field-type checks still run, so the
/// compiler's own errors (a field type that is not an `NdlType`) come in
/// the same round. Fields the derive already reported by their type's name
/// are left out, so each problem is reported once.
pub fn field_checks_only(input: &Input) -> TokenStream {
    let Input::Struct(s) = input else {
        return quote!();
    };
    let krate = krate(&s.attrs.krate);
    let ident = s.ident;
    let generics = bounded(s.generics, &krate);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let checks = s
        .fields
        .iter()
        .filter(|f| crate::kind::not_plain(f.ty).is_none())
        .map(|f| field_check(f, &krate));
    quote! {
        const _: () = {
            impl #impl_generics #ident #ty_generics #where_clause {
                #[allow(dead_code)]
                fn __ndl_field_checks() {
                    #(#checks)*
                }
            }
        };
    }
}
