//! Tensor copies in the sm_100 modes (ISA-derived, not hardware-checked): `.tile::gather4`,
//! `.tile::scatter4`, `.im2col::w` and `.im2col::w::128`, and what is reported instead of
//! copying. Tile and `.im2col` copies are checked against the GPU by
//! `corpus/vectors/hopper.jsonl.xz` and `corpus/vectors/im2col.jsonl` (`tests/vectors.rs`).

use ptx_ir_interp::tmap::TensorMapArg;
use ptx_ir_interp::{Arg, Program};

/// Runs `body` in one thread with `%rd1` = `out` (`out_words` words), `%rd2` = the tensor
/// (words `0, 1, 2, ...`), `%rd10` = the tensor map `spec` (over argument 1), `%r1` = a
/// 16 KiB shared buffer and `%r2` = an initialised mbarrier; returns `out`.
fn run(spec: &str, body: &str, out_words: usize, tensor_words: usize) -> Result<Vec<u32>, String> {
    let tensor: Vec<u8> = (0..tensor_words as u32)
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let o = run_b(spec, body, 4 * out_words, tensor, false)?;
    Ok(o.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

/// [`run`] with the tensor's bytes given, returning `out`'s bytes; with `fill` the first 4 KiB
/// of shared memory hold `0xee` bytes before `body` (so that bytes a copy leaves alone show).
fn run_b(
    spec: &str,
    body: &str,
    out_bytes: usize,
    tensor: Vec<u8>,
    fill: bool,
) -> Result<Vec<u8>, String> {
    let fill = if fill {
        "mov.u32 %r30, 0;\n\
         L_s: setp.ge.u32 %p3, %r30, 4096; @%p3 bra L_t;\n\
         add.u32 %r31, %r1, %r30; st.shared.u32 [%r31], 0xeeeeeeee;\n\
         add.u32 %r30, %r30, 4; bra L_s;\nL_t:\nfence.proxy.async.shared::cta;\n"
    } else {
        ""
    };
    let body = format!("{fill}{body}");
    let src = format!(
        ".version 8.8\n.target sm_100a\n.address_size 64\n\
         .visible .entry k(.param .u64 o, .param .u64 t, .param .align 64 .b8 tm[128]) {{\n\
         .reg .b32 %r<40>; .reg .b64 %rd<16>; .reg .b16 %h<8>; .reg .pred %p<4>;\n\
         .shared .align 1024 .b8 sm[16384]; .shared .align 8 .b64 bar;\n\
         ld.param.u64 %rd1, [o]; ld.param.u64 %rd2, [t];\n\
         mov.u64 %rd10, tm; cvta.param.u64 %rd10, %rd10;\n\
         mov.u32 %r1, sm; mov.u32 %r2, bar;\n\
         mbarrier.init.shared.b64 [%r2], 1;\n{body}\nret; }}\n"
    );
    let m = ptx_ir_text::parse(&src).map_err(|e| e.to_string())?;
    let p = Program::load(&m).map_err(|e| e.to_string())?;
    let tm = TensorMapArg::parse(spec).map_err(|e| e.to_string())?;
    let o = p
        .launch("k")
        .block([1, 1, 1])
        .args(vec![
            Arg::Buffer(vec![0xab; out_bytes]),
            Arg::Buffer(tensor),
            Arg::TensorMap(tm),
        ])
        .run()
        .map_err(|f| f.error.to_string())?;
    Ok(o.buffers[0].clone())
}

/// Loads `bytes` (the transaction) with `copy` (its operands use `%r1`, `%rd10`, `%r2`) and
/// copies the first `extent` bytes of shared memory out.
fn load(copy: &str, bytes: u32, extent: u32) -> String {
    let words = extent / 4;
    format!(
        "mbarrier.arrive.expect_tx.shared.b64 _, [%r2], {bytes};\n{copy}\n\
         L_w: mbarrier.try_wait.parity.shared.b64 %p1, [%r2], 0; @!%p1 bra L_w;\n\
         mov.u32 %r30, 0;\n\
         L_c: setp.ge.u32 %p2, %r30, {words}; @%p2 bra L_d;\n\
         shl.b32 %r31, %r30, 2; add.u32 %r32, %r1, %r31; ld.shared.u32 %r33, [%r32];\n\
         mul.wide.u32 %rd11, %r30, 4; add.s64 %rd12, %rd1, %rd11; st.global.u32 [%rd12], %r33;\n\
         add.u32 %r30, %r30, 1; bra L_c;\nL_d:\n"
    )
}

#[test]
fn gather4_loads_four_rows() {
    // A 16 x 10 u32 tensor (element value = its index); rows of 8 from column 8; row 12 is
    // past the tensor and reads zeros.
    let copy = "mov.u32 %r10, 8; mov.u32 %r11, 3; mov.u32 %r12, 0; mov.u32 %r13, 9; mov.u32 %r14, 12;\n\
        cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [%r1], [%rd10, {%r10, %r11, %r12, %r13, %r14}], [%r2];";
    let out = run(
        "buf=1,type=u32,dims=16x10,box=8x1",
        &load(copy, 128, 128),
        32,
        160,
    )
    .unwrap();
    for (i, row) in [3u32, 0, 9].iter().enumerate() {
        let want: Vec<u32> = (0..8).map(|j| row * 16 + 8 + j).collect();
        assert_eq!(&out[8 * i..8 * i + 8], &want[..], "row {i}");
    }
    assert_eq!(&out[24..32], &[0; 8]);
}

#[test]
fn scatter4_stores_four_rows() {
    let body = "mov.u32 %r30, 0;\n\
        L_f: setp.ge.u32 %p2, %r30, 32; @%p2 bra L_g;\n\
        shl.b32 %r31, %r30, 2; add.u32 %r32, %r1, %r31; add.u32 %r33, %r30, 1000; st.shared.u32 [%r32], %r33;\n\
        add.u32 %r30, %r30, 1; bra L_f;\nL_g:\nfence.proxy.async.shared::cta;\n\
        mov.u32 %r10, 4; mov.u32 %r11, 1; mov.u32 %r12, 2; mov.u32 %r13, 7; mov.u32 %r14, 30;\n\
        cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd10, {%r10, %r11, %r12, %r13, %r14}], [%r1];\n\
        cp.async.bulk.commit_group; cp.async.bulk.wait_group 0;";
    // The tensor is `out` itself (argument 0): 8 x 8 u32.
    let out = run("buf=0,type=u32,dims=8x8,box=4x1", body, 64, 0).unwrap();
    for (i, row) in [1usize, 2, 7].iter().enumerate() {
        for j in 0..4 {
            assert_eq!(out[row * 8 + 4 + j], 1000 + 4 * i as u32 + j as u32);
        }
        assert_eq!(out[row * 8], 0xabab_abab, "columns before 4 untouched");
    }
    assert_eq!(
        out[0], 0xabab_abab,
        "row 0 untouched; row 30 is past the tensor"
    );
}

#[test]
fn im2col_w_walks_along_w_with_halo() {
    // NHWC 4 x 12 x 3 x 1 u32 (C = 4, W = 12); 64-byte swizzle over 16-byte rows pads each row
    // to 64 bytes. W starts at 3 + wOffset 2 = 5; 4 pixels then 2 halo pixels continue the
    // walk; W 12 and 13 are past the tensor.
    let spec = "buf=1,type=u32,dims=4x12x3x1,mode=im2col_w,cpp=4,ppc=4,swizzle=64";
    let copy = "mov.u32 %r10, 0; mov.u32 %r11, 3; mov.u32 %r12, 1; mov.u32 %r13, 0;\n\
        mov.u16 %h1, 2; mov.u16 %h2, 2;\n\
        cp.async.bulk.tensor.4d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes [%r1], [%rd10, {%r10, %r11, %r12, %r13}], [%r2], {%h1, %h2};";
    let out = run(spec, &load(copy, 96, 384), 96, 4 * 12 * 3).unwrap();
    // The transaction is 6 rows of 16 bytes; rows sit 64 bytes apart, swizzled.
    let word = |r: usize, j: usize| {
        let a = r * 64 + 4 * j;
        let a = a ^ (((a >> 7) & 3) << 4);
        out[a / 4]
    };
    for r in 0..6 {
        let w = 5 + r as u32;
        for j in 0..4 {
            let want = if w < 12 { (12 + w) * 4 + j as u32 } else { 0 };
            assert_eq!(word(r, j), want, "row {r} channel {j}");
        }
    }
}

#[test]
fn im2col_w128_puts_halo_after_every_32() {
    // W = 200 positions of 4 channels; 128 pixels from W 0 in groups of 32, each group followed
    // by 2 halo pixels continuing it: rows 32g + j (j < 34) hold W 32g + j.
    let spec = "buf=1,type=u32,dims=4x200x1x1,mode=im2col_w128,cpp=4,ppc=1,swizzle=64";
    let copy = "mov.u32 %r10, 0; mov.u32 %r11, 0; mov.u32 %r12, 0; mov.u32 %r13, 0;\n\
        mov.u16 %h1, 2; mov.u16 %h2, 0;\n\
        cp.async.bulk.tensor.4d.shared::cluster.global.im2col::w::128.mbarrier::complete_tx::bytes [%r1], [%rd10, {%r10, %r11, %r12, %r13}], [%r2], {%h1, %h2};";
    let rows = 128 + 4 * 2;
    let out = run(
        spec,
        &load(copy, 16 * rows, 64 * rows),
        16 * rows as usize,
        800,
    )
    .unwrap();
    for r in 0..rows as usize {
        let (g, j) = (r / 34, r % 34);
        let w = (32 * g + j) as u32;
        let a = r * 64;
        let a = a ^ (((a >> 7) & 3) << 4);
        assert_eq!(out[a / 4], 4 * w, "row {r}");
    }
}

#[test]
fn misuse_is_reported() {
    let tile = "buf=1,type=u32,dims=8x5x4x2,box=8x1x1x1";
    let im2col = "buf=1,type=u32,dims=8x5x4x2,mode=im2col,cpp=4,ppc=8,lower=-1:0";
    let i2c = |coords: &str, offs: &str| {
        format!("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd10, {{{coords}}}], [%r2], {{{offs}}};")
    };
    let cases = [
        // An im2col copy through a tiled map.
        (tile, i2c("0, 0, 0, 0", "0, 0"), "tiled"),
        // The filter base must start inside the box [-1, 4] x [0, 3].
        (im2col, i2c("0, 5, 0, 0", "0, 0"), "outside the bounding box"),
        (im2col, i2c("0, 0, -1, 0", "0, 0"), "outside the bounding box"),
        // Rank-4 offsets are 8 bits.
        (im2col, i2c("0, 0, 0, 0", "256, 0"), "out of range"),
        // A channel start not on 16 bytes.
        (im2col, i2c("2, 0, 0, 0", "0, 0"), "multiple of 16"),
        // Stores need non-negative lower corners.
        (
            im2col,
            "cp.async.bulk.tensor.4d.global.shared::cta.im2col_no_offs.bulk_group [%rd10, {0, 0, 0, 0}], [%r1];".to_string(),
            "corners",
        ),
        // gather4 needs a one-row box.
        (
            "buf=1,type=u32,dims=16x10,box=8x2",
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [%r1], [%rd10, {0, 0, 1, 2, 3}], [%r2];".to_string(),
            "one row",
        ),
    ];
    for (spec, body, want) in cases {
        let e = run(spec, &body, 4, 320).unwrap_err();
        assert!(e.contains(want), "{body}: {e}");
    }
    // The encoder's rules: corners within the rank's range, cpp bytes a multiple of 16.
    for (spec, want) in [
        (
            "buf=1,type=u32,dims=8x5x4x2,mode=im2col,cpp=4,ppc=8,lower=-129",
            "outside",
        ),
        (
            "buf=1,type=u32,dims=8x5x4x2,mode=im2col,cpp=2,ppc=8",
            "multiple of 16",
        ),
        (
            "buf=1,type=u32,dims=8x5x4x2,mode=im2col,cpp=4,ppc=8,lower=5",
            "empty",
        ),
    ] {
        let e = run(spec, "", 4, 320).unwrap_err();
        assert!(e.contains(want), "{spec}: {e}");
    }
}

/// A swizzled copy to or from a shared address that is not 128-byte aligned faults with a
/// misaligned address, as on an H200 (`tools/hwvectors/hopper.py --family swzalign`); 128-byte
/// aligned ones take the swizzle's base offset.
#[test]
fn swizzled_copies_need_128_byte_aligned_shared_memory() {
    let spec = "buf=1,type=u32,dims=32x8,box=32x2,swizzle=128";
    let load = "add.u32 %r1, %r1, 16;\n\
                mbarrier.arrive.expect_tx.shared.b64 _, [%r2], 256;\n\
                cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes \
                [%r1], [%rd10, {0, 0}], [%r2];";
    let e = run(spec, load, 4, 256).unwrap_err();
    assert!(e.contains("misaligned"), "{e}");
    let store = "add.u32 %r1, %r1, 64;\n\
                 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd10, {0, 0}], [%r1];";
    let e = run(spec, store, 4, 256).unwrap_err();
    assert!(e.contains("misaligned"), "{e}");
    let aligned = load.replace("add.u32 %r1, %r1, 16;", "add.u32 %r1, %r1, 128;");
    run(spec, &aligned, 4, 256).unwrap();
}

/// Bytes `7, 36, 65, ...` (wrapping): the tensor of the sub-byte and swizzle tests.
fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 29 + 7) as u8).collect()
}

