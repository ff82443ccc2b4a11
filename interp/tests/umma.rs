//! `tcgen05.mma` (ISA-derived, not hardware-checked: no Blackwell GPU here). Each case builds
//! A and B in shared memory (or A in Tensor Memory) with the canonical layouts written out
//! here from the ISA (9.7.16.3), issues one MMA from one thread, reads Tensor Memory back and
//! compares every element of D with an exact reference (inputs chosen so that every sum is
//! exact in `f32`, where the interpreter's tensor-core model must give it bit for bit). One
//! case checks the `.kind::f16` numerics against `mma.sync` (the H100-measured model) on the
//! same matrices with full-range values.

use ptx_ir_interp::{Arg, Checks, Program};

mod common;

use common::{value as mini_value, Rng};

const SMEM: usize = 65536;
/// Tensor Memory columns the harness fills and reads back.
const NC: usize = 288;

/// Descriptor of a matrix at byte `start` of the image: LBO, SBO, swizzle code (bits 61-63)
/// and the fixed `0b001` of bits 46-48.
fn desc(start: usize, lbo: usize, sbo: usize, swizzle: u64) -> u64 {
    (start as u64 >> 4)
        | ((lbo as u64 >> 4) << 16)
        | ((sbo as u64 >> 4) << 32)
        | (1 << 46)
        | (swizzle << 61)
}

/// K-major canonical layout without swizzle: 8 x 16-byte core matrices, LBO between the
/// K-adjacent ones, SBO between 8-row groups (`T = 16 / size` elements a core-matrix row).
fn kmajor(mn: usize, k: usize, size: usize, lbo: usize, sbo: usize) -> usize {
    let t = 16 / size;
    (mn % 8) * 16 + (mn / 8) * sbo + (k % t) * size + (k / t) * lbo
}

/// One CTA's inputs: its shared-memory image and Tensor Memory (128 lanes x NC columns).
struct Cta {
    smem: Vec<u8>,
    tmem: Vec<u32>,
}

impl Cta {
    fn new() -> Cta {
        Cta {
            smem: vec![0; SMEM],
            tmem: vec![0; 128 * NC],
        }
    }
    fn put(&mut self, at: usize, v: u64, bytes: usize) {
        for b in 0..bytes {
            self.smem[at + b] = (v >> (8 * b)) as u8;
        }
    }
}

