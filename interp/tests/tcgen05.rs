//! Tensor Memory data movement (ISA-derived, not hardware-checked): `tcgen05.ld`/`st` in every
//! shape against the layouts of `exec/tcgen05.rs`, `.pack::16b`, `shift`, `commit`, and what is
//! reported instead of computing.

use ptx_ir_interp::{Arg, Program};

/// One warp (or `warps`): warp 0 allocates 32 columns, everyone reads the address into `%r1`,
/// runs `body`, stores `%r10..%r17` of each thread to `out`, and warp 0 frees the columns.
fn run(body: &str, warps: u32) -> Result<Vec<u32>, String> {
    let src = format!(
        ".version 8.7\n.target sm_100a\n.address_size 64\n\
         .visible .entry k(.param .u64 out) {{\n\
         .reg .b32 %r<32>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n\
         .shared .align 8 .b32 taddr; .shared .align 8 .b64 bar;\n\
         .shared .align 1024 .b8 smbuf[2048];\n\
         ld.param.u64 %rd1, [out];\n\
         mov.u32 %r20, %tid.x; shr.u32 %r21, %r20, 5; and.b32 %r22, %r20, 31;\n\
         setp.eq.u32 %p1, %r21, 0;\n\
         @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [taddr], 32;\n\
         bar.sync 0;\n\
         ld.shared.u32 %r1, [taddr];\n\
         mov.u32 %r10, 0; mov.u32 %r11, 0; mov.u32 %r12, 0; mov.u32 %r13, 0;\n\
         mov.u32 %r14, 0; mov.u32 %r15, 0; mov.u32 %r16, 0; mov.u32 %r17, 0;\n\
         {body}\n\
         mul.wide.u32 %rd2, %r20, 32; add.s64 %rd3, %rd1, %rd2;\n\
         st.global.v4.u32 [%rd3], {{%r10, %r11, %r12, %r13}};\n\
         st.global.v4.u32 [%rd3+16], {{%r14, %r15, %r16, %r17}};\n\
         bar.sync 0;\n\
         @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 32;\n\
         @%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n\
         ret; }}\n"
    );
    let m = ptx_ir_text::parse(&src).map_err(|e| e.to_string())?;
    let p = Program::load(&m).map_err(|e| e.to_string())?;
    let o = p
        .launch("k")
        .block([32 * warps, 1, 1])
        .args(vec![Arg::Buffer(vec![0; 32 * 32 * warps as usize])])
        .run()
        .map_err(|f| f.error.to_string())?;
    Ok(o.buffers[0]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

/// Fills columns 0..8 of lanes 0..32 with `16 lane + column` (32x32b, one lane per thread).
const FILL: &str = "shl.b32 %r2, %r22, 4;\n\
    add.u32 %r3, %r2, 1; add.u32 %r4, %r2, 2; add.u32 %r5, %r2, 3; add.u32 %r6, %r2, 4;\n\
    add.u32 %r7, %r2, 5; add.u32 %r8, %r2, 6; add.u32 %r9, %r2, 7;\n\
    tcgen05.st.sync.aligned.32x32b.x8.b32 [%r1], {%r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9};\n\
    tcgen05.wait::st.sync.aligned;\n";

/// A shape's (lane, column) of register `r` of thread `t`.
type Cell = fn(u32, u32) -> (u32, u32);

fn lanes_of(out: &[u32], t: usize, n: usize) -> Vec<u32> {
    out[8 * t..8 * t + n].to_vec()
}

#[test]
fn every_shape_reads_its_fragment() {
    let cases: [(&str, usize, Cell); 4] = [
        ("16x64b.x2", 2, |t, r| {
            ((t >> 2) + 8 * (t & 1), 2 * r + ((t >> 1) & 1))
        }),
        ("16x128b.x1", 2, |t, r| {
            ((t >> 2) + 8 * (r & 1), 4 * (r >> 1) + (t & 3))
        }),
        ("16x256b.x1", 4, |t, r| {
            (
                (t >> 2) + 8 * ((r >> 1) & 1),
                8 * (r >> 2) + 2 * (t & 3) + (r & 1),
            )
        }),
        ("32x32b.x4", 4, |t, r| (t, r)),
    ];
    for (shape, n, cell) in cases {
        let dst: Vec<String> = (0..n).map(|r| format!("%r{}", 10 + r)).collect();
        let body = format!(
            "{FILL}tcgen05.ld.sync.aligned.{shape}.b32 {{{}}}, [%r1];\ntcgen05.wait::ld.sync.aligned;",
            dst.join(", ")
        );
        let out = run(&body, 1).unwrap();
        for t in 0..32u32 {
            let want: Vec<u32> = (0..n as u32)
                .map(|r| {
                    let (l, c) = cell(t, r);
                    16 * l + c
                })
                .collect();
            assert_eq!(lanes_of(&out, t as usize, n), want, "{shape} thread {t}");
        }
    }
    // 16x32bx2 with a column offset of 4 for the upper 16 threads.
    let out = run(
        &format!("{FILL}tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {{%r10, %r11}}, [%r1], 4;"),
        1,
    )
    .unwrap();
    assert_eq!(lanes_of(&out, 3, 2), vec![16 * 3, 16 * 3 + 1]);
    assert_eq!(lanes_of(&out, 19, 2), vec![16 * 3 + 4, 16 * 3 + 5]);
}

#[test]
fn pack_takes_the_low_halves_of_two_columns() {
    let out = run(
        "mov.u32 %r2, 0xbbbbaaaa;\n\
         tcgen05.st.sync.aligned.32x32b.x1.unpack::16b.b32 [%r1], {%r2};\n\
         tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r10, %r11}, [%r1];\n\
         tcgen05.ld.sync.aligned.32x32b.x1.pack::16b.b32 {%r12}, [%r1];",
        1,
    )
    .unwrap();
    assert_eq!(lanes_of(&out, 7, 3), vec![0xaaaa, 0xbbbb, 0xbbbb_aaaa]);
}

#[test]
fn shift_moves_rows_down_and_commit_arrives() {
    let out = run(
        &format!(
            "{FILL}setp.eq.u32 %p2, %r22, 0;\n\
             tcgen05.shift.cta_group::1.down [%r1];\n\
             tcgen05.ld.sync.aligned.32x32b.x1.b32 {{%r10}}, [%r1];\n\
             mov.u32 %r5, bar;\n\
             @%p2 mbarrier.init.shared.b64 [%r5], 1;\n\
             @%p2 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r5];\n\
             @%p2 mbarrier.test_wait.parity.shared.b64 %p3, [%r5], 0;\n\
             selp.u32 %r11, 1, 0, %p3;"
        ),
        1,
    )
    .unwrap();
    assert_eq!(out[0], 0, "lane 0 keeps its row");
    assert_eq!(out[8 * 5], 16 * 4, "lane 5 holds lane 4's old row");
    assert_eq!(out[1], 1, "the mbarrier phase completed");
}

#[test]
fn misuse_is_reported() {
    // A column past the allocation.
    let e = run(
        "add.u32 %r2, %r1, 32;\ntcgen05.ld.sync.aligned.32x32b.x1.b32 {%r10}, [%r2];",
        1,
    )
    .unwrap_err();
    assert!(e.contains("no live tcgen05.alloc covers"), "{e}");
    // Warp 1 addressing lanes 0..31.
    let e = run("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r10}, [%r1];", 2).unwrap_err();
    assert!(e.contains("reaches lanes 32..63 only"), "{e}");
    // The register count of the shape.
    let e = run("tcgen05.ld.sync.aligned.16x128b.x1.b32 {%r10}, [%r1];", 1).unwrap_err();
    assert!(e.contains("2 registers per thread"), "{e}");
}

/// Fills `smbuf` with byte `i % 251` at offset `i` (every thread 16 bytes), then thread 0 copies
/// with `cp` from a no-swizzle descriptor whose rows are 16 bytes apart; each warp loads its
/// quarter's first four columns into `%r10..%r13`.
fn copy(cp: &str) -> Vec<u32> {
    let body = format!(
        "mov.u32 %r2, smbuf; shl.b32 %r3, %r20, 4; add.u32 %r4, %r2, %r3;\n\
         mov.u32 %r6, 0;\n\
         LFILL:\n\
         add.u32 %r7, %r3, %r6; rem.u32 %r8, %r7, 251;\n\
         add.u32 %r9, %r4, %r6; st.shared.u8 [%r9], %r8;\n\
         add.u32 %r6, %r6, 1; setp.lt.u32 %p2, %r6, 16; @%p2 bra LFILL;\n\
         bar.sync 0;\n\
         shr.u32 %r5, %r2, 4; cvt.u64.u32 %rd4, %r5; or.b64 %rd4, %rd4, 0x4000800000000;\n\
         setp.eq.u32 %p3, %r20, 0;\n\
         @%p3 {cp} [%r1], %rd4;\n\
         bar.sync 0;\n\
         shl.b32 %r5, %r21, 21; add.u32 %r6, %r1, %r5;\n\
         tcgen05.ld.sync.aligned.32x32b.x4.b32 {{%r10, %r11, %r12, %r13}}, [%r6];"
    );
    run(&body, 4).unwrap()
}

fn word_at(row: u32, c: u32) -> u32 {
    u32::from_le_bytes(std::array::from_fn(|b| {
        ((16 * row + 4 * c + b as u32) % 251) as u8
    }))
}

#[test]
fn cp_fills_lanes_from_a_descriptor() {
    let out = copy("tcgen05.cp.cta_group::1.128x128b");
    for t in [0u32, 5, 37, 127] {
        assert_eq!(
            lanes_of(&out, t as usize, 4),
            (0..4).map(|c| word_at(t, c)).collect::<Vec<_>>(),
            "lane {t}"
        );
    }
    // 32 rows multicast to every quarter.
    let out = copy("tcgen05.cp.cta_group::1.32x128b.warpx4");
    for t in [3u32, 35, 67, 99] {
        assert_eq!(
            lanes_of(&out, t as usize, 4),
            (0..4).map(|c| word_at(t % 32, c)).collect::<Vec<_>>(),
            "lane {t}"
        );
    }
}

/// `tcgen05.ld.red` (sm_101a/sm_110a): each thread's loaded columns reduced into `redval`,
/// with `.abs` and `.NaN` on `f32` and the integer types' own order.
#[test]
fn ld_red_reduces_each_threads_columns() {
    // Columns 0..4 of lane t: -t, 1.5, 0.25 (NaN in lane 5), -3.
    let fill = "cvt.rn.f32.u32 %f1, %r22; neg.f32 %f1, %f1; mov.b32 %r2, %f1;\n\
        mov.b32 %r3, 0f3FC00000; mov.b32 %r4, 0f3E800000; mov.b32 %r5, 0fC0400000;\n\
        setp.eq.u32 %p2, %r22, 5; @%p2 mov.b32 %r4, 0f7FC00001;\n\
        tcgen05.st.sync.aligned.32x32b.x4.b32 [%r1], {%r2, %r3, %r4, %r5};\n\
        tcgen05.wait::st.sync.aligned;\n";
    let col = |t: u32| -> [u32; 4] {
        [
            (-(t as f32)).to_bits(),
            1.5f32.to_bits(),
            if t == 5 {
                0x7fc0_0001
            } else {
                0.25f32.to_bits()
            },
            (-3.0f32).to_bits(),
        ]
    };
    type Want = fn(&[u32]) -> u32;
    let cases: [(&str, Want); 5] = [
        ("min.f32", |v| {
            v.iter()
                .map(|b| f32::from_bits(*b))
                .filter(|f| !f.is_nan())
                .fold(f32::INFINITY, f32::min)
                .to_bits()
        }),
        ("max.abs.f32", |v| {
            v.iter()
                .map(|b| f32::from_bits(*b).abs())
                .filter(|f| !f.is_nan())
                .fold(0.0, f32::max)
                .to_bits()
        }),
        ("max.NaN.f32", |v| {
            if v.iter().any(|b| f32::from_bits(*b).is_nan()) {
                0x7fff_ffff
            } else {
                v.iter()
                    .map(|b| f32::from_bits(*b))
                    .fold(f32::NEG_INFINITY, f32::max)
                    .to_bits()
            }
        }),
        ("u32.max", |v| *v.iter().max().unwrap()),
        ("min.s32", |v| *v.iter().min_by_key(|b| **b as i32).unwrap()),
    ];
    for (suffix, want) in cases {
        let body = format!(
            ".reg .f32 %f<4>;\n{fill}\
             tcgen05.ld.red.sync.aligned.32x32b.x4.{suffix} {{%r10, %r11, %r12, %r13}}, %r14, [%r1];\n\
             tcgen05.wait::ld.sync.aligned;\n"
        );
        let out = run(&body, 1).unwrap();
        for t in 0..32u32 {
            let c = col(t);
            assert_eq!(
                lanes_of(&out, t as usize, 4),
                c.to_vec(),
                "{suffix} lane {t}"
            );
            assert_eq!(
                out[8 * t as usize + 4],
                want(&c),
                "{suffix} redval of lane {t}"
            );
        }
    }
    // 16x32bx2: thread t reads lane t % 16, columns from 2 (t / 16) on.
    let body = format!(
        ".reg .f32 %f<4>;\n{fill}\
         tcgen05.ld.red.sync.aligned.16x32bx2.x2.max.f32 {{%r10, %r11}}, %r14, [%r1], 2;\n"
    );
    let out = run(&body, 1).unwrap();
    for t in 0..32u32 {
        let c = col(t % 16);
        let pair = &c[2 * (t / 16) as usize..2 * (t / 16) as usize + 2];
        let m = pair
            .iter()
            .map(|b| f32::from_bits(*b))
            .filter(|f| !f.is_nan())
            .fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(out[8 * t as usize + 4], m.to_bits(), "16x32bx2 lane {t}");
    }
    let err = run(
        &format!("{fill}tcgen05.ld.red.sync.aligned.32x32b.x1.min.u32 {{%r10}}, %r14, [%r1];\n"),
        1,
    );
    assert!(err.is_err(), "{err:?}");
}
