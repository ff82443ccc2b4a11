//! Launches on several threads (`Launch::threads`): the outcome of every launch is that of the
//! serial run — by running in parallel where no CTA can depend on another, by running serially
//! where one can, and by running again serially where the workers failed or raced.

use ptx_ir_interp::{Arg, Error, Outcome, Program};

const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

fn program(body: &str) -> Program {
    let src = format!("{HEAD}{body}");
    let m = ptx_ir_text::parse(&src).expect("parse");
    Program::load(&m).expect("load")
}

/// Runs `k` with `grid` CTAs of `block` threads and one zeroed buffer of `len` bytes, serially and
/// on four workers (a pool of four threads, whatever the machine has), and checks that both
/// give the same outcome or the same failure; returns the parallel run.
fn both(p: &Program, grid: u32, block: u32, len: usize) -> Result<Outcome, Box<Error>> {
    let launch = p
        .launch("k")
        .grid([grid, 1, 1])
        .block([block, 1, 1])
        .fuel(1 << 24)
        .arg(Arg::Buffer(vec![0; len]));
    let serial = launch.clone().run();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .expect("pool");
    let parallel = pool.install(|| launch.threads(4).run());
    match (serial, parallel) {
        (Ok(s), Ok(p)) => {
            assert_eq!(s.buffers, p.buffers, "memory");
            assert_eq!(s.stats, p.stats, "counters");
            assert_eq!(s.threads, 1);
            Ok(p)
        }
        (Err(s), Err(p)) => {
            assert_eq!(s.error, p.error, "error");
            assert_eq!(s.outcome.buffers, p.outcome.buffers, "memory at the error");
            assert_eq!(s.outcome.stats, p.outcome.stats, "counters at the error");
            Err(Box::new(p.error))
        }
        (s, p) => panic!("serial {s:?}, parallel {p:?}"),
    }
}

/// Each thread stores a function of its global index to its own word.
const EACH_OWN: &str = ".visible .entry k(.param .u64 out) {\n\
    .reg .b32 %r<6>; .reg .b64 %rd<4>;\n\
    ld.param.u64 %rd1, [out];\n\
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;\n\
    mad.lo.u32 %r4, %r2, %r3, %r1;\n\
    mul.lo.u32 %r5, %r4, %r4; xor.b32 %r5, %r5, 0x5bd1e995;\n\
    mul.wide.u32 %rd2, %r4, 4; add.s64 %rd3, %rd1, %rd2;\n\
    st.global.u32 [%rd3], %r5;\n\
    ret; }\n";