/// Runs `inst` (operands: `[%r22]` D at column 0, `%rd10`/`%rd11` the A/B descriptors (a
/// descriptor with bit 52 set has its LBO field, an address then, moved with the image too),
/// `%r23` the instruction descriptor, `[%r24]` A, `[%r25]` metadata, `[%r26]`/`[%r27]`
/// scale factors at columns `cols`, `%p4` enable-input-d) on one CTA or a pair; returns each
/// CTA's Tensor Memory after it.
fn run(
    inst: &str,
    ctas: &[Cta],
    descs: [u64; 2],
    idesc: u32,
    cols: [u32; 4],
    enable: bool,
) -> Result<Vec<Vec<u32>>, String> {
    let pair = ctas.len() == 2;
    let cg = if pair { 2 } else { 1 };
    let commit = if pair {
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [bar], %h1;"
    } else {
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar];"
    };
    let cluster = if pair { ".reqnctapercluster 2\n" } else { "" };
    let src = format!(
        ".version 8.8\n.target sm_100a\n.address_size 64\n\
         .visible .entry k(.param .u64 s_in, .param .u64 t_in, .param .u64 out, .param .u64 prm)\n{cluster}{{\n\
         .reg .b32 %r<64>; .reg .b64 %rd<32>; .reg .pred %p<10>; .reg .b16 %h<4>;\n\
         .shared .align 1024 .b8 sm[{SMEM}]; .shared .align 8 .b32 taddr; .shared .align 8 .b64 bar;\n\
         ld.param.u64 %rd1, [s_in]; ld.param.u64 %rd2, [t_in]; ld.param.u64 %rd3, [out]; ld.param.u64 %rd4, [prm];\n\
         mov.u32 %r1, %tid.x; shr.u32 %r2, %r1, 5; mov.u32 %r9, %ctaid.x;\n\
         setp.eq.u32 %p1, %r2, 0;\n\
         @%p1 tcgen05.alloc.cta_group::{cg}.sync.aligned.shared::cta.b32 [taddr], 512;\n\
         mul.wide.u32 %rd20, %r9, {SMEM}; add.s64 %rd1, %rd1, %rd20;\n\
         mul.wide.u32 %rd20, %r9, {tb}; add.s64 %rd2, %rd2, %rd20; add.s64 %rd3, %rd3, %rd20;\n\
         mov.u32 %r3, %r1;\n\
         L1: setp.ge.u32 %p2, %r3, {sw}; @%p2 bra L1d;\n\
         mul.wide.u32 %rd5, %r3, 4; add.s64 %rd6, %rd1, %rd5; ld.global.u32 %r4, [%rd6];\n\
         mov.u32 %r5, sm; shl.b32 %r6, %r3, 2; add.u32 %r5, %r5, %r6; st.shared.u32 [%r5], %r4;\n\
         add.u32 %r3, %r3, 128; bra L1;\n\
         L1d: fence.proxy.async.shared::cta;\n\
         setp.eq.u32 %p3, %r1, 0;\n\
         @%p3 mbarrier.init.shared.b64 [bar], 1;\n\
         fence.mbarrier_init.release.cluster;\n\
         tcgen05.fence::before_thread_sync; bar.sync 0; {csync} tcgen05.fence::after_thread_sync;\n\
         ld.shared.u32 %r10, [taddr];\n\
         shl.b32 %r11, %r2, 21; add.u32 %r12, %r10, %r11;\n\
         mov.u32 %r13, 0;\n\
         L2: setp.ge.u32 %p2, %r13, {NC}; @%p2 bra L2d;\n\
         mad.lo.u32 %r14, %r1, {NC}, %r13; mul.wide.u32 %rd7, %r14, 4; add.s64 %rd8, %rd2, %rd7; ld.global.u32 %r15, [%rd8];\n\
         add.u32 %r16, %r12, %r13; tcgen05.st.sync.aligned.32x32b.x1.b32 [%r16], {{%r15}};\n\
         add.u32 %r13, %r13, 1; bra L2;\n\
         L2d: tcgen05.wait::st.sync.aligned; tcgen05.fence::before_thread_sync;\n\
         bar.sync 0; {csync} tcgen05.fence::after_thread_sync;\n\
         ld.global.u64 %rd10, [%rd4]; ld.global.u64 %rd11, [%rd4+8]; ld.global.u32 %r23, [%rd4+16];\n\
         ld.global.u32 %r30, [%rd4+20]; ld.global.u32 %r31, [%rd4+24]; ld.global.u32 %r32, [%rd4+28]; ld.global.u32 %r33, [%rd4+32];\n\
         ld.global.u32 %r34, [%rd4+36]; setp.ne.u32 %p4, %r34, 0;\n\
         mov.u32 %r35, sm; shr.u32 %r35, %r35, 4; cvt.u64.u32 %rd12, %r35; add.s64 %rd10, %rd10, %rd12; add.s64 %rd11, %rd11, %rd12;\n\
         shl.b64 %rd13, %rd12, 16;\n\
         and.b64 %rd14, %rd10, 4503599627370496; setp.ne.u64 %p8, %rd14, 0; @%p8 add.s64 %rd10, %rd10, %rd13;\n\
         and.b64 %rd14, %rd11, 4503599627370496; setp.ne.u64 %p8, %rd14, 0; @%p8 add.s64 %rd11, %rd11, %rd13;\n\
         mov.u32 %r22, %r10; add.u32 %r24, %r10, %r30; add.u32 %r25, %r10, %r31; add.u32 %r26, %r10, %r32; add.u32 %r27, %r10, %r33;\n\
         mov.u16 %h1, 3;\n\
         setp.eq.u32 %p5, %r9, 0; and.pred %p6, %p3, %p5;\n\
         @%p6 {inst}\n\
         @%p6 {commit}\n\
         L3: mbarrier.try_wait.parity.shared.b64 %p7, [bar], 0; @!%p7 bra L3;\n\
         tcgen05.fence::after_thread_sync;\n\
         mov.u32 %r13, 0;\n\
         L4: setp.ge.u32 %p2, %r13, {NC}; @%p2 bra L4d;\n\
         add.u32 %r16, %r12, %r13; tcgen05.ld.sync.aligned.32x32b.x1.b32 {{%r15}}, [%r16]; tcgen05.wait::ld.sync.aligned;\n\
         mad.lo.u32 %r14, %r1, {NC}, %r13; mul.wide.u32 %rd7, %r14, 4; add.s64 %rd8, %rd3, %rd7; st.global.u32 [%rd8], %r15;\n\
         add.u32 %r13, %r13, 1; bra L4;\n\
         L4d: tcgen05.fence::before_thread_sync; bar.sync 0; {csync}\n\
         @%p1 tcgen05.dealloc.cta_group::{cg}.sync.aligned.b32 %r10, 512;\n\
         @%p1 tcgen05.relinquish_alloc_permit.cta_group::{cg}.sync.aligned;\n\
         ret; }}\n",
        tb = 4 * 128 * NC,
        sw = SMEM / 4,
        csync = if pair { "barrier.cluster.arrive; barrier.cluster.wait;" } else { "" },
    );
    let m = ptx_ir_text::parse(&src).map_err(|e| e.to_string())?;
    let p = Program::load(&m).map_err(|e| e.to_string())?;
    let smem: Vec<u8> = ctas.iter().flat_map(|c| c.smem.iter().copied()).collect();
    let tmem: Vec<u8> = ctas
        .iter()
        .flat_map(|c| c.tmem.iter().flat_map(|w| w.to_le_bytes()))
        .collect();
    let mut prm = Vec::new();
    prm.extend_from_slice(&descs[0].to_le_bytes());
    prm.extend_from_slice(&descs[1].to_le_bytes());
    prm.extend_from_slice(&idesc.to_le_bytes());
    for c in cols {
        prm.extend_from_slice(&c.to_le_bytes());
    }
    prm.extend_from_slice(&(enable as u32).to_le_bytes());
    let n = ctas.len() as u32;
    let mut launch = p.launch("k");
    launch = launch.grid([n, 1, 1]).block([128, 1, 1]);
    if pair {
        launch = launch.cluster([2, 1, 1]);
    }
    let o = launch
        .args(vec![
            Arg::Buffer(smem),
            Arg::Buffer(tmem.clone()),
            Arg::Buffer(vec![0; tmem.len()]),
            Arg::Buffer(prm),
        ])
        .checks(Checks::all())
        .run()
        .map_err(|f| f.error.to_string())?;
    // The harness orders every access (the operands written before a barrier, Tensor Memory
    // read after the commit's mbarrier): the checks must find nothing.
    assert!(o.findings.is_empty(), "{:?}", o.findings);
    let words: Vec<u32> = o.buffers[2]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    Ok(words.chunks(128 * NC).map(|c| c.to_vec()).collect())
}

/// The instruction descriptor of the dense, non-block-scaled kinds (Table 42).
fn idesc(dtype: u32, atype: u32, btype: u32, m: usize, n: usize) -> u32 {
    (dtype << 4)
        | (atype << 7)
        | (btype << 10)
        | (((n >> 3) as u32) << 17)
        | (((m >> 4) as u32) << 24)
}

fn f16(v: f64) -> u64 {
    // Small exact values only.
    let f = v as f32;
    let b = f.to_bits();
    if f == 0.0 {
        return ((b >> 16) & 0x8000) as u64;
    }
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    assert!((1..31).contains(&e), "{v} is not a normal f16");
    ((b >> 16) & 0x8000) as u64 | ((e as u64) << 10) | ((b >> 13) & 0x3ff) as u64
}

/// D[ml][n]'s Tensor Memory cell for the layouts of 9.7.16.10.5 (rows of one CTA).
fn d_cell(layout: char, ml: usize, n: usize, nn: usize) -> (usize, usize) {
    match layout {
        'F' => (ml % 16 + 32 * (ml / 16), n),
        'B' | 'E' => (ml + 64 * (n / (nn / 2)), n % (nn / 2)),
        'G' => (ml + 32 * (n / (nn / 4)), n % (nn / 4)),
        _ => (ml, n),
    }
}

fn check_d(
    out: &[u32],
    layout: char,
    m: usize,
    n: usize,
    want: impl Fn(usize, usize) -> u32,
    what: &str,
) {
    for ml in 0..m {
        for j in 0..n {
            let (lane, col) = d_cell(layout, ml, j, n);
            assert_eq!(
                out[lane * NC + col],
                want(ml, j),
                "{what}: D[{ml}][{j}] (lane {lane}, column {col})"
            );
        }
    }
}

