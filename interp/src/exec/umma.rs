//! `tcgen05.mma` (PTX ISA 9.7.16.10): the fifth-generation tensor-core MMA, in every form:
//! `.kind::f16`, `.kind::tf32`, `.kind::f8f6f4`, `.kind::i8`, the block-scaled
//! `.kind::mxf8f6f4`, `.kind::mxf4` and `.kind::mxf4nvf4`, sparse `.sp`, weight-stationary
//! `.ws`, `.cta_group::1` and `::2`, A from shared memory or Tensor Memory. ISA-derived, not
//! hardware-checked (no Blackwell GPU here); where the ISA gives a layout only as a figure the
//! rule is CUTLASS's (`cute/arch/mma_sm100_desc.hpp`, `cute/atom/mma_traits_sm100*.hpp`).
//!
//! One thread issues the whole operation; it completes when issued (every correctly
//! synchronised program sees the same result, `tcgen05.commit` arrives at once). For the race
//! check its shared-memory reads are the issuing warp's asynchronous proxy's, at the issue
//! ([`inflight::race_reads`]), released by the warp's `tcgen05.commit`.
//!
//! - **Instruction descriptor** (9.7.16.4.2): sparsity selector (bits 0-1), sparse (2),
//!   saturate (3, `.kind::i8`), D type (4-5) or the B scale-factor id (4-5, block-scaled), A and
//!   B types (7-9, 10-12), negate A, B (13, 14), transpose A, B (15, 16), `N >> 3` (17-22),
//!   scale type (23, block-scaled), `M >> 4` (24-28), the A scale-factor id (29-30), the `.ws`
//!   maximum shift (30-31) and `.kind::mxf4*`'s K = 96 (31, sm_103a).
//! - **Shared-memory descriptors** (9.7.16.4.1): `wgmma`'s canonical layouts and addressing
//!   ([`super::wgmma::desc_addr`]) with the three-bit swizzle code of bits 61-63 (0 none, 2
//!   128-byte, 4 64-byte, 6 32-byte, 1 128-byte with 32-byte atoms, MN-major only) and the
//!   fixed `0b001` of bits 46-48. FP6/FP4 elements of `.kind::f8f6f4`/`mxf8f6f4` sit 16 to a
//!   16-byte chunk, packed from its first bit (the `.b6x16_p32`/`.b4x16_p64` formats);
//!   `.kind::mxf4*` packs two to a byte.
//! - **D in Tensor Memory** (9.7.16.10.5), `ml` the row within the CTA, `(L, C)` the address:
//!   layouts A and D (M = 256 pair, M = 128): `(L + ml, C + n)`; F (M = 64) and C (M = 128
//!   sparse pair): `(L + ml % 16 + 32 (ml / 16), C + n)`; B (M = 128 dense pair) and E
//!   (`.ws` M = 64): `(L + ml + 64 h, C + n % (N/2))` with `h = n / (N/2)`; G (`.ws` M = 32):
//!   `(L + ml + 32 q, C + n % (N/4))`. An f16 D fills a cell's low half.
//! - **A in Tensor Memory**: row `ml` in D's lane, packed from column `C`: `f16`/`bf16` two
//!   to a cell, 8-bit types and FP6/FP4 of `.kind::f8f6f4`/`mxf8f6f4` four (in 8-bit
//!   containers, [`crate::mx::code`]), `.kind::mxf4*` eight. In the dense M = 128 pair the rows
//!   are duplicated in lanes `ml` and `ml + 64`, each read for its half of N.
//! - **CTA pair** (`.cta_group::2`): the descriptors and Tensor Memory addresses apply in both
//!   CTAs of the pair; the even CTA computes rows `0..M/2` and the odd one `M/2..M`, each over
//!   all N, B's columns `0..N/2` coming from the even CTA's shared memory and the rest from the
//!   odd one's.
//! - **Sparse A**: the stored half of each row, placed by metadata in Tensor Memory at
//!   `[sp-meta]`: for `.kind::i8`/`f8f6f4`/`mxf8f6f4` row `ml` is lane `L + ml` with one bit per
//!   dense k (a chunk's nibble at bit `4 g`), for `.kind::mxf4*` a bit per two k; for
//!   `.kind::f16` lane `L + ml % 8 + 16 (ml / 16) + 8 (k / 16)`, bit `k % 16 + 16 ((ml / 8) % 2)`;
//!   for `.kind::tf32` the same with two bits an element; the f16/tf32 sparsity selector picks
//!   the metadata column (`C & !1` + selector). Nibbles follow `mma.sp` ([`chunk_units`]).
//! - **Block scaling** (9.7.16.10.7): `S` factors a row (1X, 2X/`.block32`, 4X/`.block16`),
//!   each over `K / S` consecutive k; A's factor `j` for row `ml` is byte `SFA_ID + j` of the
//!   cell at lane `32 q + ml % 32`, column `C + ml / 32` of `[scale-A]` (replicated in every
//!   lane quarter; the quarter of D's row is read), B's for column `n` the same with `n` (the
//!   dense M = 128 pair: lanes `64 (n / (N/2)) + n % 32`, column `C + (n % (N/2)) / 32`).
//! - **K = 96** (sm_103a; bit 31 of `.kind::mxf4`/`mxf4nvf4`, CUTLASS's `k_size_`: dense only):
//!   rows of 48 bytes. With bit 52 of a descriptor clear the row is read as any other (the
//!   canonical layouts, three core matrices LBO apart without swizzle); with it set (the absolute
//!   leading-dimension mode, 9.7.16.3.1.2: 128-byte swizzle, base offset 0) the bytes past the
//!   start address's 128-byte swizzle row come from the LBO field's absolute address, same row
//!   ([`split48_addr`], CUTLASS's SM103 mainloop). Three factors of 32 or six of 16 a row, at
//!   ids 0-3 or 0 and 2; byte `id + j` runs on into the next word 4 columns on (A; B: 4 up to
//!   N = 128, 8 beyond) ([`sf_place`], CUTLASS's `tmem_sf_frg`). A in Tensor Memory is packed
//!   as at K = 64, 12 columns a row (9.7.16.10.4.5's packing does not depend on K). In a CTA
//!   pair K = 96 takes M = 256 only (Table 39: `256xNxK1`, K1 = 96), the M = 128 pair being
//!   undefined; `cta_group::1` M = 128, missing from 9.0's Table 39, is CUTLASS's
//!   `SM103_MXF4_ULTRA_SS_VS` and runs.
//! - **`.ws`**: the optional zero-column mask descriptor (9.7.16.4.3) zeroes B columns and its
//!   shift moves them: `B'[k][n] = mask[n] ? 0 : B[k][n + shift]` (CUTLASS's span meanings,
//!   which match the ISA's examples); the shift may not exceed the descriptor's maximum.
//! - **`.ashift`** (least certain): the MMA reads A's rows shifted down by one, the first row
//!   kept, as `tcgen05.shift.down` moves them.
//! - **Numerics**: the ISA states none for `tcgen05.mma`; products are exact (negation and
//!   scale factors included), `D * 2^-scale-input-d` is exact, and the sum is
//!   [`crate::mx::model`]'s (the f16 tensor-core model measured on the H100). `.kind::i8` sums
//!   exactly, wrapping or (saturate bit) clamping. `.tf32` inputs lose their low 13 bits.
//! - `disable-output-lane` bit `b` of word `w` keeps Tensor Memory lane `32 w + b` of D (words
//!   4-7: the odd CTA of a pair); collector qualifiers only permit reuse, so operands are
//!   always read from memory.