#[test]
fn independent_ctas_run_on_several_threads() {
    let p = program(EACH_OWN);
    let o = both(&p, 64, 64, 64 * 64 * 4).expect("runs");
    assert_eq!(o.threads, 4, "{:?}", o.serial);
    assert_eq!(o.serial, None);
    let w = |i: usize| u32::from_le_bytes(o.buffers[0][4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!(w(4095), 4095u32.wrapping_mul(4095) ^ 0x5bd1e995);
}

#[test]
fn bytes_written_by_different_ctas_into_one_word_all_land() {
    // CTA c stores byte c: four CTAs share each word.
    let p = program(
        ".visible .entry k(.param .u64 out) {\n\
           .reg .b16 %h1; .reg .b32 %r<3>; .reg .b64 %rd<4>;\n\
           ld.param.u64 %rd1, [out];\n\
           mov.u32 %r1, %ctaid.x; add.u32 %r2, %r1, 1; cvt.u16.u32 %h1, %r2;\n\
           cvt.u64.u32 %rd2, %r1; add.s64 %rd3, %rd1, %rd2;\n\
           st.global.u8 [%rd3], %h1;\n\
           ret; }\n",
    );
    let o = both(&p, 200, 1, 200).expect("runs");
    assert_eq!(o.threads, 4);
    assert!(o.buffers[0]
        .iter()
        .enumerate()
        .all(|(i, &b)| b == i as u8 + 1));
}

#[test]
fn ctas_writing_the_same_value_to_one_word_run_in_parallel() {
    // A benign race: every CTA sets the flag word to 1.
    let p = program(
        ".visible .entry k(.param .u64 out) {\n\
           .reg .b32 %r1; .reg .b64 %rd1;\n\
           ld.param.u64 %rd1, [out]; mov.u32 %r1, 1;\n\
           st.global.u32 [%rd1], %r1;\n\
           ret; }\n",
    );
    let o = both(&p, 16, 32, 4).expect("runs");
    assert_eq!(o.threads, 4);
    assert_eq!(o.buffers[0], [1, 0, 0, 0]);
}

#[test]
fn ctas_racing_with_different_values_run_again_serially() {
    // Every CTA stores its index to word 0: the last CTA in launch order wins, as serially.
    let p = program(
        ".visible .entry k(.param .u64 out) {\n\
           .reg .b32 %r1; .reg .b64 %rd1;\n\
           ld.param.u64 %rd1, [out]; mov.u32 %r1, %ctaid.x;\n\
           st.global.u32 [%rd1], %r1;\n\
           ret; }\n",
    );
    let o = both(&p, 16, 32, 4).expect("runs");
    assert_eq!(o.threads, 1);
    let why = o.serial.expect("a reason");
    assert!(why.contains("two CTAs wrote different values"), "{why}");
    assert_eq!(o.buffers[0], [15, 0, 0, 0]);
}

#[test]
fn a_worker_error_is_the_serial_error() {
    // CTA 37 stores past the end of the buffer.
    let p = program(
        ".visible .entry k(.param .u64 out) {\n\
           .reg .pred %p1; .reg .b32 %r<3>; .reg .b64 %rd<4>;\n\
           ld.param.u64 %rd1, [out]; mov.u32 %r1, %ctaid.x;\n\
           setp.eq.u32 %p1, %r1, 37; selp.u32 %r2, 4096, 0, %p1;\n\
           cvt.u64.u32 %rd2, %r2; add.s64 %rd3, %rd1, %rd2;\n\
           st.global.u32 [%rd3], %r1;\n\
           ret; }\n",
    );
    let e = both(&p, 64, 32, 64).expect_err("fails");
    assert!(matches!(*e, Error::Memory { .. }), "{e}");
    assert!(e.to_string().contains("ctaid 37,0,0"), "{e}");
}

#[test]
fn running_out_of_fuel_is_the_serial_error() {
    let p = program(
        ".visible .entry k(.param .u64 out) {\n\
           .reg .pred %p1; .reg .b32 %r1;\n\
           mov.u32 %r1, 0;\n\
           $L: add.u32 %r1, %r1, 1; setp.lt.u32 %p1, %r1, 100000; @%p1 bra $L;\n\
           ret; }\n",
    );
    let e = both(&p, 64, 32, 4).expect_err("fails");
    assert!(matches!(*e, Error::FuelExhausted(_)), "{e}");
}

#[test]
fn a_kernel_with_global_atomics_runs_serially_and_says_why() {
    let p = program(
        ".visible .entry k(.param .u64 out) {\n\
           .reg .b32 %r<3>; .reg .b64 %rd1;\n\
           ld.param.u64 %rd1, [out]; mov.u32 %r1, %ctaid.x;\n\
           atom.global.add.u32 %r2, [%rd1], %r1;\n\
           ret; }\n",
    );
    let o = both(&p, 16, 32, 4).expect("runs");
    assert_eq!(o.threads, 1);
    let why = o.serial.expect("a reason");
    assert!(why.contains("atom.global.add.u32"), "{why}");
}

#[test]
fn a_kernel_with_shared_atomics_and_barriers_runs_in_parallel() {
    // Per-CTA histogram in shared memory, then each CTA writes its own row.
    let p = program(
        ".visible .entry k(.param .u64 out) {\n\
           .shared .align 4 .b32 bins[4];\n\
           .reg .pred %p1; .reg .b32 %r<8>; .reg .b64 %rd<4>;\n\
           ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x;\n\
           setp.lt.u32 %p1, %r1, 4; shl.b32 %r3, %r1, 2; mov.u32 %r7, bins; add.u32 %r3, %r3, %r7;\n\
           @%p1 st.shared.u32 [%r3], 0;\n\
           bar.sync 0;\n\
           add.u32 %r4, %r1, %r2; and.b32 %r4, %r4, 3; shl.b32 %r4, %r4, 2; add.u32 %r4, %r4, %r7;\n\
           atom.shared.add.u32 %r5, [%r4], 1;\n\
           bar.sync 0;\n\
           @%p1 ld.shared.u32 %r6, [%r3];\n\
           mad.lo.u32 %r5, %r2, 4, %r1; mul.wide.u32 %rd2, %r5, 4; add.s64 %rd3, %rd1, %rd2;\n\
           @%p1 st.global.u32 [%rd3], %r6;\n\
           ret; }\n",
    );
    let o = both(&p, 32, 64, 32 * 16).expect("runs");
    assert_eq!(o.threads, 4, "{:?}", o.serial);
    assert!(o.buffers[0]
        .chunks(4)
        .all(|c| u32::from_le_bytes(c.try_into().unwrap()) == 16));
}

#[test]
fn private_copies_beyond_the_memory_limit_run_again_serially() {
    // Each worker's first store copies the 4 MiB buffer: four copies pass a 6 MiB limit that
    // the serial run fits in.
    let p = program(EACH_OWN);
    let launch = p
        .launch("k")
        .grid([64, 1, 1])
        .block([64, 1, 1])
        .mem_limit(6 << 20)
        .arg(Arg::Buffer(vec![0; 4 << 20]));
    let serial = launch.clone().run().expect("fits serially");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .expect("pool");
    let parallel = pool
        .install(|| launch.threads(4).run())
        .expect("runs again serially");
    assert_eq!(parallel.threads, 1);
    let why = parallel.serial.expect("a reason");
    assert!(why.contains("memory limit"), "{why}");
    assert_eq!(serial.buffers, parallel.buffers);
}

/// A CTA starts with zeroed registers, local and shared memory, whether its warps are new or
/// were a finished CTA's: each CTA here reads a register, a local word and a shared word before
/// writing them, and every read sees zero.
#[test]
fn a_cta_starts_from_zero_after_others_finish() {
    let p = program(
        ".visible .entry k(.param .u64 out) {\n\
           .reg .b32 %r<6>; .reg .b64 %rd<5>; .reg .pred %p1;\n\
           .local .align 4 .b32 loc[1]; .shared .align 4 .b32 sh[1];\n\
           ld.param.u64 %rd1, [out];\n\
           mov.u32 %r1, %ctaid.x; mov.u32 %r5, %tid.x;\n\
           ld.local.u32 %r3, [loc]; ld.shared.u32 %r4, [sh];\n\
           add.u32 %r3, %r3, %r2; add.u32 %r3, %r3, %r4; add.s64 %rd4, %rd4, 0;\n\
           cvt.u32.u64 %r4, %rd4; add.u32 %r3, %r3, %r4;\n\
           setp.ne.u32 %p1, %r5, 0; @%p1 bra DONE;\n\
           mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;\n\
           st.global.u32 [%rd3], %r3;\n\
           DONE: bar.sync 0;\n\
           mov.u32 %r2, 12345; mov.u64 %rd4, 777; st.local.u32 [loc], %r2; st.shared.u32 [sh], %r2;\n\
           ret; }\n",
    );
    let o = both(&p, 64, 64, 64 * 4).expect("run");
    assert!(
        o.buffers[0].iter().all(|&b| b == 0),
        "{:?}",
        &o.buffers[0][..16]
    );
}