/// A 2D tile load to `%r1` at `(c0, c1)`.
fn tile2(c0: i32, c1: i32) -> String {
    format!("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd10, {{{c0}, {c1}}}], [%r2];")
}

/// Loads with `copy` through `spec` over `tensor` (shared memory filled with `0xee` first) and
/// returns the first `extent` bytes of shared memory; the transaction is `tx` bytes.
fn load_b(spec: &str, copy: &str, tx: u32, extent: u32, tensor: Vec<u8>) -> Vec<u8> {
    run_b(spec, &load(copy, tx, extent), extent as usize, tensor, true)
        .unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// Stores the shared bytes `sh` (from `%r1`) with `copy` through `spec`, whose tensor is `out`
/// (`out_bytes` bytes of `0xab`); returns `out`.
fn store_b(spec: &str, copy: &str, sh: &[u8], out_bytes: usize) -> Result<Vec<u8>, String> {
    let mut body = String::new();
    for (i, w) in sh.chunks(4).enumerate() {
        let v = u32::from_le_bytes(w.try_into().unwrap());
        body += &format!("st.shared.u32 [%r1+{}], {v};\n", 4 * i);
    }
    body += &format!(
        "fence.proxy.async.shared::cta;\n{copy}\ncp.async.bulk.commit_group; cp.async.bulk.wait_group 0;"
    );
    run_b(spec, &body, out_bytes, Vec::new(), false)
}

/// `.b4x16` (16U4_ALIGN8B, ISA-derived): 4-bit elements packed alike in global and shared
/// memory, rows of 32 elements = 16 bytes; elements past an even `globalDim[0]` of 40 and rows
/// past the tensor read as zero nibbles.
#[test]
fn b4x16_loads_packed_nibbles() {
    let spec = "buf=1,type=b4x16,dims=40x3,strides=32,box=32x2";
    let g = pattern(96);
    let sh = load_b(spec, &tile2(0, 0), 32, 32, g.clone());
    assert_eq!(&sh[..16], &g[0..16]);
    assert_eq!(&sh[16..32], &g[32..48]);
    // From element 32 of row 2: 8 elements (4 bytes) in bounds, then zeros; row 3 is past the
    // tensor.
    let sh = load_b(spec, &tile2(32, 2), 32, 32, g.clone());
    assert_eq!(&sh[..4], &g[80..84]);
    assert_eq!(&sh[4..32], &[0; 28]);
}

/// `.b4x16_p64` (16U4_ALIGN16B) and `.b6x16_p32` (16U6_ALIGN16B), ISA-derived: each 16 elements
/// (8 or 12 packed bytes in global memory) land at the start of their own 16 shared bytes, the
/// padding left as it was; the transaction counts the packed bytes (CUTLASS's
/// `ABTmaTransactionBytes` uses the 4- or 6-bit element size).
#[test]
fn padded_sub_byte_types_expand_to_16_bytes() {
    let g = pattern(256);
    let cases = [
        // (spec, group bytes in global memory, row bytes in global memory, coordinates)
        (
            "buf=1,type=b4x16_p64,dims=256x2,strides=128,box=128x2",
            8,
            128,
            (128, 0),
        ),
        (
            "buf=1,type=b6x16_p32,dims=128x2,strides=96,box=128x2",
            12,
            96,
            (0, 0),
        ),
    ];
    for (spec, gb, stride, (c0, c1)) in cases {
        let row = 8 * gb;
        let sh = load_b(spec, &tile2(c0, c1), 2 * row as u32, 256, g.clone());
        for r in 0..2 {
            let base = r * stride + c0 as usize * gb / 16;
            for grp in 0..8 {
                let at = 128 * r + 16 * grp;
                assert_eq!(
                    &sh[at..at + gb],
                    &g[base + gb * grp..base + gb * (grp + 1)],
                    "{spec} row {r} group {grp}"
                );
                assert!(
                    sh[at + gb..at + 16].iter().all(|&b| b == 0xee),
                    "{spec}: padding"
                );
            }
        }
    }
    // The 128-byte swizzle with 32-byte atoms (`.b4x16_p64`) and 16-byte ones (`.b6x16_p32`):
    // the groups move with their atom, the atom index XOR the 128-byte line (PTX ISA 5.5.7).
    let cases = [
        (
            "buf=1,type=b4x16_p64,dims=128x2,strides=64,box=128x2,swizzle=128,atom=32",
            8,
            2,
        ),
        (
            "buf=1,type=b6x16_p32,dims=128x2,strides=96,box=128x2,swizzle=128",
            12,
            1,
        ),
    ];
    for (spec, gb, per_atom) in cases {
        let atoms = 8 / per_atom;
        let stride = 8 * gb;
        let sh = load_b(spec, &tile2(0, 0), 2 * stride as u32, 256, g.clone());
        for r in 0..2usize {
            for grp in 0..8usize {
                let atom = (grp / per_atom) ^ (r % atoms);
                let at = 128 * r + 16 * (atom * per_atom + grp % per_atom);
                let src = r * stride + gb * grp;
                assert_eq!(
                    &sh[at..at + gb],
                    &g[src..src + gb],
                    "{spec} row {r} group {grp}"
                );
            }
        }
    }
}

/// Stores: `.b4x16` as is; type 15 as `.b6p2x16` (PTX ISA 5.5.1.1.1): each shared byte holds
/// one element in its low 6 bits, packed contiguously into global memory, the 2 high bits
/// dropped.
#[test]
fn sub_byte_stores() {
    let sh = pattern(32);
    let st = "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd10, {32, 0}], [%r1];";
    let out = store_b(
        "buf=0,type=b4x16,dims=64x2,strides=32,box=32x2",
        st,
        &sh,
        64,
    )
    .unwrap();
    for r in 0..2 {
        assert_eq!(&out[32 * r..32 * r + 16], &[0xab; 16]);
        assert_eq!(&out[32 * r + 16..32 * r + 32], &sh[16 * r..16 * r + 16]);
    }
    let sh: Vec<u8> = (0..256).map(|i| (i * 37 + 5) as u8).collect();
    let st = "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd10, {0, 0}], [%r1];";
    let out = store_b(
        "buf=0,type=b6x16_p32,dims=128x2,strides=96,box=128x2",
        st,
        &sh,
        192,
    )
    .unwrap();
    let mut want = vec![0u8; 192];
    for (k, &b) in sh.iter().enumerate() {
        for bit in 0..6 {
            if (b >> bit) & 1 == 1 {
                let at = 6 * k + bit;
                want[at / 8] |= 1 << (at % 8);
            }
        }
    }
    assert_eq!(out, want);
}

/// The 96-byte swizzle (sm_103a, ISA-derived): 16-byte chunks swap pairwise on odd 128-byte
/// lines (PTX ISA 5.5.7's table), rows 96 bytes apart, narrower rows padded to 96.
#[test]
fn swizzle_96_bytes() {
    let words = |n: usize| -> Vec<u8> { (0..n as u32).flat_map(|w| w.to_le_bytes()).collect() };
    for (bx, width) in [(24usize, 96usize), (16, 64)] {
        let spec = format!("buf=1,type=u32,dims=24x4,box={bx}x4,swizzle=96");
        let sh = load_b(&spec, &tile2(0, 0), 4 * width as u32, 384, words(96));
        for r in 0..4 {
            for c in 0..width / 16 {
                let a = 96 * r + 16 * c;
                let d = a ^ (((a >> 7) & 1) << 4);
                for j in 0..4 {
                    let w = u32::from_le_bytes(sh[d + 4 * j..d + 4 * j + 4].try_into().unwrap());
                    assert_eq!(w as usize, 24 * r + 4 * c + j, "{spec}: row {r} chunk {c}");
                }
            }
            // Row bytes 64..96 of the narrower rows are padding, not written.
            if width < 96 {
                let pad = 96 * r + width;
                let written: Vec<usize> = (0..width / 16)
                    .map(|c| {
                        let a = 96 * r + 16 * c;
                        a ^ (((a >> 7) & 1) << 4)
                    })
                    .collect();
                for p in (pad..96 * r + 96).step_by(16) {
                    let p = p ^ (((p >> 7) & 1) << 4);
                    if !written.contains(&p) {
                        assert!(sh[p..p + 16].iter().all(|&b| b == 0xee), "{spec}: row {r}");
                    }
                }
            }
        }
    }
    // A wide im2col map (mode W) with the 96-byte swizzle: 24 channels of u32 a pixel.
    let spec = "buf=1,type=u32,dims=24x12x3x1,mode=im2col_w,cpp=24,ppc=4,swizzle=96";
    let copy = "mov.u16 %h1, 0; mov.u16 %h2, 0;\n\
        cp.async.bulk.tensor.4d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes [%r1], [%rd10, {0, 3, 1, 0}], [%r2], {%h1, %h2};";
    let sh = load_b(spec, copy, 384, 384, words(24 * 12 * 3));
    for r in 0..4 {
        for c in 0..6 {
            let a = 96 * r + 16 * c;
            let d = a ^ (((a >> 7) & 1) << 4);
            let w = u32::from_le_bytes(sh[d..d + 4].try_into().unwrap());
            assert_eq!(w as usize, (12 + 3 + r) * 24 + 4 * c, "pixel {r} chunk {c}");
        }
    }
}

/// The 128-byte swizzle's atomicities (ISA-derived, PTX ISA 5.5.7): 32-byte atoms XOR their
/// index with the line (two bits), 64-byte atoms with one bit, and the 8-byte flip swaps the
/// halves of every 16 bytes on odd lines; stores read the same places back.
#[test]
fn swizzle_atomicity() {
    let words: Vec<u8> = (0..256u32).flat_map(|w| w.to_le_bytes()).collect();
    let word = |sh: &[u8], i: usize| u32::from_le_bytes(sh[4 * i..4 * i + 4].try_into().unwrap());
    for atom in ["32", "64", "32flip"] {
        let spec = format!("buf=1,type=u32,dims=32x8,box=32x8,swizzle=128,atom={atom}");
        let sh = load_b(&spec, &tile2(0, 0), 1024, 1024, words.clone());
        for r in 0..8usize {
            for c in 0..8usize {
                let d = match atom {
                    "64" => ((c / 4) ^ (r & 1)) * 4 + c % 4,
                    _ => ((c / 2) ^ (r & 3)) * 2 + c % 2,
                };
                for j in 0..4 {
                    // The flip: the 8-byte halves swap on odd lines.
                    let jj = if atom == "32flip" && r % 2 == 1 {
                        (j + 2) % 4
                    } else {
                        j
                    };
                    assert_eq!(
                        word(&sh, 32 * r + 4 * d + jj) as usize,
                        32 * r + 4 * c + j,
                        "atom {atom}: row {r} chunk {c}"
                    );
                }
            }
        }
    }
    // A store through 64-byte atoms: global word (r, 4c + j) comes from shared chunk
    // ((c / 4) ^ (r & 1)) * 4 + c % 4 of line r.
    let st = "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd10, {0, 0}], [%r1];";
    let out = store_b(
        "buf=0,type=u32,dims=32x8,box=32x8,swizzle=128,atom=64",
        st,
        &words,
        1024,
    )
    .unwrap();
    for r in 0..8usize {
        for c in 0..8usize {
            let d = ((c / 4) ^ (r & 1)) * 4 + c % 4;
            for j in 0..4 {
                assert_eq!(word(&out, 32 * r + 4 * c + j) as usize, 32 * r + 4 * d + j);
            }
        }
    }
}

/// What PTX ISA 9.7.9.25.5.1 and the encoders forbid is reported: at the copy (undefined) or
/// when the map is made (a launch error).
#[test]
fn sub_byte_and_swizzle_misuse_is_reported() {
    let st = "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd10, {0, 0}], [%r1];";
    let red = "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd10, {0, 0}], [%r1];";
    let p64 = "buf=0,type=b4x16_p64,dims=256x2,strides=128,box=128x2";
    let cases = [
        (p64, st.to_string(), "does not take .b4x16_p64"),
        (
            "buf=0,type=b4x16,dims=64x2,strides=32,box=32x2",
            red.to_string(),
            "sub-byte",
        ),
        (p64, tile2(64, 0), "multiple of 128"),
        (
            "buf=0,type=b4x16,dims=64x2,strides=32,box=32x2",
            tile2(16, 0),
            "multiple of 16 bytes",
        ),
        (
            "buf=0,type=b6x16_p32,dims=128x2,strides=96,box=128x2,swizzle=128,atom=64",
            tile2(0, 0),
            "stores only",
        ),
        (
            "buf=0,type=u32,dims=32x8,box=32x8,swizzle=128,atom=32flip",
            st.to_string(),
            "global-to-shared",
        ),
    ];
    for (spec, body, want) in cases {
        let e = run(spec, &body, 64, 0).unwrap_err();
        assert!(
            e.contains(want) && e.contains("undefined"),
            "{spec} {body}: {e}"
        );
    }
    for (spec, want) in [
        (
            "buf=1,type=b4x16_p64,dims=256x2,strides=128,box=64x2",
            "128",
        ),
        (
            "buf=1,type=b4x16,dims=41x2,strides=32,box=32x2",
            "multiple of 2",
        ),
        (
            "buf=1,type=b4x16_p64,dims=128x2,strides=80,box=128x2",
            "multiple of 32",
        ),
        (
            "buf=1,type=b6x16_p32,dims=128x2,strides=96,box=128x2,swizzle=64",
            "swizzle",
        ),
        (
            "buf=1,type=b6x16_p32,dims=128x2,strides=96,box=128x2,swizzle=96",
            "swizzle",
        ),
        (
            "buf=1,type=b4x16,dims=64x2,strides=32,box=32x2,fill=nan",
            "NaN fill",
        ),
        (
            "buf=1,type=u32,dims=32x2,box=24x2,swizzle=96,atom=32",
            "Table 14",
        ),
        (
            "buf=1,type=u32,dims=32x2,box=32x2,swizzle=96",
            "exceeds the 96-byte",
        ),
        (
            "buf=1,type=u32,dims=8x10x6,mode=im2col_w,cpp=8,ppc=4,swizzle=64,interleave=16",
            "5.5.6",
        ),
        (
            "buf=1,type=u32,dims=8x10x6,mode=im2col_w128,cpp=8,ppc=4,swizzle=96",
            "mode W only",
        ),
        (
            "buf=1,type=u32,dims=8x10x6,mode=im2col_w,cpp=8,ppc=4,swizzle=128,atom=32flip",
            "16- or 32-byte atoms",
        ),
    ] {
        let e = run(spec, "", 4, 320).unwrap_err();
        assert!(e.contains(want), "{spec}: {e}");
    }
}
