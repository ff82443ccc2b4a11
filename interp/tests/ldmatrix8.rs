//! The sm_100 8-bit `ldmatrix`/`stmatrix` shapes (ISA-derived, not hardware-checked: the
//! layouts are CUTLASS's `copy_traits_sm100.hpp`; the test values are worked out from them).

use ptx_ir_interp::{Arg, Program};

/// One warp: shared memory `sm` (512 bytes) filled with `init` (4 bytes per thread and step,
/// 4 steps), lane `i`'s row address `sm + 16 i` in `%r9`; then `body`; `%r1..%r4` go to
/// `out[4 t..4 t + 4]`, and the shared bytes after the body to `out[128..256]`.
fn run(body: &str, init: &[u8]) -> Result<Vec<u32>, String> {
    let src = format!(
        ".version 8.7\n.target sm_100a\n.address_size 64\n\
         .visible .entry k(.param .u64 out, .param .u64 inp) {{\n\
         .reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p;\n\
         .shared .align 16 .b8 sm[512];\n\
         ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [inp];\n\
         mov.u32 %r10, %tid.x; mov.u32 %r11, sm;\n\
         shl.b32 %r12, %r10, 4; add.u32 %r9, %r11, %r12;\n\
         ld.global.v4.u32 {{%r1, %r2, %r3, %r4}}, [%rd2+0];\n\
         mul.wide.u32 %rd3, %r10, 16; add.s64 %rd4, %rd2, %rd3;\n\
         ld.global.v4.u32 {{%r1, %r2, %r3, %r4}}, [%rd4];\n\
         st.shared.v4.u32 [%r9], {{%r1, %r2, %r3, %r4}};\n\
         bar.warp.sync 0xffffffff;\n\
         mov.u32 %r1, 0; mov.u32 %r2, 0; mov.u32 %r3, 0; mov.u32 %r4, 0;\n\
         {body}\n\
         bar.warp.sync 0xffffffff;\n\
         mul.wide.u32 %rd5, %r10, 16; add.s64 %rd6, %rd1, %rd5;\n\
         st.global.v4.u32 [%rd6], {{%r1, %r2, %r3, %r4}};\n\
         ld.shared.v4.u32 {{%r5, %r6, %r7, %r8}}, [%r9];\n\
         st.global.v4.u32 [%rd6+512], {{%r5, %r6, %r7, %r8}};\n\
         ret; }}\n"
    );
    let m = ptx_ir_text::parse(&src).map_err(|e| e.to_string())?;
    let p = Program::load(&m).map_err(|e| e.to_string())?;
    let o = p
        .launch("k")
        .block([32, 1, 1])
        .args(vec![Arg::Buffer(vec![0; 1024]), Arg::Buffer(init.to_vec())])
        .run()
        .map_err(|f| f.error.to_string())?;
    Ok(o.buffers[0]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

/// Row `i` byte `k` = `16 i + k`.
fn ramp() -> Vec<u8> {
    (0..512).map(|v| v as u8).collect()
}

#[test]
fn m16n16_trans_gives_four_columns_of_two_rows() {
    let out = run(
        "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%r9];",
        &ramp(),
    )
    .unwrap();
    let at = |t: usize| (out[4 * t], out[4 * t + 1]);
    assert_eq!(at(0), (0x3020_1000, 0x3828_1808));
    assert_eq!(at(5), (0x7161_5141, 0x7969_5949));
    assert_eq!(at(31), (0xf7e7_d7c7, 0xffef_dfcf));
}

#[test]
fn m8n16_unpacks_four_bit_elements_into_bytes() {
    // Row 1's data bytes 10 32 54 76 98 ba dc fe hold elements 0..15 = 0x0..0xf.
    let mut init = ramp();
    init[16..24].copy_from_slice(&[0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe]);
    let out = run(
        "ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b4x16_p64 {%r1}, [%r9];",
        &init,
    )
    .unwrap();
    assert_eq!(out[4 * 5], 0x0706_0504); // thread 5: row 1, elements 4..7
                                         // Six-bit elements straddle bytes: 16 elements of value k from bit 6k.
    let mut init = ramp();
    let mut packed: u128 = 0;
    for k in 0..16u128 {
        packed |= (k + 40) << (6 * k);
    }
    init[16..28].copy_from_slice(&packed.to_le_bytes()[..12]);
    let out = run(
        "ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b6x16_p32 {%r1}, [%r9];",
        &init,
    )
    .unwrap();
    assert_eq!(out[4 * 7], u32::from_le_bytes([52, 53, 54, 55])); // row 1, elements 12..15
}

#[test]
fn stmatrix_m16n8_trans_stores_the_accumulator_fragment_by_column() {
    // Thread t's byte c is t * 4 + c; it goes to row 2q + c % 2, byte g + 8 (c / 2).
    let out = run(
        "mul.lo.u32 %r5, %r10, 4; mov.u32 %r1, 0x03020100; add.u32 %r1, %r1, %r5;\n\
         mul.lo.u32 %r6, %r5, 0x01010101; mov.u32 %r1, 0x03020100; add.u32 %r1, %r1, %r6;\n\
         stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [%r9], {%r1};\n\
         mov.u32 %r1, 0;",
        &[0u8; 512],
    )
    .unwrap();
    let shared = |row: usize, k: usize| (out[128 + 4 * row + k / 4] >> (8 * (k % 4))) as u8;
    for t in 0..32 {
        let (g, q) = (t / 4, t % 4);
        for c in 0..4 {
            assert_eq!(
                shared(2 * q + c % 2, g + 8 * (c / 2)) as usize,
                4 * t + c,
                "t {t} c {c}"
            );
        }
    }
}

#[test]
fn undefined_combinations_are_reported() {
    // m8n16.x1 fills one register.
    let e = run(
        "ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b4x16_p64 {%r1, %r2}, [%r9];",
        &ramp(),
    )
    .unwrap_err();
    assert!(e.contains("registers"), "{e}");
}