use super::async_copy::issuer;
use super::ctx::{lanes, Ctx};
use super::flow::Flow;
use super::inflight;
use super::mma::chunk_units;
use super::state::tmem::{COLUMNS, LANES};
use crate::code::Opnd;
use crate::error::Error;
use crate::float::Fmt;
use crate::mx;
use crate::tc::{self, Input};
use ptx_ir_core::{Flag, Kind, Type};

const RULE: &str = "PTX ISA 9.7.16.10";

/// The operation kind.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum UKind {
    F16,
    Tf32,
    F8f6f4,
    I8,
    Mxf8f6f4,
    Mxf4,
    Mxf4nvf4,
}

impl UKind {
    fn of(x: &Ctx<'_, '_>) -> Option<UKind> {
        let k = x.d.kinds;
        Some(if k.has(Kind::F16) {
            UKind::F16
        } else if k.has(Kind::Tf32) {
            UKind::Tf32
        } else if k.has(Kind::F8f6f4) {
            UKind::F8f6f4
        } else if k.has(Kind::I8) {
            UKind::I8
        } else if k.has(Kind::Mxf8f6f4) {
            UKind::Mxf8f6f4
        } else if k.has(Kind::Mxf4) {
            UKind::Mxf4
        } else if k.has(Kind::Mxf4nvf4) {
            UKind::Mxf4nvf4
        } else {
            return None;
        })
    }

    fn scaled(self) -> bool {
        matches!(self, UKind::Mxf8f6f4 | UKind::Mxf4 | UKind::Mxf4nvf4)
    }

    fn packed4(self) -> bool {
        matches!(self, UKind::Mxf4 | UKind::Mxf4nvf4)
    }

    /// Dense K.
    fn k(self) -> usize {
        match self {
            UKind::F16 => 16,
            UKind::Tf32 => 8,
            UKind::F8f6f4 | UKind::I8 | UKind::Mxf8f6f4 => 32,
            UKind::Mxf4 | UKind::Mxf4nvf4 => 64,
        }
    }

    /// The element type of A or B type code `c`.
    fn elem(self, c: u64) -> Option<Type> {
        Some(match (self, c) {
            (UKind::F16, 0) => Type::F16,
            (UKind::F16, 1) => Type::Bf16,
            (UKind::Tf32, 2) => Type::Tf32,
            (UKind::I8, 0) => Type::U8,
            (UKind::I8, 1) => Type::S8,
            (UKind::F8f6f4 | UKind::Mxf8f6f4, 0) => Type::E4m3,
            (UKind::F8f6f4 | UKind::Mxf8f6f4, 1) => Type::E5m2,
            (UKind::F8f6f4 | UKind::Mxf8f6f4, 3) => Type::E2m3,
            (UKind::F8f6f4 | UKind::Mxf8f6f4, 4) => Type::E3m2,
            (UKind::F8f6f4 | UKind::Mxf8f6f4, 5) => Type::E2m1,
            (UKind::Mxf4 | UKind::Mxf4nvf4, 1) => Type::E2m1,
            _ => return None,
        })
    }
}

/// The decoded instruction descriptor.
#[derive(Copy, Clone, Debug)]
struct Idesc {
    sel: u64,
    sparse: bool,
    sat: bool,
    /// D's type: `F16`, `F32` or `S32`.
    d: Type,
    a: Type,
    b: Type,
    neg_a: bool,
    neg_b: bool,
    trans_a: bool,
    trans_b: bool,
    m: usize,
    n: usize,
    max_shift: u32,
    sfa_id: u64,
    sfb_id: u64,
    ue4m3: bool,
    /// Bit 31 of `.kind::mxf4*`: K = 96 (48-byte rows) instead of 64.
    k96: bool,
}

fn bits(v: u64, lo: u32, n: u32) -> u64 {
    (v >> lo) & ((1 << n) - 1)
}

