//! Tensor copies in the sm_100 modes (ISA-derived, not hardware-checked): `.tile::gather4`,
//! `.tile::scatter4`, `.im2col::w` and `.im2col::w::128`, and what is reported instead of
//! copying. Tile and `.im2col` copies are checked against the GPU by
//! `corpus/vectors/hopper.jsonl` and `corpus/vectors/im2col.jsonl` (`tests/vectors.rs`).

use ptx_ir_interp::tmap::TensorMapArg;
use ptx_ir_interp::{Arg, Program};

/// Runs `body` in one thread with `%rd1` = `out` (`out_words` words), `%rd2` = the tensor
/// (words `0, 1, 2, ...`), `%rd10` = the tensor map `spec` (over argument 1), `%r1` = a
/// 16 KiB shared buffer and `%r2` = an initialised mbarrier; returns `out`.
fn run(spec: &str, body: &str, out_words: usize, tensor_words: usize) -> Result<Vec<u32>, String> {
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
    let tensor: Vec<u8> = (0..tensor_words as u32)
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let tm = TensorMapArg::parse(spec).map_err(|e| e.to_string())?;
    let o = p
        .launch("k")
        .block([1, 1, 1])
        .args(vec![
            Arg::Buffer(vec![0xab; 4 * out_words]),
            Arg::Buffer(tensor),
            Arg::TensorMap(tm),
        ])
        .run()
        .map_err(|f| f.error.to_string())?;
    Ok(o.buffers[0]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
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
