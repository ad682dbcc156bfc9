//! Every attribute the derive reads: `#[repr(...)]`, `#[ndl(...)]`, `#[doc]`.

use proc_macro2::Span;
use syn::{Attribute, Expr, ExprLit, Ident, Lit, LitStr, Meta, Path};

use crate::ctxt::Ctxt;

/// What `#[repr(...)]` says about the layout.
#[derive(Default)]
pub struct Repr {
    pub c: bool,
    pub transparent: bool,
    /// The integer type of `#[repr(u8)]` and friends.
    pub int: Option<Ident>,
    /// The span of a `#[repr(packed)]` on its own (without `C`).
    pub packed: Option<Span>,
    /// The span of a `#[repr(align(N))]`.
    pub align: Option<Span>,
}

/// Attributes on the struct or enum.
pub struct TypeAttrs {
    pub repr: Repr,
    pub rename_all: Option<RenameRule>,
    pub krate: Option<Path>,
    pub doc: Option<String>,
}

/// Attributes on a field.
pub struct FieldAttrs {
    pub rename: Option<LitStr>,
    pub storage: Storage,
    pub doc: Option<String>,
    /// `#[ndl(units = "K")]`.
    pub units: Option<LitStr>,
    /// `#[ndl(dims = ["row", "col"])]`: the span of `dims`, and the names.
    pub dims: Option<(Span, Vec<LitStr>)>,
    /// `#[ndl(fill = EXPR)]`: the span of `fill`, and the value.
    pub fill: Option<(Span, Expr)>,
}

/// Attributes on an enum variant.
pub struct VariantAttrs {
    pub rename: Option<LitStr>,
}

/// How a `[u8; N]` field is described.
pub enum Storage {
    /// By its own `NdlType` impl.
    Native,
    /// `#[ndl(string)]`: a fixed-length string.
    String(Span),
    /// `#[ndl(opaque)]` or `#[ndl(opaque = "tag")]`: opaque bytes.
    Opaque(Span, Option<LitStr>),
    /// `#[ndl(padding)]`: bytes of the record that no member holds (a gap
    /// or trailing padding), left out of the datatype but counted in the
    /// offsets and size.
    Padding(Span),
}

/// serde's `rename_all` rules.
#[derive(Clone, Copy)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

const RENAME_RULES: [(&str, RenameRule); 8] = [
    ("lowercase", RenameRule::Lower),
    ("UPPERCASE", RenameRule::Upper),
    ("PascalCase", RenameRule::Pascal),
    ("camelCase", RenameRule::Camel),
    ("snake_case", RenameRule::Snake),
    ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
    ("kebab-case", RenameRule::Kebab),
    ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebab),
];

impl RenameRule {
    /// Renames a `snake_case` field name.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => pascal_from_snake(field),
            RenameRule::Camel => {
                let pascal = pascal_from_snake(field);
                let mut chars = pascal.chars();
                chars
                    .next()
                    .map_or_else(String::new, |c| c.to_lowercase().chain(chars).collect())
            }
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// Renames a `PascalCase` variant name.
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            RenameRule::Pascal => variant.to_owned(),
            RenameRule::Lower => variant.to_ascii_lowercase(),
            RenameRule::Upper => variant.to_ascii_uppercase(),
            RenameRule::Camel => {
                let mut chars = variant.chars();
                chars
                    .next()
                    .map_or_else(String::new, |c| c.to_lowercase().chain(chars).collect())
            }
            RenameRule::Snake => snake_from_pascal(variant),
            RenameRule::ScreamingSnake => snake_from_pascal(variant).to_ascii_uppercase(),
            RenameRule::Kebab => snake_from_pascal(variant).replace('_', "-"),
            RenameRule::ScreamingKebab => snake_from_pascal(variant)
                .to_ascii_uppercase()
                .replace('_', "-"),
        }
    }
}