fn idesc(kind: UKind, v: u64, ws: bool) -> Result<Idesc, String> {
    let scaled = kind.scaled();
    let (a, b) = if kind.packed4() {
        (bits(v, 7, 3), bits(v, 10, 2))
    } else {
        (bits(v, 7, 3), bits(v, 10, 3))
    };
    let ty = |c| {
        kind.elem(c)
            .ok_or_else(|| format!("type code {c} is not one of .kind::{kind:?}'s (Table 42-44)"))
    };
    let d = if scaled {
        Type::F32
    } else {
        match (kind, bits(v, 4, 2)) {
            (UKind::F16 | UKind::F8f6f4, 0) => Type::F16,
            (UKind::F16 | UKind::Tf32 | UKind::F8f6f4, 1) => Type::F32,
            (UKind::I8, 2) => Type::S32,
            (_, c) => return Err(format!("D type code {c} is not one of .kind::{kind:?}'s")),
        }
    };
    let m = if scaled {
        128 * bits(v, 27, 2) as usize
    } else {
        16 * bits(v, 24, 5) as usize
    };
    let id = Idesc {
        sel: bits(v, 0, 2),
        sparse: bits(v, 2, 1) == 1,
        sat: bits(v, 3, 1) == 1,
        d,
        a: ty(a)?,
        b: ty(b)?,
        neg_a: bits(v, 13, 1) == 1,
        neg_b: bits(v, 14, 1) == 1,
        trans_a: bits(v, 15, 1) == 1,
        trans_b: bits(v, 16, 1) == 1,
        n: 8 * bits(v, 17, 6) as usize,
        m,
        max_shift: if ws && !scaled {
            [0, 8, 16, 32][bits(v, 30, 2) as usize]
        } else {
            0
        },
        sfa_id: if scaled { bits(v, 29, 2) } else { 0 },
        sfb_id: if scaled { bits(v, 4, 2) } else { 0 },
        ue4m3: scaled && bits(v, 23, 1) == 0,
        k96: scaled && bits(v, 31, 1) == 1,
    };
    if id.sat && kind != UKind::I8 {
        return Err("the saturate bit is for .kind::i8 only".into());
    }
    if kind == UKind::I8 && (id.neg_a || id.neg_b) {
        return Err(".kind::i8 cannot negate A or B (Table 49)".into());
    }
    if kind == UKind::F16 && d == Type::F16 && (id.a != Type::F16 || id.b != Type::F16) {
        return Err("an .f16 D takes .f16 A and B (Table 39)".into());
    }
    if scaled {
        if id.k96 && !kind.packed4() {
            return Err("K = 96 (bit 31) is for .kind::mxf4 and .kind::mxf4nvf4 only".into());
        }
        // K = 96's 3-factor layouts take any byte (9.7.16.10.7.2.4); its 6-factor ones are
        // checked with the factor count.
        if kind.packed4() && !id.k96 && (id.sfa_id % 2 != 0 || id.sfb_id % 2 != 0) {
            return Err("scale factor ids of .kind::mxf4* are 0 or 2".into());
        }
        if id.ue4m3 && kind != UKind::Mxf4nvf4 {
            return Err("a .ue4m3 scale type is for .kind::mxf4nvf4 only (bit 23)".into());
        }
    }
    let narrow = |t: Type| matches!(t, Type::E2m1 | Type::E2m3 | Type::E3m2);
    if (id.trans_a || id.trans_b) && (kind.packed4() || narrow(id.a) || narrow(id.b)) {
        return Err("4- and 6-bit matrices cannot be transposed (Table 52)".into());
    }
    Ok(id)
}

/// How A or B elements sit in shared memory.
#[derive(Copy, Clone, Debug)]
enum Smem {
    /// Whole bytes per element.
    Bytes(usize),
    /// 16 elements of this many bits packed at the start of each 16-byte chunk.
    Padded(u32),
    /// Two 4-bit elements a byte.
    Nibbles,
    /// Two 4-bit elements a byte in a 48-byte K row split at its 128-byte boundary
    /// ([`split48_addr`]).
    Split48,
}

fn smem_of(kind: UKind, t: Type) -> Smem {
    match t {
        Type::F16 | Type::Bf16 => Smem::Bytes(2),
        Type::Tf32 => Smem::Bytes(4),
        Type::E2m1 if kind.packed4() => Smem::Nibbles,
        Type::E2m1 => Smem::Padded(4),
        Type::E2m3 | Type::E3m2 => Smem::Padded(6),
        _ => Smem::Bytes(1),
    }
}

/// Byte offset in shared memory of element (`mn`, `k`) of `size`-byte elements through a
/// `tcgen05` shared-memory descriptor (9.7.16.4.1): `wgmma`'s canonical layouts and addressing
/// ([`super::wgmma::desc_addr`], whose two-bit swizzle codes are bits 62-63 of codes 0, 2, 4
/// and 6) and the 128-byte swizzle with 32-byte atoms (code 1), whose 32-byte chunks move with
/// the same base-offset phase. `tcgen05.cp` reads its source through it too; [`check_desc`]
/// holds what `tcgen05.mma` requires of a descriptor beyond this.
pub(super) fn desc_addr(
    desc: u64,
    mn_major: bool,
    mn: usize,
    k: usize,
    size: usize,
) -> Result<u64, String> {
    match bits(desc, 61, 3) {
        0 | 2 | 4 | 6 => Ok(super::wgmma::desc_addr(desc, mn_major, mn, k, size)),
        1 => {
            let (start, lbo, sbo, base) = (
                bits(desc, 0, 14) << 4,
                bits(desc, 16, 14) << 4,
                bits(desc, 32, 14) << 4,
                bits(desc, 49, 3),
            );
            let (mn, k, sz) = (mn as u64, k as u64, size as u64);
            let t = 16 / sz;
            // 128-byte rows; MN-major: 4 K rows of 128 bytes a group.
            let a = if mn_major {
                start
                    + (mn / (8 * t)) * lbo
                    + (k / 4) * sbo
                    + (k % 4) * 128
                    + ((mn / t) % 8) * 16
                    + (mn % t) * sz
            } else {
                start + (mn % 8) * 128 + (mn / 8) * sbo + k * sz
            };
            Ok(a ^ ((((a >> 7).wrapping_sub(base)) & 3) << 5))
        }
        c => Err(format!(
            "swizzle code {c} is invalid (PTX ISA 9.7.16.4.1: 0, 1, 2, 4 and 6 are)"
        )),
    }
}

