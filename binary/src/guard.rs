//! A `serde::Deserializer` wrapper that bounds what hostile bytes can make the decoder do.
//!
//! It sits between the IR's derived `Deserialize` impls and the wire format's deserializer
//! (whatever [`crate::wire`] uses) and enforces, independently of that format:
//!
//! - **Nesting depth.** Every value that can recursively contain its own type (sequence, map,
//!   option, enum) counts one level; deeper than [`crate::DecodeLimits::max_depth`] is an error. Recursive IR
//!   types (`Statement::Block`, `Operand::Neg`, `Expr::Binary`, `Init::List`) would otherwise let
//!   a few kilobytes of input overflow the stack while decoding, dropping, comparing or printing.
//! - **Sequence lengths.** Every element of every sequence takes at least one byte of the
//!   decoded section (no IR type encodes to zero bytes), and the elements of different sequences
//!   start at different bytes, so the declared lengths of all sequences of a valid section add
//!   up to at most its size. The wrapper charges each declared length against that budget and
//!   rejects a length that does not fit *before* the collection reserves memory for it. This
//!   bounds preallocation by the section size (times the largest element size).
//! - **Strings and byte buffers** are read through the borrowed (`&str`, `&[u8]`) path, which
//!   checks the length against the remaining input before anything is allocated, and then
//!   copied; an owned `String` read would allocate the declared length first.
//!
//! On an error it also records where the error happened, as a path like
//! `items[3].Function.body[12].Inst.operands[1]`.

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use std::cell::{Cell, RefCell};
use std::fmt;

/// Why the guard stopped decoding.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Nesting deeper than the limit.
    TooDeep { limit: u32 },
    /// A sequence length that cannot fit in what is left of the section.
    TooLong { len: u64, budget: u64 },
    /// An enum tag outside the enum.
    BadTag {
        ty: &'static str,
        found: u32,
        count: usize,
    },
}

#[derive(Copy, Clone, Debug)]
enum Seg {
    Index(usize),
    Field(&'static str),
    Variant(&'static str),
}

/// Shared state of one decode.
pub(crate) struct State {
    depth: Cell<u32>,
    max_depth: u32,
    budget: Cell<u64>,
    stop: Cell<Option<Stop>>,
    variant: Cell<Option<u32>>,
    path: RefCell<Vec<Seg>>,
}

impl State {
    /// State for decoding a section of `section_len` bytes with the given depth limit.
    pub(crate) fn new(section_len: usize, max_depth: u32) -> State {
        State {
            depth: Cell::new(0),
            max_depth,
            budget: Cell::new(section_len as u64),
            stop: Cell::new(None),
            variant: Cell::new(None),
            path: RefCell::new(Vec::new()),
        }
    }

    /// The guard's own reason for an error, if the error came from the guard.
    pub(crate) fn stop(&self) -> Option<Stop> {
        self.stop.get()
    }

    /// Where the error happened, outermost first (`items[3].Function.body[12]`); empty at the
    /// top level.
    pub(crate) fn path(&self) -> String {
        let mut s = String::new();
        for seg in self.path.borrow().iter().rev() {
            match seg {
                Seg::Index(i) => {
                    let _ = fmt::Write::write_fmt(&mut s, format_args!("[{i}]"));
                }
                Seg::Field(f) | Seg::Variant(f) => {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(f);
                }
            }
        }
        s
    }

    fn fail<E: de::Error>(&self, stop: Stop) -> E {
        self.stop.set(Some(stop));
        E::custom("stopped by the decoder's guard")
    }

    #[inline]
    fn enter<E: de::Error>(&self) -> Result<u32, E> {
        let d = self.depth.get();
        if d >= self.max_depth {
            return Err(self.fail(Stop::TooDeep {
                limit: self.max_depth,
            }));
        }
        self.depth.set(d + 1);
        Ok(d)
    }

    #[inline]
    fn leave(&self, d: u32) {
        self.depth.set(d);
    }

    #[inline]
    fn charge<E: de::Error>(&self, len: Option<usize>) -> Result<(), E> {
        let len = len.unwrap_or(0) as u64;
        let b = self.budget.get();
        if len > b {
            return Err(self.fail(Stop::TooLong { len, budget: b }));
        }
        self.budget.set(b - len);
        Ok(())
    }

    #[cold]
    fn push(&self, seg: Seg) {
        self.path.borrow_mut().push(seg);
    }
}

/// A deserialize seed that wraps the deserializer it is given in the guard.
pub(crate) struct Guarded<'s, T> {
    inner: T,
    st: &'s State,
}

impl<'s, T> Guarded<'s, T> {
    /// Wraps `inner` (a seed or a deserializer).
    pub(crate) fn new(inner: T, st: &'s State) -> Self {
        Guarded { inner, st }
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Guarded<'_, S> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.inner.deserialize(Guarded {
            inner: d,
            st: self.st,
        })
    }
}

