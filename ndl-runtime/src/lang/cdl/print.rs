//! Type definitions as `ncdump -h` prints them: in `ncgen`'s order, enum
//! lines wrapped where `ncdump` wraps them.

use std::collections::HashSet;

use super::name::escape;
use super::types::{Def, TypeRef, TypeSet};
use crate::Datatype;
use crate::lang::LangError;

/// `ncdump` wraps enum lines longer than its default 80 columns minus 2.
const MAX_LINE: usize = 78;

impl TypeSet {
    /// The definitions in the order `ncgen` creates them (and `ncdump`
    /// prints them): first every type built only from primitives, in
    /// order; then, pass after pass, each type whose dependencies are done.
    fn ncgen_order(&self) -> Vec<&(String, Def)> {
        let mut done: HashSet<&str> = HashSet::new();
        let ready = |r: &TypeRef, done: &HashSet<&str>| match r {
            TypeRef::Prim(_) => true,
            TypeRef::Named(n) => done.contains(n.as_str()),
        };
        let mut sorted = Vec::with_capacity(self.defs.len());
        let empty = HashSet::new();
        for entry in &self.defs {
            let primitive_only = match &entry.1 {
                Def::Enum { .. } | Def::Opaque(_) => true,
                Def::Vlen(b) => ready(b, &empty),
                Def::Compound(fields) => fields.iter().all(|f| ready(&f.ty, &empty)),
            };
            if primitive_only {
                done.insert(&entry.0);
                sorted.push(entry);
            }
        }
        loop {
            let mut added = false;
            for entry in &self.defs {
                if done.contains(entry.0.as_str()) {
                    continue;
                }
                let ok = match &entry.1 {
                    Def::Vlen(b) => ready(b, &done),
                    Def::Compound(fields) => fields.iter().all(|f| ready(&f.ty, &done)),
                    _ => true,
                };
                if ok {
                    done.insert(&entry.0);
                    sorted.push(entry);
                    added = true;
                }
            }
            if !added {
                return sorted;
            }
        }
    }

    /// The definitions as `ncdump -h` prints them in the root group (a
    /// subgroup's are indented further when it is nested), enums wrapped
    /// by `lput`.
    pub(super) fn render(&self, out: &mut String, lput: &mut Lput) {
        let indent = "  ";
        for (name, def) in self.ncgen_order() {
            let name = escape(name);
            match def {
                Def::Opaque(size) => out.push_str(&format!("{indent}opaque({size}) {name} ;\n")),
                Def::Vlen(base) => {
                    out.push_str(&format!("{indent}{}(*) {name} ;\n", type_text(base)))
                }
                Def::Compound(fields) => {
                    out.push_str(&format!("{indent}compound {name} {{\n"));
                    for f in fields {
                        out.push_str(&format!(
                            "{indent}  {} {}{} ;\n",
                            type_text(&f.ty),
                            escape(&f.name),
                            dims_text(&f.dims)
                        ));
                    }
                    out.push_str(&format!("{indent}}}; // {name}\n"));
                }
                Def::Enum { base, members } => {
                    out.push_str(indent);
                    lput.put(out, &format!("{base} enum {name} {{"));
                    for (i, m) in members.iter().enumerate() {
                        let delim = if i + 1 == members.len() {
                            "} ;\n"
                        } else {
                            ", "
                        };
                        lput.put(out, &format!("{} = {}{delim}", escape(&m.name), m.value));
                    }
                }
            }
        }
    }
}

/// `ncdump`'s `lput`, which wraps enum definitions and compound
/// attribute values: a piece that would take the line past 78 columns
/// (and is longer than 2 bytes) goes on a new line indented by the
/// current indent plus 4. `ncdump` keeps the line position in one global
/// for the whole file: only a piece ending a line (an enum's last) sets it
/// back to the indent, so pieces of compound attributes count on from
/// those before them (measured with netCDF 4.9.0).
#[derive(Debug, Default)]
pub(super) struct Lput {
    linep: usize,
    /// The group depth of what is printed (a group indents by 2).
    depth: usize,
    /// The indent within the group: 2 under `types:`, 0 for attributes.
    relative: usize,
}

impl Lput {
    /// The next pieces go `relative` columns in, in a group `depth` deep.
    pub(super) fn at(&mut self, depth: usize, relative: usize) {
        self.depth = depth;
        self.relative = relative;
    }

    fn indent(&self) -> usize {
        2 * self.depth + self.relative
    }

    /// Writes `piece`, first breaking the line where `ncdump` would. The
    /// text is indented as in the root group: nesting indents it later.
    pub(super) fn put(&mut self, out: &mut String, piece: &str) {
        // strlen: bytes, not characters.
        let n = piece.len();
        if n + self.linep > MAX_LINE && n > 2 {
            out.push('\n');
            out.push_str(&" ".repeat(self.relative));
            out.push_str("    ");
            self.linep = 4 + self.indent();
        }
        out.push_str(piece);
        self.linep = if piece.ends_with('\n') {
            self.indent()
        } else {
            self.linep + n
        };
    }
}

pub(super) fn type_text(r: &TypeRef) -> String {
    match r {
        TypeRef::Prim(p) => (*p).to_string(),
        TypeRef::Named(n) => escape(n),
    }
}

fn dims_text(dims: &[usize]) -> String {
    if dims.is_empty() {
        return String::new();
    }
    let list: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("({})", list.join(", "))
}

/// The CDL type definitions `dt` needs, named `name` (nested types after
/// their members), as the lines `ncdump -h` prints under `types:`. Empty
/// for a primitive datatype, which needs no definition.
///
/// ```
/// use ndl_runtime::lang::cdl::type_definitions;
/// use ndl_runtime::{Compound, Datatype};
///
/// let obs = Compound::c_layout([
///     ("lat", Datatype::Float32),
///     ("samples", Datatype::Vlen(Box::new(Datatype::Int32))),
/// ]);
/// // A vlen has no fixed size, so it cannot be a record member here;
/// // use an array member instead.
/// assert!(obs.is_err());
/// let rec = Compound::c_layout([
///     ("lat", Datatype::Float32),
///     ("mat", Datatype::Int16.array_of(&[2, 3])),
/// ])
/// .unwrap();
/// assert_eq!(
///     type_definitions("obs_t", &Datatype::Compound(rec)).unwrap(),
///     "  compound obs_t {\n    float lat ;\n    short mat(2, 3) ;\n  }; // obs_t\n"
/// );
/// ```
pub fn type_definitions(name: &str, dt: &Datatype) -> Result<String, LangError> {
    let mut types = TypeSet::default();
    types.add_root(name, dt)?;
    let mut out = String::new();
    let mut lput = Lput::default();
    lput.at(0, 2);
    types.render(&mut out, &mut lput);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enum_lines_wrap_like_ncdump() {
        let mut out = String::new();
        let mut w = Lput::default();
        w.at(0, 2);
        w.put(&mut out, &"a".repeat(70));
        w.put(&mut out, &"b".repeat(9));
        assert_eq!(out, format!("{}\n      {}", "a".repeat(70), "b".repeat(9)));
    }
}