/// Byte `kb` (0..48) of K-major row `mn` through a descriptor in the absolute leading-dimension
/// mode (bit 52; PTX ISA 9.7.16.3.1.2): K = 96's 48-byte row would cross its 128-byte swizzle
/// row if packed on, so the part before that boundary runs from the start address and the rest
/// from the absolute address in the LBO field, both through the 128-byte swizzle. Which bytes
/// go where is CUTLASS's (`mma_traits_sm100.hpp`'s SM103 `mma_unpack` puts the next K buffer's
/// start address in LBO with `lbo_mode_` set, and `sm103_blockscaled_mma_warpspecialized.hpp`
/// starts MMAs at 16-byte chunks 6 and 7 of a row, reading on at that buffer's chunk 0).
fn split48_addr(desc: u64, mn: usize, kb: usize) -> u64 {
    let (start, next, sbo) = (
        bits(desc, 0, 14) << 4,
        bits(desc, 16, 14) << 4,
        bits(desc, 32, 14) << 4,
    );
    let (mn, kb) = (mn as u64, kb as u64);
    let at = start % 128 + kb;
    let (from, off) = if at < 128 {
        (start, kb)
    } else {
        (next, at - 128)
    };
    let a = from + (mn % 8) * 128 + (mn / 8) * sbo + off;
    // The base offset is 0 ([`check_split48`]).
    a ^ (((a >> 7) & 7) << 4)
}

/// Whether a K = 96 operand's descriptor uses the absolute leading-dimension mode (bit 52), and
/// that mode's restrictions (PTX ISA 9.7.16.3.1.2.1): the 128-byte swizzle with 16-byte atoms and
/// a base offset of 0 (K-major, the third, holds for every 4-bit matrix).
fn check_split48(desc: u64) -> Result<bool, String> {
    if bits(desc, 52, 1) == 0 {
        return Ok(false);
    }
    if bits(desc, 61, 3) != 2 {
        return Err(format!(
            "shared-memory descriptor {desc:#x}: the absolute leading-dimension mode (bit 52) \
             takes only the 128-byte swizzle, code 2 (PTX ISA 9.7.16.3.1.2.1)"
        ));
    }
    if bits(desc, 49, 3) != 0 {
        return Err(format!(
            "shared-memory descriptor {desc:#x}: the absolute leading-dimension mode (bit 52) \
             takes a base offset of 0 (PTX ISA 9.7.16.3.1.2.1)"
        ));
    }
    Ok(true)
}

/// What `tcgen05.mma` requires of an operand's descriptor, checked once per instruction: the
/// fixed `0b001` of bits 46-48, and the 32-byte-atom swizzle only for MN-major matrices.
fn check_desc(desc: u64, mn_major: bool) -> Result<(), String> {
    if bits(desc, 46, 3) != 1 {
        return Err(format!(
            "shared-memory descriptor {desc:#x}: bits 46-48 must be 0b001 (PTX ISA 9.7.16.4.1)"
        ));
    }
    if bits(desc, 61, 3) == 1 && !mn_major {
        return Err("the 128-byte swizzle with 32-byte atoms is for MN-major matrices only".into());
    }
    Ok(())
}

/// Element (`mn`, `k`) of a matrix in shared memory `sh` through descriptor `desc`; the
/// 16-byte chunks it reads are added to `seen`, when given (for the race check).
fn smem_elem(
    sh: &[u8],
    desc: u64,
    mn_major: bool,
    mn: usize,
    k: usize,
    s: Smem,
    mut seen: Option<&mut Vec<u64>>,
) -> Result<u64, String> {
    let mut read = |a: u64, n: usize| -> Result<u64, String> {
        if let Some(seen) = seen.as_deref_mut() {
            seen.push(a / 16);
            if (a + n as u64 - 1) / 16 != a / 16 {
                seen.push(a / 16 + 1);
            }
        }
        let a = a as usize;
        let b = sh.get(a..a + n).ok_or_else(|| {
            format!(
                "tcgen05.mma reads shared offset {a:#x}, past the CTA's {} bytes",
                sh.len()
            )
        })?;
        Ok(b.iter().rev().fold(0u64, |v, &x| v << 8 | x as u64))
    };
    match s {
        Smem::Bytes(n) => read(desc_addr(desc, mn_major, mn, k, n)?, n),
        Smem::Padded(w) => {
            let chunk = desc_addr(desc, false, mn, 16 * (k / 16), 1)?;
            let bit = (k % 16) as u32 * w;
            let v = read(chunk + (bit / 8) as u64, 2)?;
            Ok((v >> (bit % 8)) & ((1 << w) - 1))
        }
        Smem::Nibbles => {
            let v = read(desc_addr(desc, false, mn, k / 2, 1)?, 1)?;
            Ok((v >> (4 * (k % 2))) & 0xf)
        }
        Smem::Split48 => {
            let v = read(split48_addr(desc, mn, k / 2), 1)?;
            Ok((v >> (4 * (k % 2))) & 0xf)
        }
    }
}

/// Where factor `j` of a row's (or column's) scale factors sits relative to its cell at
/// scale-factor id `id`: (column offset, byte). With up to four factors that is byte `id + j`
/// of the cell (9.7.16.10.7). K = 96's three or six (PTX ISA 9.7.16.10.7.2.4-5 and
/// 9.7.16.10.7.3.4-5, given only as figures) run on past the word into the next word of the same
/// lane `group` columns on: CUTLASS's `tmem_sf_frg` (`mma_traits_sm100_frag.hpp`) tiles
/// consecutive scale-factor blocks four to a word, the next four after the columns of the M or N
/// extent, and `sm103_blockscaled_mma_warpspecialized.hpp` starts each K = 96 MMA 3 or 6 blocks
/// on (its byte in the address's top bits, which `make_runtime_instr_desc_block_scaled` makes
/// the id).
fn sf_place(id: u64, j: usize, group: usize) -> (usize, u64) {
    let i = id as usize + j;
    ((i / 4) * group, (i % 4) as u64)
}