/// `.kind::f16` M = 128, N = 64, A and B K-major without swizzle: D = A B + C exactly, lanes
/// named by `disable-output-lane` keep C, and `enable-input-d` false ignores C.
#[test]
fn f16_dense_sums_exactly() {
    let (m, n, k) = (128, 64, 16);
    let mut r = Rng(11);
    let a: Vec<f64> = (0..m * k).map(|_| r.int(-4, 4) as f64 * 0.5).collect();
    let b: Vec<f64> = (0..k * n).map(|_| r.int(-4, 4) as f64).collect();
    let c: Vec<f32> = (0..m * n).map(|_| r.int(-100, 100) as f32 * 0.25).collect();
    let mut cta = Cta::new();
    let (a0, b0, lbo, sbo) = (0, 8192, 128, 256);
    for mn in 0..m {
        for kk in 0..k {
            cta.put(a0 + kmajor(mn, kk, 2, lbo, sbo), f16(a[mn * k + kk]), 2);
        }
    }
    for j in 0..n {
        for kk in 0..k {
            cta.put(b0 + kmajor(j, kk, 2, lbo, sbo), f16(b[kk * n + j]), 2);
        }
    }
    for ml in 0..m {
        for j in 0..n {
            cta.tmem[ml * NC + j] = c[ml * n + j].to_bits();
        }
    }
    let descs = [desc(a0, lbo, sbo, 0), desc(b0, lbo, sbo, 0)];
    let id = idesc(1, 0, 0, m, n);
    let inst =
        "tcgen05.mma.cta_group::1.kind::f16 [%r22], %rd10, %rd11, %r23, {0, 0x20, 0, 0}, %p4;";
    let want = |ml: usize, j: usize, acc: bool| {
        let mut s = if acc { c[ml * n + j] as f64 } else { 0.0 };
        for kk in 0..k {
            s += a[ml * k + kk] * b[kk * n + j];
        }
        assert_eq!(s as f32 as f64, s);
        (s as f32).to_bits()
    };
    for enable in [true, false] {
        let out = run(inst, &[cta_clone(&cta)], descs, id, [0; 4], enable).unwrap();
        check_d(
            &out[0],
            'D',
            m,
            n,
            |ml, j| {
                if ml == 37 {
                    c[ml * n + j].to_bits()
                } else {
                    want(ml, j, enable)
                }
            },
            "f16",
        );
    }
}

fn cta_clone(c: &Cta) -> Cta {
    Cta {
        smem: c.smem.clone(),
        tmem: c.tmem.clone(),
    }
}

/// The `.kind::f16` numerics against `mma.sync.m16n8k16` (the model measured on the H100) on
/// the same full-range matrices: every element of D agrees bit for bit.
#[test]
fn f16_agrees_with_mma_sync() {
    let (m, n, k) = (64, 8, 16);
    let mut r = Rng(5);
    // Random f16 of exponents -8..8, both signs.
    let h = |r: &mut Rng| {
        ((r.next() & 0x8000) | ((r.int(7, 23) as u64) << 10) | (r.next() & 0x3ff)) as u16 as u64
    };
    let a: Vec<u64> = (0..m * k).map(|_| h(&mut r)).collect();
    let b: Vec<u64> = (0..k * n).map(|_| h(&mut r)).collect();
    let c: Vec<u32> = (0..m * n)
        .map(|_| (r.next() as f32 / u64::MAX as f32 * 64.0 - 32.0).to_bits())
        .collect();
    let mut cta = Cta::new();
    let (lbo, sbo) = (128, 256);
    for mn in 0..m {
        for kk in 0..k {
            cta.put(kmajor(mn, kk, 2, lbo, sbo), a[mn * k + kk], 2);
        }
    }
    for j in 0..n {
        for kk in 0..k {
            cta.put(8192 + kmajor(j, kk, 2, lbo, sbo), b[kk * n + j], 2);
        }
    }
    for ml in 0..m {
        for j in 0..n {
            let (lane, col) = d_cell('F', ml, j, n);
            cta.tmem[lane * NC + col] = c[ml * n + j];
        }
    }
    let inst = "tcgen05.mma.cta_group::1.kind::f16 [%r22], %rd10, %rd11, %r23, %p4;";
    let out = run(
        inst,
        &[cta],
        [desc(0, lbo, sbo, 0), desc(8192, lbo, sbo, 0)],
        idesc(1, 0, 0, m, n),
        [0; 4],
        true,
    )
    .unwrap();
    // mma.sync on each 16-row block: fragments from PTX ISA 9.7.14.5.8.
    for blk in 0..m / 16 {
        let mut input = vec![0u32; 32 * 16];
        for lane in 0..32 {
            let (g, t) = (lane / 4, lane % 4);
            for i in 0..8 {
                let (row, col) = (g + 8 * ((i / 2) % 2), 2 * t + i % 2 + 8 * (i / 4));
                input[16 * lane + i / 2] |=
                    (a[(16 * blk + row) * k + col] as u32) << (16 * (i % 2));
            }
            for i in 0..4 {
                let (row, col) = (2 * t + i % 2 + 8 * (i / 2), g);
                input[16 * lane + 4 + i / 2] |= (b[row * n + col] as u32) << (16 * (i % 2));
            }
            for i in 0..4 {
                let (row, col) = (g + 8 * (i / 2), 2 * t + i % 2);
                input[16 * lane + 8 + i] = c[(16 * blk + row) * n + col];
            }
        }
        let src = ".version 8.7\n.target sm_90a\n.address_size 64\n\
             .visible .entry k(.param .u64 i, .param .u64 o) {\n\
             .reg .b32 %r<32>; .reg .b64 %rd<8>;\n\
             ld.param.u64 %rd1, [i]; ld.param.u64 %rd2, [o]; mov.u32 %r1, %tid.x;\n\
             mul.wide.u32 %rd3, %r1, 64; add.s64 %rd4, %rd1, %rd3;\n\
             ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4]; ld.global.v2.u32 {%r6, %r7}, [%rd4+16];\n\
             ld.global.v4.u32 {%r8, %r9, %r10, %r11}, [%rd4+32];\n\
             mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r12, %r13, %r14, %r15}, {%r2, %r3, %r4, %r5}, {%r6, %r7}, {%r8, %r9, %r10, %r11};\n\
             mul.wide.u32 %rd5, %r1, 16; add.s64 %rd6, %rd2, %rd5; st.global.v4.u32 [%rd6], {%r12, %r13, %r14, %r15};\n\
             ret; }\n";
        let md = ptx_ir_text::parse(src).unwrap();
        let p = Program::load(&md).unwrap();
        let bytes: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
        let o = p
            .launch("k")
            .block([32, 1, 1])
            .args(vec![Arg::Buffer(bytes), Arg::Buffer(vec![0; 512])])
            .run()
            .map_err(|f| f.error.to_string())
            .unwrap();
        for lane in 0..32 {
            let (g, t) = (lane / 4, lane % 4);
            for i in 0..4 {
                let (row, col) = (g + 8 * (i / 2), 2 * t + i % 2);
                let want = u32::from_le_bytes(
                    o.buffers[1][16 * lane + 4 * i..16 * lane + 4 * i + 4]
                        .try_into()
                        .unwrap(),
                );
                let (tl, tc) = d_cell('F', 16 * blk + row, col, n);
                assert_eq!(out[0][tl * NC + tc], want, "D[{}][{col}]", 16 * blk + row);
            }
        }
    }
}

