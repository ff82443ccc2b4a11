//! Thread-instructions per second on an integer loop, a float loop, memory-heavy, divergent,
//! barrier-heavy and tensor-core loops, a corpus kernel and two real programs (nvcc's SGEMM of
//! `tools/realprog/src/sgemm.cu`, 1024x1024x1024, and Triton's flash-attention forward at 16
//! heads of 1024 tokens).
//!
//! `cargo bench -p ptx-ir-interp` prints one line per workload (`BENCH=word` runs those whose
//! name contains it). `THREADS=n` runs each launch on `n` threads (`Launch::threads`, a rayon
//! pool of `n`); the default is one, where the wall and CPU rates agree. `CHECK=all` (or a list,
//! as `ptx run --check` takes) runs every launch with those checks, for their cost.

use ptx_ir_interp::{Arg, Program};
use std::time::Instant;

const INT_LOOP: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
	.reg .pred %p;
	.reg .b32 %r<10>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r9, [n];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mad.lo.u32 %r3, %r2, 256, %r1;
	mov.u32 %r4, 0;
	mov.u32 %r5, %r3;
L:
	mad.lo.u32 %r5, %r5, 1664525, 1013904223;
	xor.b32 %r6, %r5, %r4;
	shr.u32 %r7, %r6, 3;
	add.u32 %r4, %r4, %r7;
	add.u32 %r8, %r8, 1;
	setp.lt.u32 %p, %r8, %r9;
	@%p bra L;
	mul.wide.u32 %rd2, %r3, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r4;
	ret;
}
"#;

const FLOAT_LOOP: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
	.reg .pred %p;
	.reg .b32 %r<10>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r9, [n];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mad.lo.u32 %r3, %r2, 256, %r1;
	cvt.rn.f32.u32 %f1, %r3;
	mov.f32 %f2, 0f3F800000;
	mov.f32 %f3, 0f00000000;
L:
	fma.rn.f32 %f3, %f1, %f2, %f3;
	mul.rn.f32 %f2, %f2, 0f3F7FFFF0;
	add.rn.f32 %f4, %f3, %f2;
	sub.f32 %f1, %f1, 0f3C23D70A;
	add.u32 %r8, %r8, 1;
	setp.lt.u32 %p, %r8, %r9;
	@%p bra L;
	add.f32 %f3, %f3, %f4;
	mul.wide.u32 %rd2, %r3, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.f32 [%rd3], %f3;
	ret;
}
"#;

const MEMORY_LOOP: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 buf, .param .u32 n)
{
	.reg .pred %p;
	.reg .b32 %r<10>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [buf];
	ld.param.u32 %r9, [n];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mad.lo.u32 %r3, %r2, 256, %r1;
	mul.wide.u32 %rd2, %r3, 16;
	add.s64 %rd3, %rd1, %rd2;
	mov.u32 %r8, 0;
L:
	ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd3];
	add.f32 %f1, %f1, %f2;
	add.f32 %f3, %f3, %f4;
	st.global.v4.f32 [%rd3], {%f3, %f1, %f4, %f2};
	ld.global.f32 %f5, [%rd3+4];
	st.global.f32 [%rd3+8], %f5;
	add.u32 %r8, %r8, 1;
	setp.lt.u32 %p, %r8, %r9;
	@%p bra L;
	ret;
}
"#;

/// Each lane runs its own number of iterations, and branches on its own parity inside.
const DIVERGENT_LOOP: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
	.reg .pred %p<3>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r9, [n];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mad.lo.u32 %r3, %r2, 256, %r1;
	and.b32 %r10, %r1, 31;
	add.u32 %r9, %r9, %r10;
	mov.u32 %r4, 0;
	mov.u32 %r8, 0;
L:
	xor.b32 %r5, %r8, %r1;
	and.b32 %r6, %r5, 1;
	setp.eq.u32 %p1, %r6, 0;
	@%p1 bra EVEN;
	mad.lo.u32 %r4, %r4, 3, %r8;
	bra.uni NEXT;