/// What a wrapped visitor does with a sequence it is handed.
#[derive(Copy, Clone)]
enum Shape {
    /// Not a sequence (or nothing to add).
    Plain,
    /// A variable-length sequence: charge its length.
    Seq,
    /// A struct: name its fields in error paths.
    Struct(&'static [&'static str]),
    /// An enum: name its variants in error paths.
    Enum(&'static str, &'static [&'static str]),
}

struct GVisitor<'s, V> {
    v: V,
    st: &'s State,
    shape: Shape,
}

macro_rules! forward_scalars {
    ($($m:ident),* $(,)?) => {
        $(
            #[inline]
            fn $m<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
                self.inner.$m(visitor)
            }
        )*
    };
}

impl<'de, D: Deserializer<'de>> Guarded<'_, D> {
    /// A value that can contain values of its own type: counts one level of depth.
    #[inline]
    fn nested<V: Visitor<'de>>(
        self,
        visitor: V,
        shape: Shape,
        f: impl FnOnce(D, GVisitor<'_, V>) -> Result<V::Value, D::Error>,
    ) -> Result<V::Value, D::Error> {
        let st = self.st;
        let d = st.enter()?;
        let r = f(
            self.inner,
            GVisitor {
                v: visitor,
                st,
                shape,
            },
        );
        st.leave(d);
        r
    }

    /// A fixed-shape value (struct, tuple, newtype): passes the guard on without counting depth.
    /// Rust types cannot recurse through these alone (the value would be infinite), so every
    /// recursion passes a sequence, an option or an enum, which count.
    #[inline]
    fn fixed<V: Visitor<'de>>(
        self,
        visitor: V,
        shape: Shape,
        f: impl FnOnce(D, GVisitor<'_, V>) -> Result<V::Value, D::Error>,
    ) -> Result<V::Value, D::Error> {
        f(
            self.inner,
            GVisitor {
                v: visitor,
                st: self.st,
                shape,
            },
        )
    }
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Guarded<'_, D> {
    type Error = D::Error;

    forward_scalars!(
        deserialize_bool,
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_i128,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_u128,
        deserialize_f32,
        deserialize_f64,
        deserialize_char,
        deserialize_str,
        deserialize_bytes,
        deserialize_unit,
    );

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.nested(visitor, Shape::Plain, |d, v| d.deserialize_any(v))
    }

    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        // Borrowed read: the length is checked against the input before the copy is made.
        self.inner.deserialize_str(visitor)
    }

    #[inline]
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.inner.deserialize_bytes(visitor)
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.nested(visitor, Shape::Plain, |d, v| d.deserialize_option(v))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.inner.deserialize_unit_struct(name, visitor)
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.fixed(visitor, Shape::Plain, |d, v| {
            d.deserialize_newtype_struct(name, v)
        })
    }

    #[inline]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.nested(visitor, Shape::Seq, |d, v| d.deserialize_seq(v))
    }

    #[inline]
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.fixed(visitor, Shape::Plain, |d, v| d.deserialize_tuple(len, v))
    }

    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.fixed(visitor, Shape::Plain, |d, v| {
            d.deserialize_tuple_struct(name, len, v)
        })
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.nested(visitor, Shape::Seq, |d, v| d.deserialize_map(v))
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.fixed(visitor, Shape::Struct(fields), |d, v| {
            d.deserialize_struct(name, fields, v)
        })
    }

    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.nested(visitor, Shape::Enum(name, variants), |d, v| {
            d.deserialize_enum(name, variants, v)
        })
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        // Only reached for enum variant identifiers (see `VariantSeed`): record the index.
        self.inner.deserialize_identifier(IdVisitor {
            v: visitor,
            st: self.st,
        })
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.nested(visitor, Shape::Plain, |d, v| d.deserialize_ignored_any(v))
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