/// A random code of type `t` whose value is 0 or of magnitude 1/4 .. 4, and its value.
fn code(r: &mut Rng, t: &str) -> (u64, f64) {
    loop {
        let (c, v) = match t {
            "f16" | "bf16" => {
                let v = r.int(-8, 8) as f64 * 0.5;
                let h = f16(v);
                (
                    if t == "bf16" {
                        ((v as f32).to_bits() >> 16) as u64
                    } else {
                        h
                    },
                    v,
                )
            }
            "tf32" => {
                let v = r.int(-16, 16) as f64 * 0.25;
                ((v as f32).to_bits() as u64, v)
            }
            "s8" => {
                let v = r.int(-128, 127);
                (v as u8 as u64, v as f64)
            }
            "u8" => {
                let v = r.int(0, 255);
                (v as u64, v as f64)
            }
            _ => {
                let (e, m, _) = common::format(t);
                let c = r.next() % (1 << (1 + e + m));
                (c, mini_value(t, c))
            }
        };
        if v == 0.0 || (0.25..=4.0).contains(&v.abs()) || t.starts_with('s') || t.starts_with('u') {
            return (c, v);
        }
    }
}

/// Bits of an element of `t` in shared memory (`Padded`: 16 to a 16-byte chunk).
fn smem_bits(t: &str, kind: &str) -> (usize, bool) {
    match t {
        "f16" | "bf16" => (16, false),
        "tf32" => (32, false),
        "e2m1" if kind.starts_with("mxf4") => (4, false),
        "e2m1" => (4, true),
        "e2m3" | "e3m2" => (6, true),
        _ => (8, false),
    }
}

/// Writes element (`mn`, `k`) K-major: without swizzle as [`kmajor`], with the 128-byte
/// swizzle at `(mn % 8) * 128 + (mn / 8) * sbo + shift + k * size`, chunk XOR `(a >> 7) & 7`;
/// with `next` (K = 96's absolute leading-dimension mode, PTX ISA 9.7.16.3.1.2) the bytes past
/// the 128-byte row go to the same row at `next` instead.
#[allow(clippy::too_many_arguments)]
fn put_elem(
    cta: &mut Cta,
    base: usize,
    mn: usize,
    k: usize,
    t: &str,
    kind: &str,
    c: u64,
    swz: bool,
    sbo: usize,
    (shift, next): (usize, Option<usize>),
) {
    let (w, padded) = smem_bits(t, kind);
    let lbo = 128;
    let byte_of = |kb: usize| {
        if swz {
            let at = shift + kb;
            let (band, off) = match next {
                Some(nb) if at >= 128 => (nb, at - 128),
                _ => (base, at),
            };
            let a = band + (mn % 8) * 128 + (mn / 8) * sbo + off;
            a ^ (((a >> 7) & 7) << 4)
        } else {
            base + kmajor(mn, kb, 1, lbo, sbo)
        }
    };
    if padded {
        let chunk = byte_of(16 * (k / 16));
        let bit = (k % 16) * w;
        let mut v = u16::from_le_bytes([cta.smem[chunk + bit / 8], cta.smem[chunk + bit / 8 + 1]]);
        v |= ((c as u16) & ((1 << w) - 1)) << (bit % 8);
        cta.smem[chunk + bit / 8..chunk + bit / 8 + 2].copy_from_slice(&v.to_le_bytes());
    } else if w == 4 {
        cta.smem[byte_of(k / 2)] |= ((c & 0xf) as u8) << (4 * (k % 2));
    } else {
        let size = w / 8;
        if swz {
            let a = byte_of(k * size);
            cta.put(a, c, size);
        } else {
            cta.put(base + kmajor(mn, k, size, lbo, sbo), c, size);
        }
    }
}

/// (column offset, byte) of scale factor `i` counted from byte 0 of a row's first word: four a
/// word, the next four `group` columns on (K = 96; CUTLASS's `tmem_sf_frg` tiling).
fn sf_place(i: usize, group: usize) -> (usize, usize) {
    ((i / 4) * group, i % 4)
}

/// One generated MMA.
#[derive(Clone)]
struct Spec {
    kind: &'static str,
    at: &'static str,
    bt: &'static str,
    /// idesc codes of A and B and D's type code.
    codes: (u32, u32, u32),
    m: usize,
    n: usize,
    pair: bool,
    ws: bool,
    sparse: bool,
    a_tmem: bool,
    swizzle: bool,
    /// (factors a row, ue4m3, SFA id, SFB id)
    scale: Option<(usize, bool, u64, u64)>,
    neg: (bool, bool),
    sat: bool,
    scale_d: u32,
    /// `.ws` zero-column mask descriptor.
    mask: Option<u64>,
    suffix: &'static str,
    /// `.kind::mxf4*` K = 96 (bit 31).
    k96: bool,
    /// Swizzled layouts: the descriptors' start 16-byte chunk in a 128-byte row, and whether
    /// bit 52 (absolute LBO) splits the rows there, the rest at A's 32768 and B's 49152.
    start: (usize, bool),
}

const BASE: Spec = Spec {
    kind: "f16",
    at: "f16",
    bt: "f16",
    codes: (0, 0, 1),
    m: 128,
    n: 32,
    pair: false,
    ws: false,
    sparse: false,
    a_tmem: false,
    swizzle: false,
    scale: None,
    neg: (false, false),
    sat: false,
    scale_d: 0,
    mask: None,
    suffix: "",
    k96: false,
    start: (0, false),
};