fn pascal_from_snake(s: &str) -> String {
    s.split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

fn snake_from_pascal(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.char_indices() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

pub fn type_attrs(cx: &Ctxt, attrs: &[Attribute]) -> TypeAttrs {
    let mut out = TypeAttrs {
        repr: repr(cx, attrs),
        rename_all: None,
        krate: None,
        doc: doc(attrs),
    };
    for_each_ndl(cx, attrs, |meta| {
        if meta.path.is_ident("rename_all") {
            let s: LitStr = meta.value()?.parse()?;
            match RENAME_RULES.iter().find(|(name, _)| *name == s.value()) {
                Some((_, rule)) => set_once(cx, &meta, &mut out.rename_all, *rule),
                None => cx.error(
                    &s,
                    format!(
                        "unknown rename rule `{}`\n\nhelp: use one of: {}",
                        s.value(),
                        RENAME_RULES.map(|(n, _)| format!("\"{n}\"")).join(", ")
                    ),
                ),
            }
        } else if meta.path.is_ident("crate") {
            let s: LitStr = meta.value()?.parse()?;
            set_once(cx, &meta, &mut out.krate, s.parse()?);
        } else {
            return Err(unknown_key(
                &meta,
                "on a type",
                "rename_all = \"...\", crate = \"...\"",
            ));
        }
        Ok(())
    });
    out
}

pub fn field_attrs(cx: &Ctxt, attrs: &[Attribute]) -> FieldAttrs {
    let mut out = FieldAttrs {
        rename: None,
        storage: Storage::Native,
        doc: doc(attrs),
        units: None,
        dims: None,
        fill: None,
    };
    for_each_ndl(cx, attrs, |meta| {
        let span = meta
            .path
            .get_ident()
            .map_or_else(Span::call_site, Ident::span);
        if meta.path.is_ident("rename") {
            let s: LitStr = meta.value()?.parse()?;
            set_once(cx, &meta, &mut out.rename, s);
        } else if meta.path.is_ident("string") {
            set_storage(cx, &mut out.storage, Storage::String(span));
        } else if meta.path.is_ident("opaque") {
            let tag = if meta.input.peek(syn::Token![=]) {
                Some(meta.value()?.parse::<LitStr>()?)
            } else {
                None
            };
            set_storage(cx, &mut out.storage, Storage::Opaque(span, tag));
        } else if meta.path.is_ident("padding") {
            set_storage(cx, &mut out.storage, Storage::Padding(span));
        } else if meta.path.is_ident("units") {
            let s: LitStr = meta.value()?.parse()?;
            set_once(cx, &meta, &mut out.units, s);
        } else if meta.path.is_ident("fill") {
            let value: Expr = meta.value()?.parse()?;
            set_once(cx, &meta, &mut out.fill, (span, value));
        } else if meta.path.is_ident("dims") {
            let list: syn::ExprArray = meta.value()?.parse()?;
            let names = list
                .elems
                .iter()
                .map(|e| match e {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }) => Ok(s.clone()),
                    other => Err(syn::Error::new_spanned(
                        other,
                        "a dimension name is a string literal\n\nhelp: write `dims = [\"row\", \"col\"]`",
                    )),
                })
                .collect::<syn::Result<Vec<_>>>()?;
            set_once(cx, &meta, &mut out.dims, (span, names));
        } else {
            return Err(unknown_key(
                &meta,
                "on a field",
                "rename = \"...\", string, opaque, opaque = \"tag\", padding, units = \"...\", dims = [\"...\", ...], fill = EXPR (on an `Option` field of a `#[derive(Record)]` struct)",
            ));
        }
        Ok(())
    });
    out
}

pub fn variant_attrs(cx: &Ctxt, attrs: &[Attribute]) -> VariantAttrs {
    let mut out = VariantAttrs { rename: None };
    for_each_ndl(cx, attrs, |meta| {
        if meta.path.is_ident("rename") {
            let s: LitStr = meta.value()?.parse()?;
            set_once(cx, &meta, &mut out.rename, s);
            Ok(())
        } else {
            Err(unknown_key(&meta, "on a variant", "rename = \"...\""))
        }
    });
    out
}

fn for_each_ndl(
    cx: &Ctxt,
    attrs: &[Attribute],
    mut f: impl FnMut(syn::meta::ParseNestedMeta) -> syn::Result<()>,
) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("ndl")) {
        if let Err(e) = attr.parse_nested_meta(&mut f) {
            cx.syn_error(e);
        }
    }
}

fn unknown_key(meta: &syn::meta::ParseNestedMeta, place: &str, allowed: &str) -> syn::Error {
    let key = meta
        .path
        .get_ident()
        .map_or_else(|| "?".to_owned(), ToString::to_string);
    meta.error(format!(
        "unknown ndl attribute `{key}` {place}\n\nhelp: the attributes accepted {place} are: {allowed}"
    ))
}

fn set_once<T>(cx: &Ctxt, meta: &syn::meta::ParseNestedMeta, slot: &mut Option<T>, value: T) {
    if slot.is_some() {
        cx.error(&meta.path, "duplicate ndl attribute");
    } else {
        *slot = Some(value);
    }
}

fn set_storage(cx: &Ctxt, slot: &mut Storage, value: Storage) {
    let span = match &value {
        Storage::String(s) | Storage::Opaque(s, _) | Storage::Padding(s) => *s,
        Storage::Native => Span::call_site(),
    };
    if matches!(slot, Storage::Native) {
        *slot = value;
    } else {
        cx.error_at(
            span,
            "a field is one of `string`, `opaque` and `padding`, not several\n\nhelp: keep one of the attributes",
        );
    }
}

fn repr(cx: &Ctxt, attrs: &[Attribute]) -> Repr {
    let mut repr = Repr::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let parsed = attr.parse_nested_meta(|meta| {
            let Some(ident) = meta.path.get_ident() else {
                return Ok(());
            };
            match ident.to_string().as_str() {
                "C" => repr.c = true,
                "transparent" => repr.transparent = true,
                "packed" => {
                    repr.packed = Some(ident.span());
                    skip_args(&meta)?;
                }
                "align" => {
                    repr.align = Some(ident.span());
                    skip_args(&meta)?;
                }
                "u8" | "u16" | "u32" | "u64" | "i8" | "i16" | "i32" | "i64" | "usize" | "isize"
                | "u128" | "i128" => repr.int = Some(ident.clone()),
                _ => {}
            }
            Ok(())
        });
        if let Err(e) = parsed {
            cx.syn_error(e);
        }
    }
    repr
}

fn skip_args(meta: &syn::meta::ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        let _: proc_macro2::TokenStream = content.parse()?;
    }
    Ok(())
}

/// The doc comment, one leading space per line removed, trimmed.
fn doc(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| {
            line.strip_prefix(' ')
                .unwrap_or(&line)
                .trim_end()
                .to_owned()
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}