EVEN:
	shr.u32 %r7, %r4, 1;
	add.u32 %r4, %r7, %r8;
NEXT:
	add.u32 %r8, %r8, 1;
	setp.lt.u32 %p2, %r8, %r9;
	@%p2 bra L;
	mul.wide.u32 %rd2, %r3, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r4;
	ret;
}
"#;

/// Neighbours exchange values through shared memory, two barriers per iteration.
const BARRIER_LOOP: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
	.reg .pred %p;
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b8 sm[1024];
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r9, [n];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mad.lo.u32 %r3, %r2, 256, %r1;
	mov.u32 %r10, sm;
	shl.b32 %r5, %r1, 2;
	add.u32 %r6, %r10, %r5;
	add.u32 %r7, %r1, 1;
	and.b32 %r7, %r7, 255;
	shl.b32 %r7, %r7, 2;
	add.u32 %r7, %r10, %r7;
	mov.u32 %r4, %r3;
	mov.u32 %r8, 0;
L:
	st.shared.u32 [%r6], %r4;
	bar.sync 0;
	ld.shared.u32 %r11, [%r7];
	add.u32 %r4, %r4, %r11;
	bar.sync 0;
	add.u32 %r8, %r8, 1;
	setp.lt.u32 %p, %r8, %r9;
	@%p bra L;
	mul.wide.u32 %rd2, %r3, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r4;
	ret;
}
"#;

/// `mma.sync` m16n8k16 with f16 inputs and f32 accumulators, chained.
const MMA_LOOP: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
	.reg .pred %p;
	.reg .b32 %r<16>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r9, [n];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mad.lo.u32 %r3, %r2, 256, %r1;
	mov.b32 %r10, 0x3C003800;
	mov.b32 %r11, 0x34003A00;
	mov.b32 %r12, 0x38003C00;
	mov.b32 %r13, 0x3A003400;
	mov.b32 %r14, 0x3C003C00;
	mov.b32 %r15, 0x30003800;
	mov.f32 %f1, 0f00000000;
	mov.f32 %f2, 0f00000000;
	mov.f32 %f3, 0f00000000;
	mov.f32 %f4, 0f00000000;
	mov.u32 %r8, 0;
L:
	mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%f1, %f2, %f3, %f4};
	mul.f32 %f1, %f1, 0f3F000000;
	mul.f32 %f2, %f2, 0f3F000000;
	mul.f32 %f3, %f3, 0f3F000000;
	mul.f32 %f4, %f4, 0f3F000000;
	add.u32 %r8, %r8, 1;
	setp.lt.u32 %p, %r8, %r9;
	@%p bra L;
	add.f32 %f1, %f1, %f2;
	add.f32 %f3, %f3, %f4;
	add.f32 %f1, %f1, %f3;
	mul.wide.u32 %rd2, %r3, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.f32 [%rd3], %f1;
	ret;
}
"#;

/// CPU seconds of every thread of the process (the rayon pool's too), from the scheduler's
/// per-task counters (Linux), so that figures taken on a busy machine still say what the cores
/// did; the caller falls back to wall time elsewhere.
fn cpu_seconds() -> Option<f64> {
    let mut ns = 0.0;
    for t in std::fs::read_dir("/proc/self/task").ok()? {
        let s = std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok()?;
        ns += s.split_whitespace().next()?.parse::<f64>().ok()?;
    }
    Some(ns / 1e9)
}

fn selected(name: &str) -> bool {
    std::env::var("BENCH").map_or(true, |only| name.contains(only.as_str()))
}

fn measure(name: &str, src: &str, entry: &str, grid: u32, block: u32, args: Vec<Arg>) {
    let shape = Shape {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        shared: 0,
    };
    measure_runs(name, src, entry, shape, args, 3);
}

/// A launch's grid, CTA and dynamic shared memory.
struct Shape {
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
}

