//! The constraints a tensor map must meet: those of `cuTensorMapEncodeTiled`,
//! `cuTensorMapEncodeIm2col` and `cuTensorMapEncodeIm2colWide` (the CUDA driver API's "Tensor
//! Map Object Management" documentation), and the restrictions of PTX ISA 9.7.9.25.5.1 and 5.5.6
//! that the map alone decides. A map that breaks one cannot be made (or, rewritten by
//! `tensormap.replace`, cannot be used): [`TensorMap::check`] runs when a launch makes a map and
//! whenever an instruction reads one. The rules of one copy direction are `exec/tensor.rs`'s.

use super::{Atom, ElemType, Im2col, Im2colMode, TensorMap, TensorMapError};

fn err<T>(m: String) -> Result<T, TensorMapError> {
    Err(TensorMapError::Constraint(m))
}

impl TensorMap {
    /// The constraints `cuTensorMapEncodeTiled` (or `...Im2col`, `...Im2colWide`) enforces (a
    /// map that breaks one cannot exist), and the map-only rules of PTX ISA 9.7.9.25.5.1.
    pub fn check(&self) -> Result<(), TensorMapError> {
        if let Some(i) = &self.im2col {
            self.check_im2col(i)?;
        }
        let r = self.rank as usize;
        if !(1..=5).contains(&r) {
            return err(format!("tensor rank {r} is not in 1..=5"));
        }
        if self.addr % 16 != 0 {
            return err(format!(
                "global address {:#x} is not 16-byte aligned",
                self.addr
            ));
        }
        for i in 0..r {
            if self.dims[i] == 0 {
                return err(format!("globalDim[{i}] is zero"));
            }
            if self.im2col.is_none() && (self.boxdim[i] == 0 || self.boxdim[i] > 256) {
                return err(format!(
                    "boxDim[{i}] = {} is not in 1..=256",
                    self.boxdim[i]
                ));
            }
            if self.estrides[i] == 0 || self.estrides[i] > 8 {
                return err(format!(
                    "elementStrides[{i}] = {} is not in 1..=8",
                    self.estrides[i]
                ));
            }
        }
        self.check_interleave()?;
        // An im2col map ignores the channel traversal stride; an interleaved map steps units.
        if self.estrides[0] != 1 && self.im2col.is_none() && self.interleave == 0 {
            return err(format!(
                "elementStrides[0] = {} (the traversal stride of dimension 0 must be 1 without interleave, PTX ISA 5.5.3.2)",
                self.estrides[0]
            ));
        }
        for i in 1..r {
            let s = self.strides[i - 1];
            if s % 16 != 0 || s >= 1 << 40 {
                return err(format!(
                    "globalStrides[{}] = {s} is not a multiple of 16 below 2^40",
                    i - 1
                ));
            }
        }
        // The driver checks `boxDim[0]` itself, whatever an interleaved map's unit stride.
        let inner = match &self.im2col {
            Some(i) => i.cpp,
            None => self.boxdim[0],
        } as u64;
        let inner_bits = inner * self.elem.bits() as u64;
        if inner_bits % 128 != 0 {
            return err(format!(
                "{} * element size = {inner} * {} bits is not a multiple of 16 bytes",
                if self.im2col.is_some() {
                    "channelsPerPixel"
                } else {
                    "boxDim[0]"
                },
                self.elem.bits()
            ));
        }
        self.check_packed(inner)?;
        // The span bounds a row as it lies in shared memory (padding of the padded types
        // included: a 128-element row of them is 128 bytes there).
        self.check_swizzle(self.elem.smem_span(inner))?;
        if self.nan_fill && !self.elem.is_float() {
            return err("NaN fill needs a floating-point element type (PTX ISA 9.7.9.25.5.1: not the sub-byte types either)".into());
        }
        Ok(())
    }