/// Builds the matrices, runs the instruction and checks every element of D against the exact
/// sum.
fn check(s: &Spec, seed: u64) {
    let mut r = Rng(seed);
    let kd = match s.kind {
        "f16" => 16,
        "tf32" => 8,
        "mxf4" | "mxf4nvf4" if s.k96 => 96,
        "mxf4" | "mxf4nvf4" => 64,
        _ => 32,
    };
    let k = if s.sparse { 2 * kd } else { kd };
    let (m, n) = (s.m, s.n);
    let mc = if s.pair { m / 2 } else { m };
    let layout = match (s.ws, s.pair, m) {
        (true, _, 32) => 'G',
        (true, _, 64) => 'E',
        (false, false, 64) => 'F',
        (false, true, 128) => 'B',
        _ => 'D',
    };
    let (chunk, unit) = match s.kind {
        "tf32" => (2, 1),
        "mxf4" | "mxf4nvf4" => (8, 2),
        _ => (4, 1),
    };
    // A (logical, zeros where sparse), its stored codes per row, and metadata nibbles.
    let mut a = vec![(0u64, 0f64); m * k];
    let mut stored: Vec<Vec<u64>> = vec![Vec::new(); m];
    let mut meta: Vec<Vec<u64>> = vec![Vec::new(); m];
    for i in 0..m {
        if s.sparse {
            for g in 0..k / chunk {
                let (p0, p1) = if s.kind == "tf32" {
                    let p = r.int(0, 1) as usize;
                    (p, p)
                } else {
                    let pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
                    pairs[r.int(0, 5) as usize]
                };
                meta[i].push(if s.kind == "tf32" {
                    if p0 == 0 {
                        0b0100
                    } else {
                        0b1110
                    }
                } else {
                    (p0 | (p1 << 2)) as u64
                });
                let ps: &[usize] = if s.kind == "tf32" { &[p0] } else { &[p0, p1] };
                for &p in ps {
                    for u in 0..unit {
                        let cv = code(&mut r, s.at);
                        a[i * k + g * chunk + p * unit + u] = cv;
                        stored[i].push(cv.0);
                    }
                }
            }
        } else {
            for kk in 0..k {
                let cv = code(&mut r, s.at);
                a[i * k + kk] = cv;
                stored[i].push(cv.0);
            }
        }
    }
    let bcols = n + if s.mask.is_some() { 32 } else { 0 };
    let b: Vec<(u64, f64)> = (0..k * bcols).map(|_| code(&mut r, s.bt)).collect();
    let int = s.kind == "i8";
    let c: Vec<f64> = (0..m * n)
        .map(|_| {
            if int {
                r.int(-1000, 1000) as f64
            } else {
                r.int(-64, 64) as f64 * 0.25
            }
        })
        .collect();
    let nsf = s.scale.map_or(1, |x| x.0);
    let sval = |c: u64, ue4m3: bool| {
        if ue4m3 {
            mini_value("ue4m3", c)
        } else {
            2f64.powi(c as i32 - 127)
        }
    };
    let scode = |r: &mut Rng, ue4m3: bool| {
        if ue4m3 {
            0x30 + r.next() % 0x10
        } else {
            125 + r.next() % 5
        }
    };
    let sfa: Vec<u64> = (0..m * nsf)
        .map(|_| scode(&mut r, s.scale.is_some_and(|x| x.1)))
        .collect();
    let sfb: Vec<u64> = (0..n * nsf)
        .map(|_| scode(&mut r, s.scale.is_some_and(|x| x.1)))
        .collect();
    // Column use in Tensor Memory: D 0..128, A 128.., metadata 192.., scales 224.., 256..
    let (acol, ecol, sacol, sbcol) = (128usize, 192usize, 224usize, 256usize);
    // B's rows of a sparse MMA are 64 bytes: four core matrices between 8-row groups.
    let (lbo, sbo) = (
        128,
        if s.swizzle {
            1024
        } else if s.sparse {
            512
        } else if s.k96 {
            // Three core matrices a row.
            384
        } else {
            256
        },
    );
    let (chunk0, split) = s.start;
    let (a_next, b_next) = if split {
        (Some(32768), Some(49152))
    } else {
        (None, None)
    };
    let ncta = if s.pair { 2 } else { 1 };
    let mut ctas: Vec<Cta> = (0..ncta).map(|_| Cta::new()).collect();
    let (a0, b0) = (0, 16384);
    for (h, cta) in ctas.iter_mut().enumerate() {
        for ml in 0..mc {
            let row = h * mc + ml;
            let (dlane, _) = d_cell(layout, ml, 0, n);
            if s.a_tmem {
                let cb = match (s.at, s.kind) {
                    ("f16" | "bf16", _) => 16,
                    ("tf32", _) => 32,
                    (_, "mxf4" | "mxf4nvf4") => 4,
                    _ => 8,
                };
                for (kk, &cv) in stored[row].iter().enumerate() {
                    let v = if cb == 8 && s.at == "e2m1" {
                        cv << 2
                    } else {
                        cv
                    };
                    let bit = kk * cb;
                    for copy in 0..if layout == 'B' { 2 } else { 1 } {
                        cta.tmem[(dlane + 64 * copy) * NC + acol + bit / 32] |=
                            (v as u32) << (bit % 32);
                    }
                }
            } else {
                for (kk, &cv) in stored[row].iter().enumerate() {
                    let at = (16 * chunk0, a_next);
                    put_elem(cta, a0, ml, kk, s.at, s.kind, cv, s.swizzle, sbo, at);
                }
            }
            if s.sparse {
                for (g, &nib) in meta[row].iter().enumerate() {
                    let kk = g * chunk;
                    let (lane, bit, col) = match s.kind {
                        "f16" => (
                            ml % 8 + 16 * (ml / 16) + 8 * (kk / 16),
                            kk % 16 + 16 * ((ml / 8) % 2),
                            ecol,
                        ),
                        "tf32" => (
                            ml % 8 + 16 * (ml / 16) + 8 * (kk / 8),
                            2 * (kk % 8 + 8 * ((ml / 8) % 2)),
                            ecol,
                        ),
                        "mxf4" | "mxf4nvf4" => (ml, (kk / 2) % 32, ecol + kk / 64),
                        _ => (ml, kk % 32, ecol + kk / 32),
                    };
                    cta.tmem[lane * NC + col] |= (nib as u32) << bit;
                }
            }
            if let Some((_, _, ida, _)) = s.scale {
                for q in 0..4 {
                    for j in 0..nsf {
                        let (dc, b) = sf_place(ida as usize + j, 4);
                        cta.tmem[(32 * q + ml % 32) * NC + sacol + ml / 32 + dc] |=
                            (sfa[row * nsf + j] as u32) << (8 * b);
                    }
                }
            }
            for j in 0..n {
                let (lane, col) = d_cell(layout, ml, j, n);
                let v = c[row * n + j];
                cta.tmem[lane * NC + col] = if int {
                    v as i32 as u32
                } else if s.codes.2 == 0 {
                    f16(v) as u32
                } else {
                    (v as f32).to_bits()
                };
            }
        }
        if let Some((_, _, _, idb)) = s.scale {
            let group = if n > 128 { 8 } else { 4 };
            for j in 0..n {
                for q in 0..4 {
                    for jj in 0..nsf {
                        let (dc, b) = sf_place(idb as usize + jj, group);
                        cta.tmem[(32 * q + j % 32) * NC + sbcol + j / 32 + dc] |=
                            (sfb[j * nsf + jj] as u32) << (8 * b);
                    }
                }
            }
        }
        // B: this CTA's columns (all of them without a pair).
        let cols: Vec<usize> = if s.pair {
            (h * n / 2..(h + 1) * n / 2).collect()
        } else {
            (0..bcols).collect()
        };
        for (jn, &j) in cols.iter().enumerate() {
            for kk in 0..k {
                put_elem(
                    cta,
                    b0,
                    jn,
                    kk,
                    s.bt,
                    s.kind,
                    b[kk * bcols + j].0,
                    s.swizzle,
                    sbo,
                    (16 * chunk0, b_next),
                );
            }
        }
    }
    // Descriptors.
    let sw = if s.swizzle { 2 } else { 0 };
    let with = |base: usize, next: Option<usize>| match next {
        Some(nb) => desc(base + 16 * chunk0, nb, sbo, sw) | 1 << 52,
        None => desc(base + 16 * chunk0, lbo, sbo, sw),
    };
    let descs = [with(a0, a_next), with(b0, b_next)];
    let (ac, bc, dc) = s.codes;
    let mut id = (ac << 7)
        | (bc << 10)
        | (((n >> 3) as u32) << 17)
        | ((s.neg.0 as u32) << 13)
        | ((s.neg.1 as u32) << 14);
    if let Some((_, ue4m3, ida, idb)) = s.scale {
        id |= (((m >> 7) as u32) << 27)
            | ((ida as u32) << 29)
            | ((idb as u32) << 4)
            | ((!ue4m3 as u32) << 23);
    } else {
        id |= (dc << 4) | (((m >> 4) as u32) << 24) | ((s.sat as u32) << 3);
    }
    if s.sparse {
        id |= 1 << 2;
    }
    if s.k96 {
        id |= 1 << 31;
    }
    if s.mask.is_some() {
        id |= 3 << 30; // shifts up to 32
    }
    // The instruction.
    let cg = if s.pair { 2 } else { 1 };
    let head = format!(
        "tcgen05.mma{}{}.cta_group::{cg}.kind::{}{}",
        if s.ws { ".ws" } else { "" },
        if s.sparse { ".sp" } else { "" },
        s.kind,
        s.suffix
    );
    let aop = if s.a_tmem { "[%r24]" } else { "%rd10" };
    let meta_op = if s.sparse { " [%r25]," } else { "" };
    let tail = if s.scale.is_some() {
        " [%r26], [%r27], %p4".to_string()
    } else if s.ws {
        match s.mask {
            Some(z) => format!(" %p4, {z}"),
            None => " %p4".to_string(),
        }
    } else if s.scale_d > 0 {
        format!(" %p4, {}", s.scale_d)
    } else {
        " %p4".to_string()
    };
    let inst = format!("{head} [%r22], {aop}, %rd11,{meta_op} %r23,{tail};");
    let out = run(
        &inst,
        &ctas,
        descs,
        id,
        [acol as u32, ecol as u32, sacol as u32, sbcol as u32],
        true,
    )
    .unwrap_or_else(|e| panic!("{inst}: {e}"));
    // The masked and shifted B of `.ws`.
    let mask: Vec<bool> = match s.mask {
        Some(z) => {
            let (skip, used) = (
                ((z >> 40) & 0xff) as usize + 1,
                ((z >> 48) & 0xff) as usize + 1,
            );
            let subs = match m {
                32 => 4,
                64 => 2,
                _ => 1,
            };
            let mut v = Vec::new();
            for i in 0..subs {
                let mut st = (z >> (32 + i)) & 1 == 1;
                let len = |st: bool| if st { skip } else { used };
                let mut rem = len(st) - ((z >> (8 * i)) & 0xff) as usize;
                for _ in 0..n / subs {
                    v.push(st);
                    rem -= 1;
                    if rem == 0 {
                        st = !st;
                        rem = len(st);
                    }
                }
            }
            v
        }
        None => vec![false; n],
    };
    let shift = s.mask.map_or(0, |z| ((z >> 56) & 0x3f) as usize);
    for (h, o) in out.iter().enumerate() {
        for ml in 0..mc {
            let row = h * mc + ml;
            for j in 0..n {
                let mut sum = c[row * n + j] * 2f64.powi(-(s.scale_d as i32));
                for kk in 0..k {
                    if mask[j] {
                        continue;
                    }
                    let (mut av, mut bv) = (a[row * k + kk].1, b[kk * bcols + j + shift].1);
                    if s.neg.0 {
                        av = -av;
                    }
                    if s.neg.1 {
                        bv = -bv;
                    }
                    if let Some((nsf, ue4m3, _, _)) = s.scale {
                        av *= sval(sfa[row * nsf + kk / (k / nsf)], ue4m3);
                        bv *= sval(sfb[j * nsf + kk / (k / nsf)], ue4m3);
                    }
                    sum += av * bv;
                }
                let (lane, col) = d_cell(layout, ml, j, n);
                let got = o[lane * NC + col];
                let want = if int {
                    let v = sum as i64;
                    if s.sat {
                        v.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
                    } else {
                        v as i32 as u32
                    }
                } else if dc == 0 && s.scale.is_none() {
                    f16(sum) as u32
                } else {
                    assert_eq!(
                        sum as f32 as f64, sum,
                        "{inst}: the test's sums must be exact"
                    );
                    (sum as f32).to_bits()
                };
                assert_eq!(
                    got, want,
                    "{inst}: CTA {h} D[{ml}][{j}] (lane {lane}, column {col}), exact {sum}"
                );
            }
        }
    }
}

