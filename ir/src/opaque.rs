//! The named members of the opaque types `.texref`, `.samplerref` and `.surfref` and their
//! values: what a module-scope initialiser such as
//! `.global .samplerref s = { addr_mode_0 = clamp_to_border, filter_mode = nearest };` assigns
//! (PTX ISA 9.0, section 5.3 "Texture Sampler and Surface Types", Tables 10 and 11).
//!
//! One table ([`OpaqueMember::TABLE`]) gives each member's spelling, the kind of value it takes
//! and the types that have it; the reader, the printer, the bytecode's validation, the
//! generator and the interpreter all read it.

use crate::vocab::Type;
use serde::{Deserialize, Serialize};

/// A named member of an opaque type.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum OpaqueMember {
    /// `width`: elements in dimension 0.
    Width,
    /// `height`: elements in dimension 1.
    Height,
    /// `depth`: elements in dimension 2.
    Depth,
    /// `channel_data_type`: the source language's enumeration value (OpenCL's, ISA 5.3.3).
    ChannelDataType,
    /// `channel_order`: the source language's enumeration value (OpenCL's, ISA 5.3.3).
    ChannelOrder,
    /// `normalized_coords`: 0 or 1.
    NormalizedCoords,
    /// `force_unnormalized_coords`: 0 or 1 (independent mode's `.samplerref` only).
    ForceUnnormalizedCoords,
    /// `filter_mode`: `nearest` or `linear`.
    FilterMode,
    /// `addr_mode_0`: the address mode of dimension 0.
    AddrMode0,
    /// `addr_mode_1`: the address mode of dimension 1.
    AddrMode1,
    /// `addr_mode_2`: the address mode of dimension 2.
    AddrMode2,
    /// `array_size`: textures or surfaces in an array.
    ArraySize,
    /// `num_mipmap_levels`: levels of a mipmapped texture.
    NumMipmapLevels,
    /// `num_samples`: samples of a multi-sample texture.
    NumSamples,
    /// `memory_layout`: 1 for a linear surface, 0 otherwise.
    MemoryLayout,
}

/// The kind of value a member takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// An unsigned integer (sizes, counts and the source language's enumeration values).
    Count,
    /// 0 or 1.
    Flag,
    /// A [`FilterMode`].
    Filter,
    /// An [`AddressMode`].
    Address,
}

/// The types that have a member, as a mask of [`TEXREF`], [`SAMPLERREF`], [`SURFREF`].
type Owners = u8;
/// `.texref` has the member.
const TEXREF: Owners = 1;
/// `.samplerref` has the member.
const SAMPLERREF: Owners = 2;
/// `.surfref` has the member.
const SURFREF: Owners = 4;

impl OpaqueMember {
    /// Every member: its spelling, its kind of value and the types that have it, in either
    /// texture mode (Table 10, unified, and Table 11, independent, together: a `.texref`'s
    /// sampler members are ignored in independent mode but not forbidden).
    pub const TABLE: [(OpaqueMember, &'static str, ValueKind, Owners); 15] = [
        (
            OpaqueMember::Width,
            "width",
            ValueKind::Count,
            TEXREF | SURFREF,
        ),
        (
            OpaqueMember::Height,
            "height",
            ValueKind::Count,
            TEXREF | SURFREF,
        ),
        (
            OpaqueMember::Depth,
            "depth",
            ValueKind::Count,
            TEXREF | SURFREF,
        ),
        (
            OpaqueMember::ChannelDataType,
            "channel_data_type",
            ValueKind::Count,
            TEXREF | SURFREF,
        ),
        (
            OpaqueMember::ChannelOrder,
            "channel_order",
            ValueKind::Count,
            TEXREF | SURFREF,
        ),
        (
            OpaqueMember::NormalizedCoords,
            "normalized_coords",
            ValueKind::Flag,
            TEXREF,
        ),
        (
            OpaqueMember::ForceUnnormalizedCoords,
            "force_unnormalized_coords",
            ValueKind::Flag,
            SAMPLERREF,
        ),
        (
            OpaqueMember::FilterMode,
            "filter_mode",
            ValueKind::Filter,
            TEXREF | SAMPLERREF,
        ),
        (
            OpaqueMember::AddrMode0,
            "addr_mode_0",
            ValueKind::Address,
            TEXREF | SAMPLERREF,
        ),
        (
            OpaqueMember::AddrMode1,
            "addr_mode_1",
            ValueKind::Address,
            TEXREF | SAMPLERREF,
        ),
        (
            OpaqueMember::AddrMode2,
            "addr_mode_2",
            ValueKind::Address,
            TEXREF | SAMPLERREF,
        ),
        (
            OpaqueMember::ArraySize,
            "array_size",
            ValueKind::Count,
            TEXREF | SURFREF,
        ),
        (
            OpaqueMember::NumMipmapLevels,
            "num_mipmap_levels",
            ValueKind::Count,
            TEXREF,
        ),
        (
            OpaqueMember::NumSamples,
            "num_samples",
            ValueKind::Count,
            TEXREF,
        ),
        (
            OpaqueMember::MemoryLayout,
            "memory_layout",
            ValueKind::Flag,
            SURFREF,
        ),
    ];

    fn row(self) -> &'static (OpaqueMember, &'static str, ValueKind, Owners) {
        // The table lists the variants in declaration order.
        &Self::TABLE[self as usize]
    }