/// Runs the launch once to warm up, then `runs` times, and prints the best.
fn measure_runs(name: &str, src: &str, entry: &str, shape: Shape, args: Vec<Arg>, runs: u32) {
    if !selected(name) {
        return;
    }
    let m = ptx_ir_text::parse(src).expect("parse");
    let p = Program::load(&m).expect("load");
    let l = p
        .launch(entry)
        .grid(shape.grid)
        .block(shape.block)
        .dynamic_shared(shape.shared)
        .args(args)
        .threads(threads())
        .checks(checks());
    let ran_on = l.run().expect("run").threads;
    let mut best = f64::MAX;
    let mut best_cpu = f64::MAX;
    let mut n = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let c = cpu_seconds();
        let o = l.run().expect("run");
        best = best.min(t.elapsed().as_secs_f64());
        if let (Some(a), Some(b)) = (c, cpu_seconds()) {
            best_cpu = best_cpu.min(b - a);
        }
        n = o.stats.thread_instructions;
    }
    if best_cpu == f64::MAX {
        best_cpu = best;
    }
    println!(
        "{name:<14} {n:>10} thread-instructions  wall {:>6.3} s  cpu {:>6.3} s  {:>6.1} M thread-instructions/s per CPU second  {:>7.1} M/s (wall, {ran_on} thread{})",
        best,
        best_cpu,
        n as f64 / best_cpu / 1e6,
        n as f64 / best / 1e6,
        if ran_on == 1 { "" } else { "s" }
    );
}

/// `CHECK`: the checks to run with every launch (`ptx run --check` syntax; none if unset).
fn checks() -> ptx_ir_interp::Checks {
    std::env::var("CHECK")
        .ok()
        .map(|c| ptx_ir_interp::Checks::parse(&c).expect("CHECK"))
        .unwrap_or_default()
}

/// `THREADS`, with the rayon pool sized to it.
fn threads() -> u32 {
    let n = std::env::var("THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(1u32)
        .max(1);
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(n as usize)
        .build_global();
    n
}

fn main() {
    let threads = 64 * 256;
    measure(
        "integer loop",
        INT_LOOP,
        "k",
        64,
        256,
        vec![Arg::Buffer(vec![0; threads * 4]), Arg::u32(200)],
    );
    measure(
        "float loop",
        FLOAT_LOOP,
        "k",
        64,
        256,
        vec![Arg::Buffer(vec![0; threads * 4]), Arg::u32(200)],
    );
    let reduce = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/interp/reduce_shared.ptx"),
    )
    .expect("corpus kernel");
    let n = 1024 * 128;
    let input: Vec<u8> = (0..n as u32).flat_map(|i| i.to_le_bytes()).collect();
    measure(
        "shared reduce",
        &reduce,
        "k",
        1024,
        128,
        vec![Arg::Buffer(input), Arg::Buffer(vec![0; 4096])],
    );
    measure(
        "memory loop",
        MEMORY_LOOP,
        "k",
        64,
        256,
        vec![Arg::Buffer(vec![0; threads * 16]), Arg::u32(100)],
    );
    measure(
        "divergent",
        DIVERGENT_LOOP,
        "k",
        64,
        256,
        vec![Arg::Buffer(vec![0; threads * 4]), Arg::u32(100)],
    );
    measure(
        "barrier loop",
        BARRIER_LOOP,
        "k",
        64,
        256,
        vec![Arg::Buffer(vec![0; threads * 4]), Arg::u32(100)],
    );
    measure(
        "mma loop",
        MMA_LOOP,
        "k",
        64,
        256,
        vec![Arg::Buffer(vec![0; threads * 4]), Arg::u32(100)],
    );
    sgemm();
    attention();
}

/// A PTX file of the repository's corpus (`PTX_IR_CORPUS`, default the checkout's `corpus/`,
/// for a bench executable carried to another machine), decompressed.
fn corpus_ptx(rel: &str) -> String {
    let dir = std::env::var_os("PTX_IR_CORPUS").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus"),
        std::path::PathBuf::from,
    );
    let path = dir.join(rel);
    let xz = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = Vec::new();
    lzma_rs::xz_decompress(&mut &xz[..], &mut text).expect("xz");
    String::from_utf8(text).expect("UTF-8")
}