#[test]
fn kinds_sum_exactly() {
    let cases = [
        Spec {
            kind: "tf32",
            at: "tf32",
            bt: "tf32",
            codes: (2, 2, 1),
            m: 64,
            n: 24,
            ..BASE
        },
        Spec {
            at: "bf16",
            bt: "bf16",
            codes: (1, 1, 1),
            n: 48,
            ..BASE
        },
        Spec {
            codes: (0, 0, 0),
            n: 16,
            ..BASE
        },
        Spec {
            kind: "f8f6f4",
            at: "e4m3",
            bt: "e2m1",
            codes: (0, 5, 1),
            ..BASE
        },
        Spec {
            kind: "f8f6f4",
            at: "e3m2",
            bt: "e2m3",
            codes: (4, 3, 1),
            m: 64,
            n: 16,
            ..BASE
        },
        Spec {
            kind: "f8f6f4",
            at: "e5m2",
            bt: "e4m3",
            codes: (1, 0, 1),
            n: 8,
            ..BASE
        },
        Spec {
            kind: "i8",
            at: "s8",
            bt: "u8",
            codes: (1, 0, 2),
            n: 24,
            ..BASE
        },
        Spec {
            kind: "i8",
            at: "u8",
            bt: "u8",
            codes: (0, 0, 2),
            n: 16,
            sat: true,
            ..BASE
        },
    ];
    for (i, s) in cases.iter().enumerate() {
        check(s, 100 + i as u64);
    }
}