macro_rules! forward_visits {
    ($($m:ident : $t:ty),* $(,)?) => {
        $(
            #[inline]
            fn $m<E: de::Error>(self, v: $t) -> Result<Self::Value, E> {
                self.v.$m(v)
            }
        )*
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for GVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.v.expecting(f)
    }

    forward_visits!(
        visit_bool: bool,
        visit_i8: i8,
        visit_i16: i16,
        visit_i32: i32,
        visit_i64: i64,
        visit_i128: i128,
        visit_u8: u8,
        visit_u16: u16,
        visit_u32: u32,
        visit_u64: u64,
        visit_u128: u128,
        visit_f32: f32,
        visit_f64: f64,
        visit_char: char,
        visit_str: &str,
        visit_borrowed_str: &'de str,
        visit_string: String,
        visit_bytes: &[u8],
        visit_borrowed_bytes: &'de [u8],
        visit_byte_buf: Vec<u8>,
    );

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.v.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.v.visit_unit()
    }

    #[inline]
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.v.visit_some(Guarded {
            inner: d,
            st: self.st,
        })
    }

    #[inline]
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.v.visit_newtype_struct(Guarded {
            inner: d,
            st: self.st,
        })
    }

    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        let fields = match self.shape {
            Shape::Seq => {
                self.st.charge(seq.size_hint())?;
                None
            }
            Shape::Struct(f) => Some(f),
            _ => None,
        };
        self.v.visit_seq(GSeq {
            inner: seq,
            st: self.st,
            index: 0,
            fields,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        if let Shape::Seq = self.shape {
            self.st.charge(map.size_hint())?;
        }
        self.v.visit_map(GMap {
            inner: map,
            st: self.st,
        })
    }

    #[inline]
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        let (name, variants) = match self.shape {
            Shape::Enum(n, v) => (n, v),
            _ => ("enum", &[][..]),
        };
        self.v.visit_enum(GEnum {
            inner: data,
            st: self.st,
            name,
            variants,
        })
    }
}

struct GSeq<'s, A> {
    inner: A,
    st: &'s State,
    index: usize,
    fields: Option<&'static [&'static str]>,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for GSeq<'_, A> {
    type Error = A::Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let i = self.index;
        self.index += 1;
        match self.inner.next_element_seed(Guarded {
            inner: seed,
            st: self.st,
        }) {
            Ok(v) => Ok(v),
            Err(e) => {
                self.st.push(match self.fields.and_then(|f| f.get(i)) {
                    Some(f) => Seg::Field(f),
                    None => Seg::Index(i),
                });
                Err(e)
            }
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

struct GMap<'s, A> {
    inner: A,
    st: &'s State,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for GMap<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.inner.next_key_seed(Guarded {
            inner: seed,
            st: self.st,
        })
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.inner.next_value_seed(Guarded {
            inner: seed,
            st: self.st,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

struct GEnum<'s, A> {
    inner: A,
    st: &'s State,
    name: &'static str,
    variants: &'static [&'static str],
}

impl<'de, 's, A: EnumAccess<'de>> EnumAccess<'de> for GEnum<'s, A> {
    type Error = A::Error;
    type Variant = GVariant<'s, A::Variant>;

    #[inline]
    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Self::Variant), A::Error> {
        let st = self.st;
        st.variant.set(None);
        match self.inner.variant_seed(Guarded { inner: seed, st }) {
            Ok((v, inner)) => {
                let name = st
                    .variant
                    .get()
                    .and_then(|i| self.variants.get(i as usize))
                    .copied()
                    .unwrap_or(self.name);
                Ok((v, GVariant { inner, st, name }))
            }
            Err(e) => match st.variant.get() {
                Some(found) if found as usize >= self.variants.len() => {
                    Err(st.fail(Stop::BadTag {
                        ty: self.name,
                        found,
                        count: self.variants.len(),
                    }))
                }
                _ => Err(e),
            },
        }
    }
}

struct GVariant<'s, A> {
    inner: A,
    st: &'s State,
    name: &'static str,
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for GVariant<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.inner.unit_variant()
    }

    #[inline]
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        let (st, name) = (self.st, self.name);
        self.inner
            .newtype_variant_seed(Guarded { inner: seed, st })
            .inspect_err(|_| st.push(Seg::Variant(name)))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        let (st, name) = (self.st, self.name);
        let r = self.inner.tuple_variant(
            len,
            GVisitor {
                v: visitor,
                st,
                shape: Shape::Plain,
            },
        );
        r.inspect_err(|_| st.push(Seg::Variant(name)))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let (st, name) = (self.st, self.name);
        let r = self.inner.struct_variant(
            fields,
            GVisitor {
                v: visitor,
                st,
                shape: Shape::Struct(fields),
            },
        );
        r.inspect_err(|_| st.push(Seg::Variant(name)))
    }
}

/// Visits an enum's variant identifier, recording its index for error messages.
struct IdVisitor<'s, V> {
    v: V,
    st: &'s State,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for IdVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.v.expecting(f)
    }

    #[inline]
    fn visit_u32<E: de::Error>(self, v: u32) -> Result<Self::Value, E> {
        self.st.variant.set(Some(v));
        self.v.visit_u32(v)
    }

    #[inline]
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        self.st
            .variant
            .set(Some(u32::try_from(v).unwrap_or(u32::MAX)));
        self.v.visit_u64(v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.v.visit_str(v)
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
        self.v.visit_bytes(v)
    }
}