/// Where D's rows and columns sit in Tensor Memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Layout {
    /// Layouts A and D: row `ml` in lane `ml`.
    Full,
    /// Layouts F and C: 16 rows of each 32-lane quarter.
    Half,
    /// Layouts B and E: the two halves of N in lanes `ml` and `ml + 64`.
    Split2,
    /// Layout G: the four quarters of N in lanes `ml + 32 q`.
    Split4,
}

impl Layout {
    /// D's layout for the form (9.7.16.10.5).
    fn of(ws: bool, pair: bool, sparse: bool, m: usize) -> Layout {
        match (ws, pair, m) {
            (true, _, 32) => Layout::Split4,
            (true, _, 64) => Layout::Split2,
            (false, false, 64) => Layout::Half,
            (false, true, 128) if sparse => Layout::Half,
            (false, true, 128) => Layout::Split2,
            _ => Layout::Full,
        }
    }

    /// (lane, column) of D[ml][n] relative to the address.
    fn cell(self, ml: usize, n: usize, nn: usize) -> (usize, usize) {
        match self {
            Layout::Full => (ml, n),
            Layout::Half => (ml % 16 + 32 * (ml / 16), n),
            Layout::Split2 => (ml + 64 * (n / (nn / 2)), n % (nn / 2)),
            Layout::Split4 => (ml + 32 * (n / (nn / 4)), n % (nn / 4)),
        }
    }
}

/// The shapes of Tables 39 and 50 (M, N as the instruction descriptor gives them: a pair's
/// totals).
fn shape_ok(kind: UKind, ws: bool, pair: bool, sparse: bool, m: usize, n: usize) -> bool {
    let n_ok = |step: usize| n >= step && n <= 256 && n % step == 0;
    match (ws, pair) {
        (true, true) => false,
        (true, false) => {
            let ns: &[usize] = if sparse { &[64, 128] } else { &[64, 128, 256] };
            matches!(m, 32 | 64 | 128) && ns.contains(&n) && !kind.scaled()
        }
        (false, false) => {
            (m == 128 || (m == 64 && !kind.scaled()))
                && n_ok(8)
                && (kind != UKind::I8 || n <= 32 || n % 16 == 0)
        }
        (false, true) => {
            (m == 256 || (m == 128 && !(sparse && kind.scaled())))
                && n_ok(if kind == UKind::I8 { 32 } else { 16 })
        }
    }
}

/// The (lane, bit, column) of the metadata nibble of row `ml`, chunk starting at dense `k`,
/// relative to `[sp-meta]` at (`el`, `ec`); `sel` the f16/tf32 sparsity selector.
fn meta_cell(
    kind: UKind,
    ml: usize,
    k: usize,
    (el, ec): (usize, usize),
    sel: usize,
) -> (usize, usize, usize) {
    match kind {
        UKind::F16 => (
            el + ml % 8 + 16 * (ml / 16) + 8 * (k / 16),
            k % 16 + 16 * ((ml / 8) % 2),
            (ec & !1) + sel,
        ),
        UKind::Tf32 => (
            el + ml % 8 + 16 * (ml / 16) + 8 * (k / 8),
            2 * (k % 8 + 8 * ((ml / 8) % 2)),
            (ec & !1) + sel,
        ),
        UKind::Mxf4 | UKind::Mxf4nvf4 => (el + ml, (k / 2) % 32, ec + k / 64),
        _ => (el + ml, k % 32, ec + k / 32),
    }
}

/// An A or B element as a dot-product input (`container`: an FP6/FP4 code in an 8-bit
/// container, as A in Tensor Memory holds them).
fn decode(t: Type, raw: u64, container: bool) -> Option<Input> {
    Some(match t {
        Type::F16 => tc::input(raw, Fmt::F16),
        Type::Bf16 => tc::input(raw, Fmt::Bf16),
        Type::Tf32 => tc::input(raw & !0x1fff, Fmt::F32),
        _ => mx::element(t, mx::code(t, raw, container))?,
    })
}

/// The operands of one instruction, by position.
struct Ops<'o> {
    d: &'o Opnd,
    a: &'o Opnd,
    b: &'o Opnd,
    meta: Option<&'o Opnd>,
    idesc: &'o Opnd,
    scales: Option<(&'o Opnd, &'o Opnd)>,
    disable: Option<&'o Opnd>,
    enable: &'o Opnd,
    /// `scale-input-d` (non-`.ws`) or the zero-column mask descriptor (`.ws`).
    last: Option<&'o Opnd>,
}

fn operands<'o>(o: &'o [Opnd], sparse: bool, scaled: bool, ws: bool) -> Option<Ops<'o>> {
    let mut i = 3;
    let meta = if sparse {
        i += 1;
        Some(o.get(3)?)
    } else {
        None
    };
    let idesc = o.get(i)?;
    i += 1;
    let scales = if scaled {
        i += 2;
        Some((o.get(i - 2)?, o.get(i - 1)?))
    } else {
        None
    };
    let disable = match o.get(i) {
        Some(v @ Opnd::Vec(_)) if !ws && !scaled => {
            i += 1;
            Some(v)
        }
        _ => None,
    };
    let enable = o.get(i)?;
    Some(Ops {
        d: o.first()?,
        a: o.get(1)?,
        b: o.get(2)?,
        meta,
        idesc,
        scales,
        disable,
        enable,
        last: o.get(i + 1),
    })
}