#[test]
fn block_scaled_kinds_sum_exactly() {
    let cases = [
        Spec {
            kind: "mxf8f6f4",
            at: "e4m3",
            bt: "e2m1",
            codes: (0, 5, 1),
            scale: Some((1, false, 2, 1)),
            suffix: ".block_scale",
            ..BASE
        },
        Spec {
            kind: "mxf8f6f4",
            at: "e2m3",
            bt: "e3m2",
            codes: (3, 4, 1),
            scale: Some((1, false, 0, 3)),
            suffix: ".block_scale.scale_vec::1X",
            n: 64,
            ..BASE
        },
        Spec {
            kind: "mxf4",
            at: "e2m1",
            bt: "e2m1",
            codes: (1, 1, 1),
            scale: Some((2, false, 2, 0)),
            suffix: ".block_scale",
            ..BASE
        },
        Spec {
            kind: "mxf4nvf4",
            at: "e2m1",
            bt: "e2m1",
            codes: (1, 1, 1),
            scale: Some((4, true, 0, 0)),
            suffix: ".block_scale.block16",
            ..BASE
        },
        Spec {
            kind: "mxf4nvf4",
            at: "e2m1",
            bt: "e2m1",
            codes: (1, 1, 1),
            scale: Some((2, false, 0, 2)),
            suffix: ".block_scale.scale_vec::2X",
            n: 16,
            ..BASE
        },
    ];
    for (i, s) in cases.iter().enumerate() {
        check(s, 200 + i as u64);
    }
}

/// `.kind::mxf4*` K = 96 (sm_103a, bit 31): 48-byte rows as three core matrices without swizzle,
/// 128-byte swizzled rows read on (bit 52 clear), rows split at the 128-byte boundary with the
/// rest at the absolute LBO address (bit 52 set, starting at chunks 6 and 7 as CUTLASS's SM103
/// mainloop does), three factors of 32 or six of 16 with ids whose bytes run into the next word
/// (4 columns on; B's 8 for N > 128), the M = 256 CTA pair, and A in Tensor Memory: 96 packed
/// 4-bit elements a row, 12 columns (PTX ISA 9.7.16.10.4.5's packing, which no K changes).
#[test]
fn k96_block_scaled_sums_exactly() {
    let mxf4 = Spec {
        kind: "mxf4",
        at: "e2m1",
        bt: "e2m1",
        codes: (1, 1, 1),
        scale: Some((3, false, 0, 0)),
        suffix: ".block_scale",
        k96: true,
        ..BASE
    };
    let nvf4 = Spec {
        kind: "mxf4nvf4",
        scale: Some((6, true, 0, 2)),
        suffix: ".block_scale.block16",
        ..mxf4
    };
    let cases = [
        // No swizzle: three core matrices LBO apart.
        mxf4.clone(),
        Spec {
            scale: Some((3, false, 1, 2)),
            suffix: ".block_scale.scale_vec::2X",
            n: 24,
            ..nvf4.clone()
        },
        // 128-byte swizzle read on to the end of the row, ids 3 and 2 running into the next word.
        Spec {
            swizzle: true,
            start: (5, false),
            scale: Some((3, false, 3, 2)),
            ..mxf4.clone()
        },
        Spec {
            swizzle: true,
            start: (2, false),
            suffix: ".block_scale.block32",
            scale: Some((3, false, 2, 1)),
            ..nvf4.clone()
        },
        // Bit 52: split rows.
        Spec {
            swizzle: true,
            start: (6, true),
            scale: Some((3, false, 3, 1)),
            ..mxf4.clone()
        },
        Spec {
            swizzle: true,
            start: (7, true),
            n: 64,
            ..nvf4.clone()
        },
        Spec {
            swizzle: true,
            start: (0, true),
            scale: Some((6, false, 2, 2)),
            suffix: ".block_scale.scale_vec::4X",
            ..nvf4.clone()
        },
        // N > 128: B's next word 8 columns on.
        Spec {
            n: 160,
            scale: Some((6, true, 2, 2)),
            ..nvf4.clone()
        },
        // The M = 256 pair.
        Spec {
            pair: true,
            m: 256,
            n: 64,
            swizzle: true,
            start: (6, true),
            ..nvf4.clone()
        },
        // A in Tensor Memory: one CTA, with B split by bit 52, and the M = 256 pair.
        Spec {
            a_tmem: true,
            scale: Some((3, false, 1, 3)),
            ..mxf4.clone()
        },
        Spec {
            a_tmem: true,
            n: 64,
            swizzle: true,
            start: (7, true),
            ..nvf4.clone()
        },
        Spec {
            a_tmem: true,
            pair: true,
            m: 256,
            n: 48,
            scale: Some((6, true, 2, 0)),
            ..nvf4.clone()
        },
    ];
    for (i, s) in cases.iter().enumerate() {
        check(s, 500 + i as u64);
    }
}

#[test]
fn sparse_a_expands_with_its_metadata() {
    let cases = [
        Spec {
            sparse: true,
            ..BASE
        },
        Spec {
            kind: "tf32",
            at: "tf32",
            bt: "tf32",
            codes: (2, 2, 1),
            sparse: true,
            ..BASE
        },
        Spec {
            kind: "i8",
            at: "s8",
            bt: "s8",
            codes: (1, 1, 2),
            sparse: true,
            n: 16,
            ..BASE
        },
        Spec {
            kind: "f8f6f4",
            at: "e2m1",
            bt: "e4m3",
            codes: (5, 0, 1),
            sparse: true,
            ..BASE
        },
        Spec {
            kind: "mxf4nvf4",
            at: "e2m1",
            bt: "e2m1",
            codes: (1, 1, 1),
            sparse: true,
            scale: Some((4, true, 0, 0)),
            suffix: ".block_scale.scale_vec::4X",
            ..BASE
        },
    ];
    for (i, s) in cases.iter().enumerate() {
        check(s, 300 + i as u64);
    }
}

