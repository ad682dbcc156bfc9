//! The rules a type must follow to have an exact, portable layout.

use std::collections::HashMap;

use syn::spanned::Spanned;
use syn::{Fields, GenericParam};

use crate::ast::{Enum, Input, Struct};
use crate::attr::Storage;
use crate::ctxt::Ctxt;

const ENUM_BASES: [&str; 8] = ["u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64"];

pub fn check(cx: &Ctxt, input: &Input) {
    match input {
        Input::Struct(s) => check_struct(cx, s),
        Input::Enum(e) => check_enum(cx, e),
    }
}

fn check_struct(cx: &Ctxt, s: &Struct) {
    let repr = &s.attrs.repr;
    if !repr.c && !repr.transparent {
        let help = if repr.packed.is_some() {
            "help: write `#[repr(C, packed)]`: `packed` alone keeps Rust's freedom to reorder fields"
        } else {
            "help: add `#[repr(C)]`"
        };
        cx.error(
            s.ident,
            format!("`#[derive(NdlType)]` needs a struct with a defined layout: Rust's default layout may reorder fields, and NumPy refuses out-of-order fields\n\n{help}"),
        );
    }
    if s.fields.is_empty() {
        cx.error(
            s.ident,
            "`#[derive(NdlType)]` needs at least one field: an empty struct has no data to describe",
        );
    }
    if repr.transparent && s.fields.len() > 1 {
        cx.error(
            s.ident,
            "`#[derive(NdlType)]` on a `#[repr(transparent)]` struct needs exactly one field, which gives the datatype\n\nhelp: use `#[repr(C)]` to describe several fields as a compound",
        );
    }
    if repr.transparent && s.attrs.rename_all.is_some() {
        cx.error(
            s.ident,
            "`rename_all` has no effect on a `#[repr(transparent)]` struct: it has the datatype of its field, without member names",
        );
    }
    no_lifetimes(cx, s.generics);
    check_member_names(cx, s);
    for f in &s.fields {
        if repr.transparent && !matches!(f.attrs.storage, Storage::Native) {
            cx.error(
                &f.original.ty,
                "`string` and `opaque` describe a member of a compound; a `#[repr(transparent)]` struct has none",
            );
        }
        if repr.transparent && (f.attrs.units.is_some() || f.attrs.dims.is_some()) {
            cx.error(
                &f.original.ty,
                "`units` and `dims` describe a member of a compound; a `#[repr(transparent)]` struct has none",
            );
        }
        check_dims(cx, f);
        check_padding(cx, f);
        if let Some(message) = crate::kind::not_plain(f.ty) {
            cx.error(f.ty, message);
        }
        if let Some((span, _)) = &f.attrs.fill {
            cx.error_at(
                *span,
                "`fill` is the value that stands for `None` in an `Option` field, and an `NdlType` has none\n\nhelp: use `#[derive(Record)]` for records with `Option` fields",
            );
        }
    }
}

/// The rules of `#[derive(Record)]`: a struct with named fields, each
/// (checked by the compiler) a `Record`.
pub fn check_record(cx: &Ctxt, input: &Input, original: &syn::DeriveInput) {
    let s = match input {
        Input::Struct(s) => s,
        Input::Enum(e) => {
            cx.error(
                e.ident,
                "`#[derive(Record)]` goes on a struct; a fieldless enum is a `Record` through `#[derive(NdlType)]`\n\nhelp: derive `NdlType` on the enum, with an integer `#[repr(u8)]` (or u16, ..., i64)",
            );
            return;
        }
    };
    if !matches!(&original.data, syn::Data::Struct(d) if matches!(d.fields, Fields::Named(_))) {
        cx.error(
            s.ident,
            "`#[derive(Record)]` needs a struct with named fields: formats name every column",
        );
    } else if s.fields.is_empty() {
        cx.error(
            s.ident,
            "`#[derive(Record)]` needs at least one field: an empty struct has no data to describe",
        );
    }
    if let Some(span) = s.attrs.repr.packed {
        cx.error_at(
            span,
            "a `Record` is stored field by field, never as its bytes: `packed` only makes its fields unaligned\n\nhelp: remove `packed`",
        );
    }
    no_lifetimes_in(cx, s.generics, "Record");
    check_member_names(cx, s);
    for f in &s.fields {
        check_dims(cx, f);
        if let Storage::Padding(span) = f.attrs.storage {
            cx.error_at(
                span,
                "a `Record` is stored field by field and has no bytes between them: `padding` is for `#[derive(NdlType)]` structs\n\nhelp: remove the field",
            );
        }
        if let Some((span, _)) = &f.attrs.fill
            && crate::kind::option_inner(f.ty).is_none()
        {
            cx.error_at(
                    *span,
                    "`fill` is the value that stands for `None`, and this field is not an `Option`\n\nhelp: make the field an `Option<T>`, or remove `fill`",
                );
        }
    }
}

/// A padding field is bytes, `[u8; N]`, that no member claims: it has
/// no name, units or dimensions in the datatype.
fn check_padding(cx: &Ctxt, f: &crate::ast::Field) {
    let Storage::Padding(span) = f.attrs.storage else {
        return;
    };
    let bytes = matches!(f.ty, syn::Type::Array(a) if matches!(&*a.elem, syn::Type::Path(p) if p.path.is_ident("u8")));
    if !bytes {
        cx.error_at(
            span,
            "`padding` goes on a `[u8; N]` field: the bytes a record leaves unused\n\nhelp: make the field `[u8; N]`",
        );
    }
    if f.attrs.rename.is_some() || f.attrs.units.is_some() || f.attrs.dims.is_some() {
        cx.error_at(
            span,
            "a `padding` field is no member of the datatype: `rename`, `units` and `dims` would describe nothing\n\nhelp: remove them",
        );
    }
}

