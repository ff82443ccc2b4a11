//! Interned names: registers, variables, labels, functions, files and section labels.
//!
//! A module owns one [`Interner`]; every name in the module is a 4-byte [`Name`] into it. Names
//! keep their source spelling exactly (`%r12`, `$L__BB0_3`, `_Z3fooPf`).

use rustc_hash::FxHashMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::num::NonZeroU32;

/// An interned name; resolve it with [`Interner::get`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Name(NonZeroU32);

impl Name {
    /// The index of this name in its interner (0-based).
    pub fn index(self) -> usize {
        self.0.get() as usize - 1
    }

    /// The name with the given 0-based index. The caller keeps it within its interner.
    pub fn from_index(i: usize) -> Name {
        let v = u32::try_from(i + 1).expect("more than 2^32 names");
        Name(NonZeroU32::new(v).expect("non-zero by construction"))
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Name({})", self.index())
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Name {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        // Small indices so that generated modules refer to names their interner holds.
        Ok(Name::from_index(u.int_in_range(0..=15)?))
    }
}

/// The string table of a module.
#[derive(Clone, Default)]
pub struct Interner {
    strings: Vec<Box<str>>,
    map: FxHashMap<Box<str>, Name>,
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// Interns `s`, returning the existing name if it was seen before.
    pub fn intern(&mut self, s: &str) -> Name {
        if let Some(&n) = self.map.get(s) {
            return n;
        }
        let n = Name::from_index(self.strings.len());
        let b: Box<str> = s.into();
        self.strings.push(b.clone());
        self.map.insert(b, n);
        n
    }

    /// The name for `s`, if it was interned.
    pub fn find(&self, s: &str) -> Option<Name> {
        self.map.get(s).copied()
    }

    /// The spelling of `n`. Panics if `n` does not belong to this interner; use
    /// [`Interner::try_get`] for names of unknown origin.
    pub fn get(&self, n: Name) -> &str {
        &self.strings[n.index()]
    }

    /// The spelling of `n`, or `None` if it does not belong to this interner.
    pub fn try_get(&self, n: Name) -> Option<&str> {
        self.strings.get(n.index()).map(|s| &**s)
    }

    /// Number of interned names.
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// Whether no name has been interned.
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }

    /// All names in interning order.
    pub fn iter(&self) -> impl Iterator<Item = (Name, &str)> {
        self.strings
            .iter()
            .enumerate()
            .map(|(i, s)| (Name::from_index(i), &**s))
    }

    /// Builds an interner from strings in order. Fails on a duplicate, which would make two
    /// names with one spelling.
    pub fn from_strings<I: IntoIterator<Item = String>>(strings: I) -> Result<Self, String> {
        let mut me = Interner::new();
        for s in strings {
            let before = me.len();
            if me.intern(&s).index() != before {
                return Err(s);
            }
        }
        Ok(me)
    }

    /// Heap bytes held by the table (for IR size reports).
    pub fn heap_bytes(&self) -> usize {
        let strings: usize = self.strings.iter().map(|s| s.len()).sum();
        // The map holds a second copy of each string plus its bucket.
        2 * strings
            + self.strings.capacity() * std::mem::size_of::<Box<str>>()
            + self.map.capacity() * (std::mem::size_of::<(Box<str>, Name)>() + 1)
    }
}

impl PartialEq for Interner {
    fn eq(&self, other: &Self) -> bool {
        self.strings == other.strings
    }
}

impl Eq for Interner {}

impl fmt::Debug for Interner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.strings.iter()).finish()
    }
}

impl Serialize for Interner {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.strings.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Interner {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Vec::<String>::deserialize(d)?;
        Interner::from_strings(v)
            .map_err(|s| serde::de::Error::custom(format!("duplicate name `{s}` in string table")))
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Interner {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        // Sixteen distinct, valid identifiers so that every arbitrary Name resolves.
        let mut me = Interner::new();
        for i in 0..16 {
            let prefix = *u.choose(&["%r", "%rd", "%p", "%f", "L", "$L__BB", "sym", "_Z3f"])?;
            me.intern(&format!("{prefix}{i}"));
        }
        Ok(me)
    }
}