/// `n` values of a deterministic sequence in [-0.5, 0.5), as the bytes of `f32`s.
fn values_f32(n: u32, seed: u32) -> Vec<u8> {
    (0..n)
        .flat_map(|i| {
            let x = i.wrapping_mul(2654435761).wrapping_add(seed) >> 9;
            (x as f32 / (1u32 << 23) as f32 - 0.5).to_le_bytes()
        })
        .collect()
}

/// nvcc's register-blocked SGEMM (`sgemm_regblock` of `tools/realprog/src/sgemm.cu`, the
/// real-program suite's `sgemm.sm_90` PTX): C = A * B for 1024x1024 matrices, 256 CTAs of 256
/// threads, each thread a 4x4 block of C. One run after the warm-up (1.95 G
/// thread-instructions).
fn sgemm() {
    const N: u32 = 1024;
    if !selected("sgemm 1024") {
        return;
    }
    let text = corpus_ptx("realprog/ptx/sgemm.sm_90.ptx.xz");
    measure_runs(
        "sgemm 1024",
        &text,
        "sgemm_regblock",
        Shape {
            grid: [N / 64, N / 64, 1],
            block: [256, 1, 1],
            shared: 0,
        },
        vec![
            Arg::Buffer(values_f32(N * N, 1)),
            Arg::Buffer(values_f32(N * N, 2)),
            Arg::Buffer(vec![0; (N * N * 4) as usize]),
            Arg::u32(N),
            Arg::u32(N),
            Arg::u32(N),
        ],
        1,
    );
}

/// Triton's flash-attention forward (tutorial 06, causal, `wgmma` for both products;
/// `tools/realprog/attention_bench.py` compiles it to `corpus/bench/`): 16 heads of 1024 tokens
/// of dimension 64 in `f16`, 256 CTAs of 128 threads with 32 KiB of shared memory. One run after
/// the warm-up.
fn attention() {
    const HEADS: u32 = 16;
    const N_CTX: u32 = 1024;
    const HEAD_DIM: u32 = 64;
    if !selected("attention 1k") {
        return;
    }
    let text = corpus_ptx("bench/triton_attn_fwd_1k.sm_90a.ptx.xz");
    let elems = HEADS * N_CTX * HEAD_DIM;
    // f16 values in [-1, 1): the f32 sequence doubled, rounded to half precision by its top bits.
    let half = |seed: u32| -> Vec<u8> {
        values_f32(elems, seed)
            .chunks(4)
            .flat_map(|c| {
                let f = 2.0 * f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                f16_bits(f).to_le_bytes()
            })
            .collect()
    };
    measure_runs(
        "attention 1k",
        &text,
        "attn_fwd",
        Shape {
            grid: [N_CTX / 64, HEADS, 1],
            block: [128, 1, 1],
            shared: 32768,
        },
        vec![
            Arg::Buffer(half(1)),
            Arg::Buffer(half(2)),
            Arg::Buffer(half(3)),
            Arg::f32(0.125),
            Arg::Buffer(vec![0; (HEADS * N_CTX * 4) as usize]),
            Arg::Buffer(vec![0; (elems * 2) as usize]),
            Arg::u64(0),
            Arg::u64(0),
        ],
        1,
    );
}

/// `f` (in [-1, 1], no subnormal results needed) to `f16` bits, rounding to nearest even.
fn f16_bits(f: f32) -> u16 {
    let b = f.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let a = f.abs();
    if a < 6.103_515_6e-5 {
        return sign;
    }
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let m = b & 0x7f_ffff;
    let r = m >> 13;
    let rest = m & 0x1fff;
    let up = rest > 0x1000 || (rest == 0x1000 && r & 1 == 1);
    sign | (((e as u32) << 10) + r + up as u32) as u16
}