#[test]
fn operand_sources_pairs_and_options() {
    let cases = [
        // A from Tensor Memory.
        Spec {
            a_tmem: true,
            ..BASE
        },
        Spec {
            kind: "f8f6f4",
            at: "e2m1",
            bt: "e5m2",
            codes: (5, 1, 1),
            a_tmem: true,
            ..BASE
        },
        Spec {
            kind: "mxf4",
            at: "e2m1",
            bt: "e2m1",
            codes: (1, 1, 1),
            a_tmem: true,
            scale: Some((2, false, 0, 0)),
            suffix: ".block_scale",
            ..BASE
        },
        // 128-byte swizzled descriptors.
        Spec {
            swizzle: true,
            n: 16,
            ..BASE
        },
        Spec {
            kind: "f8f6f4",
            at: "e4m3",
            bt: "e3m2",
            codes: (0, 4, 1),
            swizzle: true,
            ..BASE
        },
        // Negation and scale-input-d.
        Spec {
            neg: (true, false),
            scale_d: 3,
            ..BASE
        },
        Spec {
            kind: "tf32",
            at: "tf32",
            bt: "tf32",
            codes: (2, 2, 1),
            neg: (true, true),
            ..BASE
        },
        // CTA pairs: M = 256 and the dense M = 128 (layout B), A from either source.
        Spec {
            pair: true,
            m: 256,
            n: 32,
            ..BASE
        },
        Spec {
            pair: true,
            m: 128,
            n: 32,
            ..BASE
        },
        Spec {
            pair: true,
            m: 128,
            n: 32,
            a_tmem: true,
            ..BASE
        },
        // Weight-stationary M = 32, 64, 128, with a zero-column mask and shift.
        Spec {
            ws: true,
            m: 32,
            n: 64,
            ..BASE
        },
        Spec {
            ws: true,
            m: 64,
            n: 64,
            mask: Some((1 << 39) | (2 << 40) | (3 << 48) | (4 << 56)),
            ..BASE
        },
        Spec {
            ws: true,
            m: 128,
            n: 64,
            kind: "i8",
            at: "s8",
            bt: "s8",
            codes: (1, 1, 2),
            mask: Some((1 << 39) | (1 << 32) | (1 << 8) | (5 << 48)),
            ..BASE
        },
    ];
    for (i, s) in cases.iter().enumerate() {
        check(s, 400 + i as u64);
    }
}

#[test]
fn misuse_is_reported() {
    let cta = Cta::new();
    let good = [desc(0, 128, 256, 0), desc(8192, 128, 256, 0)];
    let inst = "tcgen05.mma.cta_group::1.kind::f16 [%r22], %rd10, %rd11, %r23, %p4;";
    type Case<'a> = (&'a str, [u64; 2], u32, [u32; 4], &'a str);
    let cases: [Case; 5] = [
        (inst, good, idesc(1, 7, 0, 128, 32), [0; 4], "type code 7"),
        (inst, good, idesc(1, 0, 0, 96, 32), [0; 4], "not a shape"),
        (
            inst,
            [good[0] & !(1 << 46), good[1]],
            idesc(1, 0, 0, 128, 32),
            [0; 4],
            "46-48",
        ),
        (
            "tcgen05.mma.cta_group::1.kind::f16 [%r24], %rd10, %rd11, %r23, %p4;",
            good,
            idesc(1, 0, 0, 128, 32),
            [600, 0, 0, 0],
            "no live tcgen05.alloc",
        ),
        (
            "tcgen05.mma.cta_group::1.kind::f16 [%r22], %rd10, %rd11, %r23, %p4, 16;",
            good,
            idesc(1, 0, 0, 128, 32),
            [0; 4],
            "scale-input-d 16",
        ),
    ];
    for (inst, descs, id, cols, want) in cases {
        let e = run(inst, &[cta_clone(&cta)], descs, id, cols, true).unwrap_err();
        assert!(
            e.contains(want) && e.contains("undefined"),
            "{inst} {id:#x}: {e}"
        );
    }
}

/// K = 96's rules: bit 52's restrictions (128-byte swizzle, base offset 0), no sparse form, ids
/// 0 and 2 for six factors, `.kind::mxf4*` only, and no M = 128 CTA pair (Table 39).
#[test]
fn k96_misuse_is_reported() {
    let cta = Cta::new();
    let sw = |d: u64| d | 2 << 61;
    let good = [sw(desc(0, 128, 1024, 0)), sw(desc(16384, 128, 1024, 0))];
    // e2m1 A and B, N = 32, M = 128, ue8m0, K = 96.
    let id = (1 << 7) | (1 << 10) | (4 << 17) | (1 << 23) | (1 << 27) | (1 << 31);
    let nv16 = "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 [%r22], %rd10, %rd11, %r23, [%r26], [%r27], %p4;";
    let cols = [128, 192, 224, 256];
    type Case<'a> = (&'a str, [u64; 2], u32, &'a str);
    let cases: [Case; 5] = [
        (nv16, good, id, "a base offset of 0"),
        (nv16, good, id | 1 << 29, "ids of K = 96 with 16-element blocks"),
        (
            "tcgen05.mma.sp.cta_group::1.kind::mxf4nvf4.block_scale.block16 [%r22], %rd10, %rd11, [%r25], %r23, [%r26], [%r27], %p4;",
            good,
            id | 1 << 2,
            "no sparse form",
        ),
        (
            "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%r22], %rd10, %rd11, %r23, [%r26], [%r27], %p4;",
            good,
            id,
            "is for .kind::mxf4 and .kind::mxf4nvf4 only",
        ),
        (
            nv16,
            [desc(0, 128, 384, 0) | 1 << 52, good[1]],
            id,
            "takes only the 128-byte swizzle",
        ),
    ];
    for (i, (inst, descs, id, want)) in cases.into_iter().enumerate() {
        // The first case's A descriptor has bit 52 and a base offset.
        let descs = if i == 0 {
            [descs[0] | 1 << 52 | 1 << 49, descs[1]]
        } else {
            descs
        };
        let e = run(inst, &[cta_clone(&cta)], descs, id, cols, true).unwrap_err();
        assert!(
            e.contains(want) && e.contains("undefined"),
            "{inst} {id:#x}: {e}"
        );
    }
    // The M = 128 CTA pair: Table 39 has K1 = 96 with 256xNxK1 only.
    let pair = "tcgen05.mma.cta_group::2.kind::mxf4nvf4.block_scale.block16 [%r22], %rd10, %rd11, %r23, [%r26], [%r27], %p4;";
    let e = run(
        pair,
        &[cta_clone(&cta), cta_clone(&cta)],
        good,
        id,
        cols,
        true,
    )
    .unwrap_err();
    assert!(e.contains("Table 39") && e.contains("undefined"), "{e}");
}
