//! The derive's own small AST: the input with its attributes read.

use syn::ext::IdentExt;
use syn::{Data, DeriveInput, Fields, Generics, Ident, Member, Type};

use crate::attr::{self, FieldAttrs, TypeAttrs, VariantAttrs};
use crate::ctxt::Ctxt;

pub enum Input<'a> {
    Struct(Struct<'a>),
    Enum(Enum<'a>),
}

pub struct Struct<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub attrs: TypeAttrs,
    pub fields: Vec<Field<'a>>,
}

pub struct Field<'a> {
    pub original: &'a syn::Field,
    pub member: Member,
    pub ty: &'a Type,
    pub attrs: FieldAttrs,
    /// The member name in the datatype: renamed, or the field name, or `f<i>`.
    pub name: String,
}

pub struct Enum<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub attrs: TypeAttrs,
    pub variants: Vec<Variant<'a>>,
}

pub struct Variant<'a> {
    pub original: &'a syn::Variant,
    pub ident: &'a Ident,
    pub attrs: VariantAttrs,
    pub name: String,
}

impl<'a> Input<'a> {
    /// Reads the input; `None` for unions, reported to `cx`.
    pub fn from_syn(cx: &Ctxt, input: &'a DeriveInput) -> Option<Input<'a>> {
        let attrs = attr::type_attrs(cx, &input.attrs);
        match &input.data {
            Data::Struct(data) => Some(Input::Struct(Struct {
                ident: &input.ident,
                generics: &input.generics,
                fields: fields(cx, &data.fields, &attrs),
                attrs,
            })),
            Data::Enum(data) => Some(Input::Enum(Enum {
                ident: &input.ident,
                generics: &input.generics,
                variants: data
                    .variants
                    .iter()
                    .map(|v| variant(cx, v, &attrs))
                    .collect(),
                attrs,
            })),
            Data::Union(u) => {
                cx.error(
                    u.union_token,
                    "`#[derive(NdlType)]` does not support unions: their bytes have no single datatype\n\nhelp: use a `#[repr(C)]` struct, or a fieldless enum with an integer repr",
                );
                None
            }
        }
    }
}

fn fields<'a>(cx: &Ctxt, fields: &'a Fields, type_attrs: &TypeAttrs) -> Vec<Field<'a>> {
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let attrs = attr::field_attrs(cx, &f.attrs);
            let (member, default_name) = match &f.ident {
                Some(ident) => {
                    let plain = ident.unraw().to_string();
                    let name = match type_attrs.rename_all {
                        Some(rule) => rule.apply_to_field(&plain),
                        None => plain,
                    };
                    (Member::Named(ident.clone()), name)
                }
                // NumPy's default names for unnamed fields.
                None => (Member::Unnamed(i.into()), format!("f{i}")),
            };
            Field {
                original: f,
                member,
                ty: &f.ty,
                name: attrs.rename.as_ref().map_or(default_name, |r| r.value()),
                attrs,
            }
        })
        .collect()
}

fn variant<'a>(cx: &Ctxt, v: &'a syn::Variant, type_attrs: &TypeAttrs) -> Variant<'a> {
    let attrs = attr::variant_attrs(cx, &v.attrs);
    let plain = v.ident.unraw().to_string();
    let default_name = match type_attrs.rename_all {
        Some(rule) => rule.apply_to_variant(&plain),
        None => plain,
    };
    Variant {
        original: v,
        ident: &v.ident,
        name: attrs.rename.as_ref().map_or(default_name, |r| r.value()),
        attrs,
    }
}