    /// The swizzle span and atomicity: a span of 32, 64, 96 or 128 bytes no narrower than a
    /// row (without interleave), atomicities other than 16 bytes with the 128-byte span only
    /// (PTX ISA Table 14), and the 96-byte span without interleave or the padded types (PTX ISA
    /// 9.7.9.25.5.1).
    fn check_swizzle(&self, inner: u64) -> Result<(), TensorMapError> {
        match self.swizzle {
            0 => {}
            32 | 64 | 96 | 128 => {
                if inner > self.swizzle as u64 && self.interleave == 0 {
                    return err(format!(
                        "the inner box dimension ({inner} bytes) exceeds the {}-byte swizzle span",
                        self.swizzle
                    ));
                }
            }
            s => return err(format!("swizzle {s} is not 0, 32, 64, 96 or 128")),
        }
        if self.atom != Atom::B16 && self.swizzle != 128 {
            return err(format!(
                "swizzle atomicity {} bytes needs the 128-byte swizzle (PTX ISA 5.5.7, Table 14)",
                self.atom.name()
            ));
        }
        if self.swizzle == 96 {
            if self.interleave != 0 {
                return err(
                    "the 96-byte swizzle takes no interleave (PTX ISA 9.7.9.25.5.1)".into(),
                );
            }
            if self.elem.group().is_some() {
                return err(format!(
                    "the 96-byte swizzle does not take .{} elements (PTX ISA 9.7.9.25.5.1)",
                    self.elem.name()
                ));
            }
        }
        Ok(())
    }

    /// The sub-byte types' rules (`cuTensorMapEncodeTiled` and PTX ISA 9.7.9.25.5.1): `.b4x16`
    /// needs an even `globalDim[0]` (whole bytes); the padded types a 32-byte aligned address
    /// and strides, `globalDim[0]` a multiple of 128, a box (or `channelsPerPixel`) of exactly
    /// 128 elements (64 or 96 bytes), no interleave, and no swizzle or the 128-byte one without
    /// the 8-byte flip (`.b4x16_p64`: 16- or 32-byte atoms, the driver's list).
    fn check_packed(&self, inner: u64) -> Result<(), TensorMapError> {
        let name = self.elem.name();
        if self.elem == ElemType::B4x16 && self.dims[0] % 2 != 0 {
            return err(format!(
                "globalDim[0] = {} of a .b4x16 (16U4_ALIGN8B) tensor is not a multiple of 2",
                self.dims[0]
            ));
        }
        if self.elem.group().is_none() {
            return Ok(());
        }
        if self.addr % 32 != 0 {
            return err(format!(
                "global address {:#x} of a .{name} tensor is not 32-byte aligned",
                self.addr
            ));
        }
        if self.dims[0] % 128 != 0 {
            return err(format!(
                "globalDim[0] = {} of a .{name} tensor is not a multiple of 128",
                self.dims[0]
            ));
        }
        if let Some(s) = self.strides[..self.rank as usize - 1]
            .iter()
            .find(|&&s| s % 32 != 0)
        {
            return err(format!(
                "globalStride {s} of a .{name} tensor is not a multiple of 32"
            ));
        }
        if inner != 128 {
            return err(format!(
                "{} = {inner}: a .{name} tensor's is 128 (PTX ISA 9.7.9.25.5.1: a 64- or 96-byte box)",
                if self.im2col.is_some() {
                    "channelsPerPixel"
                } else {
                    "boxDim[0]"
                }
            ));
        }
        if self.interleave != 0 {
            // The driver requires no interleave of 16U6_ALIGN16B; for 16U4_ALIGN16B a unit-counted
            // boxDim[0] of 128 could never be the 64-byte box PTX ISA 9.7.9.25.5.1 demands.
            return err(format!("a .{name} tensor takes no interleave"));
        }
        let atoms_ok = match self.elem {
            ElemType::B4x16P64 => matches!(self.atom, Atom::B16 | Atom::B32),
            _ => self.atom != Atom::B32Flip8,
        };
        if !matches!(self.swizzle, 0 | 128) || !atoms_ok {
            return err(format!(
                "a .{name} tensor takes no swizzle or the 128-byte one without the 8-byte flip (PTX ISA 9.7.9.25.5.1{}), not {} bytes with {}-byte atoms",
                if self.elem == ElemType::B4x16P64 {
                    "; cuTensorMapEncodeTiled: 16- or 32-byte atoms"
                } else {
                    ""
                },
                self.swizzle,
                self.atom.name()
            ));
        }
        Ok(())
    }