    /// The member's spelling.
    pub fn as_str(self) -> &'static str {
        self.row().1
    }

    /// The kind of value it takes.
    pub fn kind(self) -> ValueKind {
        self.row().2
    }

    /// The member spelled `s`.
    pub fn parse(s: &[u8]) -> Option<OpaqueMember> {
        Self::TABLE
            .iter()
            .find(|r| r.1.as_bytes() == s)
            .map(|r| r.0)
    }

    /// Whether opaque type `ty` has the member (false for every other type).
    pub fn belongs_to(self, ty: Type) -> bool {
        owner_bit(ty).is_some_and(|b| self.row().3 & b != 0)
    }

    /// The members of `ty`, spelled and separated by `, ` (for diagnostics).
    pub fn members_of(ty: Type) -> String {
        Self::TABLE
            .iter()
            .filter(|r| r.0.belongs_to(ty))
            .map(|r| r.1)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn owner_bit(ty: Type) -> Option<Owners> {
    match ty {
        Type::Texref => Some(TEXREF),
        Type::Samplerref => Some(SAMPLERREF),
        Type::Surfref => Some(SURFREF),
        _ => None,
    }
}

/// Whether `ty` is one of the opaque types, whose initialisers are member lists
/// ([`crate::Init::Opaque`]).
pub fn is_opaque(ty: Type) -> bool {
    owner_bit(ty).is_some()
}

/// `filter_mode`'s values, in the order of the ISA's enumeration (`txq.filter_mode` answers the
/// position).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum FilterMode {
    /// `nearest`
    Nearest,
    /// `linear`
    Linear,
}

impl FilterMode {
    /// Every value with its spelling, in enumeration order.
    pub const ALL: [(FilterMode, &'static str); 2] = [
        (FilterMode::Nearest, "nearest"),
        (FilterMode::Linear, "linear"),
    ];

    /// The spelling.
    pub fn as_str(self) -> &'static str {
        Self::ALL[self as usize].1
    }

    /// The value spelled `s`.
    pub fn parse(s: &[u8]) -> Option<FilterMode> {
        Self::ALL.iter().find(|r| r.1.as_bytes() == s).map(|r| r.0)
    }
}

/// `addr_mode_{0,1,2}`'s values, in the order of the ISA's enumeration (`txq.addr_mode_N`
/// answers the position).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum AddressMode {
    /// `wrap`
    Wrap,
    /// `mirror`
    Mirror,
    /// `clamp_ogl`: OpenGL's `GL_CLAMP`.
    ClampOgl,
    /// `clamp_to_edge`
    ClampToEdge,
    /// `clamp_to_border`
    ClampToBorder,
}

impl AddressMode {
    /// Every value with its spelling, in enumeration order.
    pub const ALL: [(AddressMode, &'static str); 5] = [
        (AddressMode::Wrap, "wrap"),
        (AddressMode::Mirror, "mirror"),
        (AddressMode::ClampOgl, "clamp_ogl"),
        (AddressMode::ClampToEdge, "clamp_to_edge"),
        (AddressMode::ClampToBorder, "clamp_to_border"),
    ];

    /// The spelling.
    pub fn as_str(self) -> &'static str {
        Self::ALL[self as usize].1
    }

    /// The value spelled `s`.
    pub fn parse(s: &[u8]) -> Option<AddressMode> {
        Self::ALL.iter().find(|r| r.1.as_bytes() == s).map(|r| r.0)
    }
}