/// The `.ws` zero-column mask of `n` columns (9.7.16.4.3; CUTLASS's span meanings): 1 zeroes
/// a column of B. `subs` sub-masks of `n / subs` columns each.
fn zero_mask(desc: u64, n: usize, subs: usize) -> Vec<bool> {
    if bits(desc, 39, 1) == 0 {
        return vec![false; n];
    }
    let (skip, used) = (
        bits(desc, 40, 8) as usize + 1,
        bits(desc, 48, 8) as usize + 1,
    );
    let width = n / subs;
    let mut out = Vec::with_capacity(n);
    for i in 0..subs {
        let mut state = bits(desc, 32 + i as u32, 1) == 1;
        let len = |s: bool| if s { skip } else { used };
        let start = bits(desc, 8 * i as u32, 8) as usize;
        let mut remaining = len(state).saturating_sub(start).max(1);
        for _ in 0..width {
            out.push(state);
            remaining -= 1;
            if remaining == 0 {
                state = !state;
                remaining = len(state);
            }
        }
    }
    out
}

/// `tcgen05.mma{.sp}{.ws}`
pub fn mma(x: &mut Ctx<'_, '_>) -> Result<Flow, Error> {
    let kind = UKind::of(x).ok_or_else(|| x.unsupported("tcgen05.mma without a .kind"))?;
    let (sparse, ws) = (x.has(Flag::Sp), x.has(Flag::Ws));
    let pair = x.has(Flag::CtaGroup2);
    let ops = operands(&x.d.opnds, sparse, kind.scaled(), ws)
        .ok_or_else(|| x.unsupported("tcgen05.mma operands of another form"))?;
    for l in lanes(x.emask) {
        issue(x, &ops, kind, sparse, ws, pair, l)?;
    }
    Ok(Flow::Next)
}