    /// The interleave rules of `cuTensorMapEncodeTiled`: rank 3 or more, and a 32-byte
    /// interleave needs a 32-byte swizzle, a 32-byte aligned address and strides that are
    /// multiples of 32. The wide im2col modes take no interleave (PTX ISA 5.5.6).
    fn check_interleave(&self) -> Result<(), TensorMapError> {
        let il = self.interleave;
        if il == 0 {
            return Ok(());
        }
        if il != 16 && il != 32 {
            return err(format!("interleave {il} is not 0, 16 or 32 bytes"));
        }
        if self.im2col.is_some_and(|i| i.mode != Im2colMode::Box) {
            return err("a wide im2col tensor map takes no interleave (PTX ISA 5.5.6: the interleave layout is not supported for .im2col::w and .im2col::w::128)".into());
        }
        if self.rank < 3 {
            return err(format!(
                "an interleaved tensor map has rank 3 or more, not {}",
                self.rank
            ));
        }
        if il == 32 {
            if self.swizzle != 32 {
                return err("a 32-byte interleave needs the 32-byte swizzle".into());
            }
            if self.addr % 32 != 0 {
                return err(format!(
                    "global address {:#x} is not 32-byte aligned (32-byte interleave)",
                    self.addr
                ));
            }
            if let Some(s) = self.strides[..self.rank as usize - 1]
                .iter()
                .find(|&&s| s % 32 != 0)
            {
                return err(format!(
                    "globalStride {s} is not a multiple of 32 (32-byte interleave)"
                ));
            }
        }
        Ok(())
    }

    /// The rules of `cuTensorMapEncodeIm2col` and `cuTensorMapEncodeIm2colWide` beyond the
    /// tiled ones (the corner ranges are PTX ISA 5.5.5's; the rest measured on an H200 where
    /// the driver documentation is silent: `channelsPerPixel` bytes a multiple of 16, a
    /// non-empty box). A wide map's swizzle is 64 bytes, 96 (mode `W` only), or 128 with 16- or
    /// 32-byte atoms (`cuTensorMapEncodeIm2colWide`; PTX ISA 9.7.9.25.5.1 keeps the 8-byte flip
    /// and the 96-byte span from `.im2col::w::128`).
    fn check_im2col(&self, i: &Im2col) -> Result<(), TensorMapError> {
        let r = self.rank as usize;
        if !(3..=5).contains(&r) {
            return err(format!("an im2col tensor map has rank 3 to 5, not {r}"));
        }
        if i.cpp == 0 || i.cpp > 256 {
            return err(format!("channelsPerPixel {} is not in 1..=256", i.cpp));
        }
        if i.ppc == 0 || i.ppc > 1024 {
            return err(format!("pixelsPerColumn {} is not in 1..=1024", i.ppc));
        }
        let spatial = if i.mode == Im2colMode::Box { r - 2 } else { 1 };
        let lim = match (i.mode, r) {
            (Im2colMode::Box, 4) => 1 << 7,
            (Im2colMode::Box, 5) => 1 << 4,
            _ => 1 << 15,
        };
        for k in 0..spatial {
            for (what, v) in [("Lower", i.lower[k]), ("Upper", i.upper[k])] {
                if v < -lim || v >= lim {
                    return err(format!(
                        "pixelBox{what}Corner[{k}] = {v} is outside [{}, {}] for a rank-{r} map",
                        -lim,
                        lim - 1
                    ));
                }
            }
            let last = self.dims[k + 1] as i64 - 1 + i.upper[k] as i64;
            if (i.lower[k] as i64) > last {
                return err(format!(
                    "the pixel box of spatial dimension {k} is empty ({} > {last})",
                    i.lower[k]
                ));
            }
        }
        if i.mode != Im2colMode::Box {
            let ok = match (self.swizzle, self.atom) {
                (64, Atom::B16) => true,
                (96, Atom::B16) => i.mode == Im2colMode::Wide,
                (128, a) => matches!(a, Atom::B16 | Atom::B32),
                _ => false,
            };
            if !ok {
                return err(format!(
                    "a wide im2col map ({}) takes the 64-byte swizzle, the 96-byte one (mode W only) or the 128-byte one with 16- or 32-byte atoms, not {} bytes with {}-byte atoms (cuTensorMapEncodeIm2colWide)",
                    if i.mode == Im2colMode::Wide { "mode W" } else { "mode W128" },
                    self.swizzle,
                    self.atom.name()
                ));
            }
        }
        Ok(())
    }
}