/// `dims` names each axis of an array field once: as many distinct,
/// non-empty names as the field's type has array levels.
fn check_dims(cx: &Ctxt, f: &crate::ast::Field) {
    let Some((span, names)) = &f.attrs.dims else {
        return;
    };
    if !matches!(f.attrs.storage, Storage::Native) {
        cx.error_at(
            *span,
            "`dims` names the axes of an array field; a `string` or `opaque` field is one value\n\nhelp: remove `dims`",
        );
        return;
    }
    let rank = array_rank(f.ty);
    if rank == 0 {
        cx.error_at(
            *span,
            "`dims` names the axes of an array field, and this field is not an array\n\nhelp: remove `dims`, or use it on a field such as `[[f32; 3]; 2]`",
        );
    } else if names.len() != rank {
        cx.error_at(
            *span,
            format!(
                "`dims` has {} names, but the field's type has {rank} array axes\n\nhelp: give one name per axis, outermost first",
                names.len()
            ),
        );
    }
    let mut seen = std::collections::HashSet::new();
    for name in names {
        if name.value().is_empty() || !seen.insert(name.value()) {
            cx.error(name, "dimension names must be distinct and not empty");
        }
    }
}

/// How many array levels a type has, as written (`[[f32; 3]; 2]` has 2).
fn array_rank(ty: &syn::Type) -> usize {
    match ty {
        syn::Type::Array(a) => 1 + array_rank(&a.elem),
        syn::Type::Paren(p) => array_rank(&p.elem),
        syn::Type::Group(g) => array_rank(&g.elem),
        _ => 0,
    }
}

fn check_member_names(cx: &Ctxt, s: &Struct) {
    if s.attrs.repr.transparent {
        return;
    }
    let mut seen: HashMap<&str, &syn::Member> = HashMap::new();
    let members = s
        .fields
        .iter()
        .filter(|f| !matches!(f.attrs.storage, Storage::Padding(_)));
    for f in members {
        match seen.get(f.name.as_str()) {
            Some(first) => cx.error_at(
                f.attrs.rename.as_ref().map_or(f.original.span(), |r| r.span()),
                format!(
                    "duplicate member name `{}`: field `{}` already has it\n\nhelp: give one of them another name with `#[ndl(rename = \"...\")]`",
                    f.name,
                    member_text(first)
                ),
            ),
            None => {
                seen.insert(&f.name, &f.member);
            }
        }
        if f.name.is_empty() {
            cx.error_at(
                f.attrs
                    .rename
                    .as_ref()
                    .map_or(f.original.span(), |r| r.span()),
                "a member name cannot be empty: NumPy reads an empty name as padding",
            );
        }
    }
}

fn member_text(m: &syn::Member) -> String {
    match m {
        syn::Member::Named(i) => i.to_string(),
        syn::Member::Unnamed(i) => i.index.to_string(),
    }
}

fn check_enum(cx: &Ctxt, e: &Enum) {
    match &e.attrs.repr.int {
        None => cx.error(
            e.ident,
            "`#[derive(NdlType)]` needs an enum with an integer repr, which fixes its size and values\n\nhelp: add `#[repr(u8)]` (or u16, u32, u64, i8, i16, i32, i64)",
        ),
        Some(int) if !ENUM_BASES.contains(&int.to_string().as_str()) => cx.error(
            int,
            format!("`#[repr({int})]` has no portable datatype\n\nhelp: use one of u8, u16, u32, u64, i8, i16, i32, i64"),
        ),
        Some(_) => {}
    }
    if let Some(span) = e.attrs.repr.align {
        cx.error_at(
            span,
            "`align` makes an enum larger than its integer base, so its bytes are no longer one enum value\n\nhelp: remove `align`, or wrap the enum in a `#[repr(C, align(N))]` struct",
        );
    }
    if e.variants.is_empty() {
        cx.error(
            e.ident,
            "`#[derive(NdlType)]` needs at least one variant: an enum without variants has no values",
        );
    }
    let mut seen: HashMap<&str, &syn::Ident> = HashMap::new();
    for v in &e.variants {
        if !matches!(v.original.fields, Fields::Unit) {
            cx.error(
                &v.original.fields,
                format!("variant `{}` carries data; an enum datatype holds only named integers\n\nhelp: use a fieldless enum, and a `#[repr(C)]` struct for the data", v.ident),
            );
        }
        match seen.get(v.name.as_str()) {
            Some(first) => cx.error_at(
                v.attrs.rename.as_ref().map_or(v.ident.span(), |r| r.span()),
                format!(
                    "duplicate member name `{}`: variant `{first}` already has it\n\nhelp: give one of them another name with `#[ndl(rename = \"...\")]`",
                    v.name
                ),
            ),
            None => {
                seen.insert(&v.name, v.ident);
            }
        }
    }
    no_lifetimes(cx, e.generics);
}

fn no_lifetimes(cx: &Ctxt, generics: &syn::Generics) {
    no_lifetimes_in(cx, generics, "NdlType");
}

fn no_lifetimes_in(cx: &Ctxt, generics: &syn::Generics, derive: &str) {
    for p in &generics.params {
        if let GenericParam::Lifetime(l) = p {
            cx.error(
                l,
                format!("`#[derive({derive})]` types hold their data by value: lifetime parameters are not supported"),
            );
        }
    }
}