/// The value assigned to a member.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum OpaqueValue {
    /// An integer ([`ValueKind::Count`], or 0/1 for [`ValueKind::Flag`]).
    Int(u64),
    /// A filter mode ([`ValueKind::Filter`]).
    Filter(FilterMode),
    /// An address mode ([`ValueKind::Address`]).
    Address(AddressMode),
}

/// `member = value` in an opaque initialiser.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct OpaqueField {
    /// The member.
    pub member: OpaqueMember,
    /// Its value.
    pub value: OpaqueValue,
}

impl OpaqueField {
    /// Why `value` cannot be assigned to `member` (a value of another kind, a flag other than
    /// 0 or 1), or `None`.
    pub fn value_error(member: OpaqueMember, value: OpaqueValue) -> Option<String> {
        let name = member.as_str();
        match (member.kind(), value) {
            (ValueKind::Count, OpaqueValue::Int(_)) => None,
            (ValueKind::Flag, OpaqueValue::Int(0 | 1)) => None,
            (ValueKind::Filter, OpaqueValue::Filter(_)) => None,
            (ValueKind::Address, OpaqueValue::Address(_)) => None,
            (ValueKind::Count, _) => Some(format!("`{name}` takes an unsigned integer")),
            (ValueKind::Flag, _) => Some(format!("`{name}` is 0 or 1")),
            (ValueKind::Filter, _) => Some(format!("`{name}` is `nearest` or `linear`")),
            (ValueKind::Address, _) => Some(format!(
                "`{name}` is one of `wrap`, `mirror`, `clamp_ogl`, `clamp_to_edge`, \
                 `clamp_to_border`"
            )),
        }
    }

    /// Whether `fields` is an initialiser the reader gives for a variable of type `ty`: at
    /// least one member, each a member of `ty`, none twice, each with a value of its kind;
    /// otherwise why not.
    pub fn check_list(ty: Type, fields: &[OpaqueField]) -> Result<(), String> {
        if !is_opaque(ty) {
            return Err(format!(
                "a member-list initialiser for a `.{}` declaration (only `.texref`, \
                 `.samplerref` and `.surfref` take one)",
                ty.as_str()
            ));
        }
        if fields.is_empty() {
            return Err("an opaque initialiser without members".into());
        }
        let mut seen = 0u32;
        for f in fields {
            if !f.member.belongs_to(ty) {
                return Err(format!(
                    "`.{}` has no member `{}`",
                    ty.as_str(),
                    f.member.as_str()
                ));
            }
            let bit = 1u32 << (f.member as u32);
            if seen & bit != 0 {
                return Err(format!("`{}` is assigned twice", f.member.as_str()));
            }
            seen |= bit;
            if let Some(e) = OpaqueField::value_error(f.member, f.value) {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Appends `member = value` to `out`.
    pub fn write_text(&self, out: &mut String) {
        out.push_str(self.member.as_str());
        out.push_str(" = ");
        match self.value {
            OpaqueValue::Int(v) => out.push_str(&v.to_string()),
            OpaqueValue::Filter(f) => out.push_str(f.as_str()),
            OpaqueValue::Address(a) => out.push_str(a.as_str()),
        }
    }
}

/// The value assigned to `member` in `fields`, if any.
pub fn field(fields: &[OpaqueField], member: OpaqueMember) -> Option<OpaqueValue> {
    fields.iter().find(|f| f.member == member).map(|f| f.value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_rows_follow_the_variants() {
        for (k, r) in OpaqueMember::TABLE.iter().enumerate() {
            assert_eq!(r.0 as usize, k, "{}", r.1);
            assert_eq!(OpaqueMember::parse(r.1.as_bytes()), Some(r.0));
        }
        for (k, r) in AddressMode::ALL.iter().enumerate() {
            assert_eq!(r.0 as usize, k);
        }
        for (k, r) in FilterMode::ALL.iter().enumerate() {
            assert_eq!(r.0 as usize, k);
        }
        assert!(OpaqueMember::ForceUnnormalizedCoords.belongs_to(Type::Samplerref));
        assert!(!OpaqueMember::ForceUnnormalizedCoords.belongs_to(Type::Texref));
        assert!(!OpaqueMember::Width.belongs_to(Type::Samplerref));
        assert!(OpaqueMember::MemoryLayout.belongs_to(Type::Surfref));
        assert!(!OpaqueMember::FilterMode.belongs_to(Type::Surfref));
        assert!(!OpaqueMember::Width.belongs_to(Type::B32));
    }
}
