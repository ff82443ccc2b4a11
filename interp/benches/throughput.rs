//! Thread-instructions per second on an integer loop, a float loop and a corpus kernel.
//!
//! `cargo bench -p ptx-ir-interp` prints one line per workload. Single-threaded: the
//! interpreter runs one warp-instruction at a time.

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

/// CPU time of this thread in seconds (Linux), so that figures taken on a busy machine still
/// say what one core does; falls back to wall time elsewhere.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn measure(name: &str, src: &str, entry: &str, grid: u32, block: u32, args: Vec<Arg>) {
    // `BENCH=word` runs only the workloads whose name contains it.
    if let Ok(only) = std::env::var("BENCH") {
        if !name.contains(only.as_str()) {
            return;
        }
    }
    let m = ptx_ir_text::parse(src).expect("parse");
    let p = Program::load(&m).expect("load");
    let l = p
        .launch(entry)
        .grid([grid, 1, 1])
        .block([block, 1, 1])
        .args(args);
    // Warm up, then take the best of three.
    let _ = l.run().expect("run");
    let mut best = f64::MAX;
    let mut best_cpu = f64::MAX;
    let mut n = 0;
    for _ in 0..3 {
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
        "{name:<14} {n:>10} thread-instructions  wall {:>6.3} s  cpu {:>6.3} s  {:>6.1} M thread-instructions/s (cpu)",
        best,
        best_cpu,
        n as f64 / best_cpu / 1e6
    );
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
}
