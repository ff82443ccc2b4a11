//! How a module's items reach the wire: through the IR's serde derives, except for function
//! bodies and section entries, which go through the byte columns ([`crate::columns`]). The
//! definitions below mirror `Item`, `Function` and `Section` field for field and variant for
//! variant (serde's remote derive checks the fields against the IR's at compile time; the
//! variant order, which the format numbers, is the IR's and is pinned by the golden files).

use crate::columns;
use ptx_ir_core::module::{
    Attribute, FileDecl, FuncDirective, Function, FunctionKind, Item, Linkage, Param, Section,
    SectionEntry, VarDecl,
};
use ptx_ir_core::{Body, Name};
use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

#[derive(Serialize, Deserialize)]
#[serde(remote = "Item")]
enum ItemDef {
    Function(#[serde(with = "boxed_function")] Box<Function>),
    Variable(Box<VarDecl>),
    File(Box<FileDecl>),
    Section(#[serde(with = "boxed_section")] Box<Section>),
    Pragma(Box<str>),
    Alias { alias: Name, aliasee: Name },
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Function")]
struct FunctionDef {
    linkage: Option<Linkage>,
    kind: FunctionKind,
    attributes: Vec<Attribute>,
    returns: Option<Vec<Param>>,
    name: Name,
    params: Option<Vec<Param>>,
    directives: Vec<FuncDirective>,
    #[serde(with = "optional_body")]
    body: Option<Body>,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Section")]
struct SectionDef {
    name: Box<str>,
    #[serde(with = "columns::section")]
    entries: Vec<SectionEntry>,
}

mod boxed_function {
    use super::*;

    pub(super) fn serialize<S: Serializer>(f: &Function, s: S) -> Result<S::Ok, S::Error> {
        FunctionDef::serialize(f, s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<Function>, D::Error> {
        FunctionDef::deserialize(d).map(Box::new)
    }
}

mod boxed_section {
    use super::*;

    pub(super) fn serialize<S: Serializer>(x: &Section, s: S) -> Result<S::Ok, S::Error> {
        SectionDef::serialize(x, s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<Section>, D::Error> {
        SectionDef::deserialize(d).map(Box::new)
    }
}

mod optional_body {
    use super::*;

    /// A body through the columns, as `Option`'s serde form has it.
    struct Columns<'a>(&'a Body);

    impl Serialize for Columns<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            columns::body::serialize(self.0, s)
        }
    }

    struct Decoded(Body);

    impl<'de> Deserialize<'de> for Decoded {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Decoded, D::Error> {
            columns::body::deserialize(d).map(Decoded)
        }
    }

    pub(super) fn serialize<S: Serializer>(b: &Option<Body>, s: S) -> Result<S::Ok, S::Error> {
        b.as_ref().map(Columns).serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Body>, D::Error> {
        Ok(Option::<Decoded>::deserialize(d)?.map(|b| b.0))
    }
}

/// `#[serde(with = "crate::items")]` for a module's item list.
pub(crate) fn serialize<S: Serializer>(items: &[Item], s: S) -> Result<S::Ok, S::Error> {
    struct One<'a>(&'a Item);
    impl Serialize for One<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            ItemDef::serialize(self.0, s)
        }
    }
    let mut seq = s.serialize_seq(Some(items.len()))?;
    for i in items {
        seq.serialize_element(&One(i))?;
    }
    seq.end()
}

/// `#[serde(with = "crate::items")]` for a module's item list.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Item>, D::Error> {
    struct One(Item);
    impl<'de> Deserialize<'de> for One {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<One, D::Error> {
            ItemDef::deserialize(d).map(One)
        }
    }
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Vec<Item>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of module items")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Vec<Item>, A::Error> {
            // A capacity from the claimed length only up to a small bound (as serde's own
            // `Vec` does): the input decides the length, not the allocation.
            let mut v = Vec::with_capacity(a.size_hint().unwrap_or(0).min(4096));
            while let Some(One(i)) = a.next_element()? {
                v.push(i);
            }
            Ok(v)
        }
    }
    d.deserialize_seq(V)
}