/// One thread's MMA.
fn issue(
    x: &mut Ctx<'_, '_>,
    o: &Ops<'_>,
    kind: UKind,
    sparse: bool,
    ws: bool,
    pair: bool,
    l: usize,
) -> Result<(), Error> {
    let bad = |x: &Ctx<'_, '_>, m: String| x.undefined(l, format!("tcgen05.mma: {m} ({RULE})"));
    let id = idesc(kind, x.get(o.idesc, l)?, ws).map_err(|m| bad(x, m))?;
    if id.sparse != sparse {
        return Err(bad(
            x,
            "the descriptor's sparse bit does not match .sp".into(),
        ));
    }
    let (m, n) = (id.m, id.n);
    if id.k96 && sparse {
        return Err(bad(
            x,
            "K = 96 (bit 31) has no sparse form (CUTLASS's k_size_)".into(),
        ));
    }
    let k = if id.k96 {
        96
    } else {
        kind.k() * if sparse { 2 } else { 1 }
    };
    if !shape_ok(kind, ws, pair, sparse, m, n) {
        return Err(bad(
            x,
            format!("M = {m}, N = {n} is not a shape of this form (Tables 39, 50)"),
        ));
    }
    let layout = Layout::of(ws, pair, sparse, m);
    let mc = if pair { m / 2 } else { m };
    let me = x.w.cta as usize;
    let ctas: Vec<usize> = if pair {
        vec![me & !1, me | 1]
    } else {
        vec![me]
    };
    if ctas.iter().any(|&c| c >= x.cl.shared.len()) {
        return Err(bad(
            x,
            "a .cta_group::2 MMA needs both CTAs of the pair".into(),
        ));
    }
    let taddr = |x: &Ctx<'_, '_>, op: &Opnd| -> Result<(usize, usize), Error> {
        let a = x.addr(op, l)?;
        Ok((((a >> 16) & 0x7f) as usize, (a & 0xffff) as usize))
    };
    let (dl, dc) = taddr(x, o.d)?;
    let a_tmem = matches!(o.a, Opnd::Mem(..));
    if id.k96 && pair && m != 256 {
        // Table 39 lists K1 = 96 with `256xNxK1` only among the pair's dense shapes (PTX ISA 9.0
        // and 9.1); a later ISA adds `cta_group::1` M = 128 (CUTLASS's SM103_MXF4_ULTRA_SS_VS),
        // never the M = 128 pair.
        return Err(bad(
            x,
            format!("K = 96 (bit 31) in a CTA pair takes M = 256, not {m} (Table 39: 256xNxK1, K1 = 96)"),
        ));
    }
    if a_tmem && id.trans_a {
        return Err(bad(
            x,
            "A in Tensor Memory cannot be transposed (Table 51)".into(),
        ));
    }
    let a_desc = if a_tmem { 0 } else { x.get(o.a, l)? };
    let a_at = if a_tmem { Some(taddr(x, o.a)?) } else { None };
    let b_desc = x.get(o.b, l)?;
    check_desc(b_desc, id.trans_b).map_err(|e| bad(x, e))?;
    if !a_tmem {
        check_desc(a_desc, id.trans_a).map_err(|e| bad(x, e))?;
    }
    let enable = x.get(o.enable, l)? & 1 == 1;
    let shift_d = match (ws, o.last) {
        (false, Some(s)) => {
            let s = x.get(s, l)?;
            if s > 15 || !matches!(kind, UKind::F16 | UKind::Tf32) {
                return Err(bad(
                    x,
                    format!("scale-input-d {s} (0..15, .kind::f16 and .kind::tf32 only)"),
                ));
            }
            s as i32
        }
        _ => 0,
    };
    // `.ws`: zero-column mask and shift.
    let (mask, shift) = match (ws, o.last) {
        (true, Some(z)) => {
            let z = x.get(z, l)?;
            let shift = bits(z, 56, 6) as usize;
            if shift as u32 > id.max_shift {
                return Err(bad(
                    x,
                    format!(
                        "column shift {shift} exceeds the descriptor's maximum {}",
                        id.max_shift
                    ),
                ));
            }
            let subs = match m {
                32 => 4,
                64 => 2,
                _ => 1,
            };
            (zero_mask(z, n, subs), shift)
        }
        _ => (vec![false; n], 0),
    };
    let disable: Vec<u64> = match o.disable {
        Some(Opnd::Vec(v)) => v.iter().map(|w| x.get(w, l)).collect::<Result<_, _>>()?,
        _ => Vec::new(),
    };
    // K = 96's 48-byte rows, split at the 128-byte boundary where bit 52 says so.
    let split = |x: &Ctx<'_, '_>, desc: u64| -> Result<bool, Error> {
        if id.k96 {
            check_split48(desc).map_err(|e| bad(x, e))
        } else {
            Ok(false)
        }
    };
    let a_smem = if !a_tmem && split(x, a_desc)? {
        Smem::Split48
    } else {
        smem_of(kind, id.a)
    };
    let b_smem = if split(x, b_desc)? {
        Smem::Split48
    } else {
        smem_of(kind, id.b)
    };
    // The 16-byte chunks of each CTA's shared memory (`ctas[0]`, `ctas[1]`) the MMA reads.
    let mut seen: [Vec<u64>; 2] = Default::default();
    let track = x.cl.race.is_some();
    // B for all N columns (by column, K contiguous), from the CTA holding each column.
    let mut braw = vec![0u64; n * k];
    for j in 0..n {
        let (cta, jn) = if pair && j >= n / 2 {
            (ctas[1], j - n / 2)
        } else {
            (ctas[0], j)
        };
        if mask[j] {
            continue;
        }
        let sh = &x.cl.shared[cta];
        let mut seen = Some(&mut seen[usize::from(cta != ctas[0])]).filter(|_| track);
        for kk in 0..k {
            braw[j * k + kk] = smem_elem(
                sh,
                b_desc,
                id.trans_b,
                jn + shift,
                kk,
                b_smem,
                seen.as_deref_mut(),
            )
            .map_err(|e| bad(x, e))?;
        }
    }
    let minus = tc::input((-1f32).to_bits() as u64, Fmt::F32);
    let float = kind != UKind::I8;
    let bin: Vec<Input> = if float {
        braw.iter()
            .map(|&r| {
                let v = decode(id.b, r, false).expect("float kinds decode");
                if id.neg_b {
                    tc::scaled(v, minus)
                } else {
                    v
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    let nsf = if kind.scaled() {
        super::mma_kind::scale_count(x)?
    } else {
        1
    };
    // K = 96 has half as many factors again: 3 of 32 elements or 6 of 16 (9.7.16.10.7.2.4-5).
    let nsf = if id.k96 { nsf * 3 / 2 } else { nsf };
    if nsf == 6 && (id.sfa_id % 2 != 0 || id.sfb_id % 2 != 0) {
        return Err(bad(
            x,
            "scale factor ids of K = 96 with 16-element blocks are 0 or 2 (9.7.16.10.7.2.5)".into(),
        ));
    }
    // Columns between a row's words of scale factors (K = 96, [`sf_place`]): A's M = 128 rows
    // of a CTA span 4, B's N columns 4 up to N = 128 and 8 beyond (the ISA's separate N > 128
    // figures; CUTLASS rounds N up to 128 for them).
    let (group_a, group_b) = (4, if n > 128 { 8 } else { 4 });
    let st = if id.ue4m3 { Type::Ue4m3 } else { Type::Ue8m0 };
    let model = mx::model(k);
    let meta_at = match o.meta {
        Some(op) => Some(taddr(x, op)?),
        None => None,
    };
    let scale_at = match o.scales {
        Some((sa, sb)) => Some((taddr(x, sa)?, taddr(x, sb)?)),
        None => None,
    };
    for (half, &cta) in ctas.iter().enumerate() {
        let row0 = half * mc;
        // A rows of this CTA, logical (dense) K; `h` picks the duplicate of the dense pair.
        let copies = if layout == Layout::Split2 && pair && a_tmem {
            2
        } else {
            1
        };
        let mut araw = vec![0u64; copies * mc * k];
        // Made on first use, then read in place.
        x.cl.tmem[cta].cells();
        let read_cell = |x: &Ctx<'_, '_>, lane: usize, col: usize| -> Result<u32, Error> {
            let t = &x.cl.tmem[cta];
            if lane >= LANES as usize || col >= COLUMNS as usize || !t.allocated(col as u32) {
                return Err(bad(x, format!("Tensor Memory lane {lane}, column {col} of CTA {cta}, which no live tcgen05.alloc covers")));
            }
            Ok(t.data[lane * COLUMNS as usize + col])
        };
        let stored = if sparse { k / 2 } else { k };
        for h in 0..copies {
            for ml in 0..mc {
                for s in 0..stored {
                    let raw = match a_at {
                        Some((al, ac)) => {
                            let cb = match a_smem {
                                Smem::Bytes(b) => 8 * b,
                                Smem::Padded(_) => 8,
                                Smem::Nibbles | Smem::Split48 => 4,
                            };
                            let (lane, _) = layout.cell(ml, 0, n.max(4));
                            let lane = al + lane + 64 * h;
                            let bit = s * cb;
                            let w = read_cell(x, lane, ac + bit / 32)? as u64;
                            (w >> (bit % 32)) & ((1u64 << cb) - 1)
                        }
                        None => smem_elem(
                            &x.cl.shared[cta],
                            a_desc,
                            id.trans_a,
                            ml,
                            s,
                            a_smem,
                            Some(&mut seen[half]).filter(|_| track),
                        )
                        .map_err(|e| bad(x, e))?,
                    };
                    araw[(h * mc + ml) * k + s] = raw;
                }
                if sparse {
                    // Expand the stored half of the row with its metadata.
                    let (el, ec) = meta_at.expect("sparse operands");
                    let (chunk, unit) = match kind {
                        UKind::Tf32 => (2, 1),
                        UKind::Mxf4 | UKind::Mxf4nvf4 => (8, 2),
                        _ => (4, 1),
                    };
                    let row = &mut araw[(h * mc + ml) * k..(h * mc + ml + 1) * k];
                    let packed: Vec<u64> = row[..stored].to_vec();
                    row.iter_mut().for_each(|v| *v = 0);
                    let mut next = 0;
                    for g in 0..k / chunk {
                        let kk = g * chunk;
                        let (lane, bit, col) = meta_cell(kind, ml, kk, (el, ec), id.sel as usize);
                        let nib = (read_cell(x, lane, col)? as u64 >> bit) & 0xf;
                        let pos = chunk_units(nib, kind == UKind::Tf32)
                            .map_err(|e| bad(x, format!("{e} (row {}, chunk {g})", row0 + ml)))?;
                        let slots = if kind == UKind::Tf32 { 1 } else { 2 };
                        for &p in &pos[..slots] {
                            for u in 0..unit {
                                row[kk + p * unit + u] = packed[next];
                                next += 1;
                            }
                        }
                    }
                }
            }
        }
        if x.has(Flag::Ashift) {
            for h in 0..copies {
                for ml in (1..mc).rev() {
                    let (src, dst) = ((h * mc + ml - 1) * k, (h * mc + ml) * k);
                    araw.copy_within(src..src + k, dst);
                }
            }
        }
        // Scale factors of this CTA's rows and of every column.
        let (sfa, sfb) = match scale_at {
            Some(((al, ac), (bl, bc))) => {
                let byte = |w: u32, i: u64| (w >> (8 * i)) as u8;
                let mut sfa = Vec::with_capacity(mc * nsf);
                for ml in 0..mc {
                    let q = layout.cell(ml, 0, n).0 / 32;
                    for j in 0..nsf {
                        let (dc, b) = sf_place(id.sfa_id, j, group_a);
                        let w = read_cell(x, al + 32 * q + ml % 32, ac + ml / 32 + dc)?;
                        sfa.push(mx::scale(st, byte(w, b)).map_err(|e| bad(x, e))?);
                    }
                }
                let mut sfb = Vec::with_capacity(n * nsf);
                for j in 0..n {
                    let (lane, col) = if layout == Layout::Split2 {
                        (64 * (j / (n / 2)) + j % 32, (j % (n / 2)) / 32)
                    } else {
                        (j % 32, j / 32)
                    };
                    for jj in 0..nsf {
                        let (dc, b) = sf_place(id.sfb_id, jj, group_b);
                        let w = read_cell(x, bl + lane, bc + col + dc)?;
                        sfb.push(mx::scale(st, byte(w, b)).map_err(|e| bad(x, e))?);
                    }
                }
                (sfa, sfb)
            }
            None => (Vec::new(), Vec::new()),
        };
        let blk = k / nsf;
        // The products and results.
        let mut out: Vec<(usize, usize, u32)> = Vec::with_capacity(mc * n);
        let ain: Vec<Input> = if float {
            araw.iter()
                .enumerate()
                .map(|(i, &r)| {
                    let mut v =
                        decode(id.a, r, a_tmem && !kind.packed4()).expect("float kinds decode");
                    if id.neg_a {
                        v = tc::scaled(v, minus);
                    }
                    if !sfa.is_empty() {
                        let ml = (i / k) % mc;
                        v = tc::scaled(v, sfa[ml * nsf + (i % k) / blk]);
                    }
                    v
                })
                .collect()
        } else {
            Vec::new()
        };
        for ml in 0..mc {
            for j in 0..n {
                let (lane, col) = layout.cell(ml, j, n);
                let (lane, col) = (dl + lane, dc + col);
                let h = if copies == 2 && j >= n / 2 { 1 } else { 0 };
                let arow = (h * mc + ml) * k;
                // D must be allocated whether or not it is read.
                let old = read_cell(x, lane, col)?;
                let v = if float {
                    let bcol: Vec<Input> = if sfb.is_empty() {
                        bin[j * k..(j + 1) * k].to_vec()
                    } else {
                        (0..k)
                            .map(|kk| tc::scaled(bin[j * k + kk], sfb[j * nsf + kk / blk]))
                            .collect()
                    };
                    let fmt = if id.d == Type::F16 {
                        Fmt::F16
                    } else {
                        Fmt::F32
                    };
                    let c = if enable {
                        let cbits = if fmt == Fmt::F16 {
                            old as u64 & 0xffff
                        } else {
                            old as u64
                        };
                        let c = tc::input(cbits, fmt);
                        if shift_d > 0 {
                            let p = tc::input(((127 - shift_d) as u64) << 23, Fmt::F32);
                            tc::scaled(c, p)
                        } else {
                            c
                        }
                    } else {
                        tc::input(0, fmt)
                    };
                    tc::dot_inputs_c(model, &ain[arow..arow + k], &bcol, c, fmt) as u32
                } else {
                    let (sa, sb) = (id.a == Type::S8, id.b == Type::S8);
                    let mut acc = if enable { old as i32 as i128 } else { 0 };
                    for kk in 0..k {
                        acc += crate::int::wide(araw[arow + kk], 8, sa)
                            * crate::int::wide(braw[j * k + kk], 8, sb);
                    }
                    if id.sat {
                        crate::int::saturate(acc, 32, true) as u32
                    } else {
                        acc as u32
                    }
                };
                let word = if pair {
                    4 * half + lane / 32
                } else {
                    lane / 32
                };
                let off = disable
                    .get(word)
                    .is_some_and(|w| (w >> (lane % 32)) & 1 == 1);
                if !off {
                    out.push((lane, col, v));
                }
            }
        }
        let cells = x.cl.tmem[cta].cells();
        for (lane, col, v) in out {
            cells[lane * COLUMNS as usize + col] = v;
        }
    }
    if track {
        let who = issuer(x, l);
        for (half, seen) in seen.iter_mut().enumerate() {
            if let Some(&cta) = ctas.get(half) {
                inflight::race_reads(x.m, x.cl, &who, cta as u32, seen);
            }
        }
    }
    Ok(())
}
