//! The launch checks (`Launch::checks`, `ptx run --check`): each kernel here has one known bug
//! of one class, or none, and the test asserts exactly the findings expected (class,
//! instruction, thread, address), so that a check that stays silent or over-reports fails.

use ptx_ir_interp::check::Class;
use ptx_ir_interp::{Arg, Checks, Finding, Program};

const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

fn program(body: &str) -> Program {
    let src = format!("{HEAD}{body}");
    let m = ptx_ir_text::parse(&src).expect("parses");
    Program::load(&m).expect("loads")
}

fn init() -> Checks {
    Checks {
        init: true,
        ..Checks::default()
    }
}

/// Runs `entry` with `block` threads, buffers `bufs` (those in `uninit` marked uninitialised)
/// and the checks; returns the findings.
fn findings(
    p: &Program,
    entry: &str,
    block: u32,
    bufs: &[usize],
    uninit: &[usize],
    c: Checks,
) -> Vec<Finding> {
    let mut l = p.launch(entry).block([block, 1, 1]).checks(c).threads(4);
    for &n in bufs {
        l = l.arg(Arg::Buffer(vec![0; n]));
    }
    for &i in uninit {
        l = l.uninitialized(i);
    }
    let o = l.run().expect("runs");
    assert_eq!(o.threads, 1, "a launch with checks runs serially");
    o.findings
}

const SHARED: &str = "
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 buf[64];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  setp.ne.u32 %p1, %r1, 5;
  @%p1 st.shared.u32 [%r4], %r1;
  bar.sync 0;
  xor.b32 %r6, %r1, 1;
  shl.b32 %r6, %r6, 2;
  add.u32 %r6, %r3, %r6;
  ld.shared.u32 %r5, [%r6];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
";

#[test]
fn shared_read_before_any_write() {
    // Thread 5 skips its store; thread 4 reads its word.
    let p = program(SHARED);
    let f = findings(&p, "k", 32, &[128], &[], init());
    assert_eq!(f.len(), 1, "{f:?}");
    let f = &f[0];
    assert_eq!(f.class, Class::Init);
    assert!(f.site.inst.starts_with("ld.shared.u32"), "{}", f.site.inst);
    assert_eq!(f.threads[0].tid, [4, 0, 0]);
    assert_eq!(f.addr, Some(20));
    assert_eq!(f.count, 1);
    // Without the check nothing is reported, and the run is the same.
    let o = p
        .launch("k")
        .block([32, 1, 1])
        .arg(Arg::Buffer(vec![0; 128]))
        .run()
        .unwrap();
    assert!(o.findings.is_empty());
}

#[test]
fn shared_written_then_read_is_clean() {
    // Every thread stores (the guard is dropped).
    let p = program(&SHARED.replace("@%p1 st.shared", "st.shared"));
    assert!(findings(&p, "k", 32, &[128], &[], Checks::all()).is_empty());
}

const GLOBAL: &str = "
.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd4, [in];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd5, %rd4, %rd2;
  setp.lt.u32 %p1, %r1, 2;
  @%p1 st.global.u32 [%rd5], %r1;
  ld.global.u32 %r5, [%rd5];
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
";

#[test]
fn uninitialised_global_buffer() {
    let p = program(GLOBAL);
    // Threads 2 and 3 read words nothing wrote.
    let f = findings(&p, "k", 4, &[16, 16], &[1], init());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].threads[0].tid, [2, 0, 0]);
    assert_eq!(f[0].count, 2);
    assert!(f[0].site.inst.starts_with("ld.global.u32"));
    // The same buffer initialised by the host: clean.
    assert!(findings(&p, "k", 4, &[16, 16], &[], init()).is_empty());
    // Two threads only: each reads what it wrote.
    assert!(findings(&p, "k", 2, &[16, 16], &[1], init()).is_empty());
}

#[test]
fn asynchronous_copies_initialise_shared_memory() {
    // cp.async into shared memory, waited for, then read: clean; reading the word the copy
    // does not cover is a finding.
    let body = "
.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b32 buf[8];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  mov.u32 %r1, buf;
  cp.async.ca.shared.global [%r1], [%rd2], 16;
  cp.async.wait_all;
  ld.shared.u32 %r2, [%r1+OFF];
  st.global.u32 [%rd1], %r2;
  ret;
}
";
    let clean = program(&body.replace("OFF", "12"));
    assert!(findings(&clean, "k", 1, &[4, 16], &[], init()).is_empty());
    let bad = program(&body.replace("OFF", "16"));
    let f = findings(&bad, "k", 1, &[4, 16], &[], init());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].addr, Some(16));
}

#[test]
fn parse_names_every_check() {
    assert_eq!(Checks::parse("all"), Ok(Checks::all()));
    assert!(Checks::parse("init,sync").is_ok());
    assert!(Checks::parse("memcheck").is_err());
}

fn sync() -> Checks {
    Checks {
        sync: true,
        ..Checks::default()
    }
}

#[test]
fn barrier_after_some_threads_exited() {
    // Threads 40..63 exit; the others' bar.sync completes because exiting releases it.
    let p = program(
        "
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 40;
  @%p1 exit;
  bar.sync 0;
  ret;
}
",
    );
    let f = findings(&p, "k", 64, &[4], &[], sync());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].class, Class::Sync);
    assert!(f[0].site.inst.starts_with("bar.sync"), "{}", f[0].site.inst);
    assert!(f[0].what.contains("24 exited"), "{}", f[0].what);
    // Every thread arrives: clean.
    let clean = program(
        "
.visible .entry k(.param .u64 out)
{
  bar.sync 0;
  ret;
}
",
    );
    assert!(findings(&clean, "k", 64, &[4], &[], Checks::all()).is_empty());
}

#[test]
fn warps_wait_at_different_barrier_instructions() {
    // Warp 0 waits at one bar.sync, warp 1 at another (whole warps: no guard splits one).
    let p = program(
        "
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra A;
  bar.sync 0;
  bra END;
A:
  bar.sync 0;
END:
  ret;
}
",
    );
    let f = findings(&p, "k", 64, &[4], &[], sync());
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].what.contains("different instructions"),
        "{}",
        f[0].what
    );
    assert_eq!(f[0].threads.len(), 2);
}

fn race() -> Checks {
    Checks {
        race: true,
        ..Checks::default()
    }
}

/// Warp 0 writes a shared word, warp 1 reads it: `SYNC` is what orders them, if anything.
const HANDOFF: &str = "
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 buf[64];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, buf;
  mov.u32 %r9, bar;
  setp.eq.u32 %p3, %r1, 0;
  @%p3 mbarrier.init.shared.b64 [%r9], 32;
  bar.sync 0;
  setp.lt.u32 %p1, %r1, 32;
  @!%p1 bra READ;
  shl.b32 %r2, %r1, 2;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  PRODUCE
  bra END;
READ:
  CONSUME
  sub.u32 %r5, %r1, 32;
  shl.b32 %r5, %r5, 2;
  add.u32 %r5, %r3, %r5;
  ld.shared.u32 %r6, [%r5];
  st.global.u32 [%rd1], %r6;
END:
  ret;
}
";

fn handoff(produce: &str, consume: &str) -> Program {
    program(
        &HANDOFF
            .replace("PRODUCE", produce)
            .replace("CONSUME", consume),
    )
}

#[test]
fn unordered_shared_write_and_read_race() {
    let p = handoff("", "");
    let f = findings(&p, "k", 64, &[4], &[], race());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].class, Class::Race);
    // Whichever warp the interpreter runs first, the hazard is between thread 0's store and
    // thread 32's load of the word at 8 (`buf` follows the 8-byte mbarrier).
    let (inst, kind) = (&f[0].site.inst, &f[0].what);
    assert!(
        (inst.starts_with("ld.shared.u32") && kind.contains("read-after-write"))
            || (inst.starts_with("st.shared.u32") && kind.contains("write-after-read")),
        "{inst}: {kind}"
    );
    let mut tids: Vec<u32> = f[0].threads.iter().map(|t| t.tid[0]).collect();
    tids.sort();
    assert_eq!(tids, [0, 32]);
    assert_eq!(f[0].addr, Some(8));
}

#[test]
fn barriers_and_mbarriers_order_the_handoff() {
    // A CTA barrier between them (`barrier.sync`: not aligned, since the two warps reach it at
    // different instructions, which `bar.sync` forbids and the sync check reports).
    let bar = handoff("barrier.sync 1;", "barrier.sync 1;");
    assert!(findings(&bar, "k", 64, &[4], &[], Checks::all()).is_empty());
    // A named barrier: the producer arrives, the consumer syncs (64 threads).
    let named = handoff("barrier.arrive 1, 64;", "barrier.sync 1, 64;");
    assert!(findings(&named, "k", 64, &[4], &[], race()).is_empty());
    // The same with nothing before it: the producer arrives and exits before the consumer
    // waits, which the interpreter completes as a phase of its own (`bar_complete`).
    let first = program(
        "
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .shared .align 4 .b32 buf[32];
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, buf;
  setp.lt.u32 %p1, %r1, 32;
  @!%p1 bra C;
  shl.b32 %r2, %r1, 2;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  bar.arrive 1, 64;
  bra E;
C:
  bar.sync 1, 64;
  sub.u32 %r5, %r1, 32;
  shl.b32 %r5, %r5, 2;
  add.u32 %r5, %r3, %r5;
  ld.shared.u32 %r6, [%r5];
E:
  ret;
}
",
    );
    assert!(findings(&first, "k", 64, &[4], &[], race()).is_empty());
    // An mbarrier: the producer warp arrives, the consumer waits for the phase.
    let mbar = handoff(
        "mbarrier.arrive.shared.b64 %rd2, [%r9];",
        "WAIT:\n  mbarrier.try_wait.parity.shared.b64 %p2, [%r9], 0;\n  @!%p2 bra WAIT;",
    );
    assert!(findings(&mbar, "k", 64, &[4], &[], race()).is_empty());
    // Waiting on the wrong parity returns at once: the read is not ordered.
    let early = handoff(
        "mbarrier.arrive.shared.b64 %rd2, [%r9];",
        "mbarrier.test_wait.parity.shared.b64 %p2, [%r9], 1;",
    );
    let f = findings(&early, "k", 64, &[4], &[], race());
    assert_eq!(f.len(), 1, "{f:?}");
}

#[test]
fn atomics_are_not_races_and_order_a_flag() {
    // Both warps add to one word: atomics never race.
    let p = program(
        "
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .shared .align 4 .b32 w;
  mov.u32 %r1, w;
  atom.shared.add.u32 %r2, [%r1], 1;
  ret;
}
",
    );
    assert!(findings(&p, "k", 64, &[4], &[], race()).is_empty());
    // A flag set with a release store and spun on with acquire loads orders the data.
    let flag = handoff(
        "st.release.cta.shared.u32 [%r3+128], 1;",
        "SPIN:\n  ld.acquire.cta.shared.u32 %r7, [%r3+128];\n  setp.eq.u32 %p2, %r7, 0;\n  @%p2 bra SPIN;",
    );
    assert!(findings(&flag, "k", 64, &[4], &[], race()).is_empty());
}

#[test]
fn write_after_read_between_warps() {
    // Warp 1 reads word 0 and warp 0 then overwrites it, nothing in between.
    let p = program(
        "
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .shared .align 4 .b32 buf[4];
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, buf;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.shared.u32 [%r3], 7;
  bar.sync 0;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra W;
  ld.shared.u32 %r2, [%r3];
  bra E;
W:
  st.shared.u32 [%r3+4], %r1;
  st.shared.u32 [%r3], %r1;
E:
  ret;
}
",
    );
    let f = findings(&p, "k", 64, &[4], &[], race());
    // Warp 0 runs first (its two stores), then warp 1 reads: a read-after-write race. Either
    // order of the two warps is a hazard; the interpreter's order decides which is named.
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].what.contains("hazard"), "{}", f[0].what);
}

fn reg() -> Checks {
    Checks {
        reg: true,
        ..Checks::default()
    }
}

/// Findings of `class` only.
fn of(f: Vec<Finding>, class: Class) -> Vec<Finding> {
    f.into_iter().filter(|f| f.class == class).collect()
}

const LOCAL: &str = "
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .local .align 4 .b32 arr[8];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u64 %rd2, arr;
  st.local.u32 [%rd2], %r1;
  st.local.u32 [%rd2+4], %r1;
  ld.local.u32 %r2, [%rd2+OFF];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r2;
  ret;
}
";

#[test]
fn local_read_before_write() {
    // Each thread writes arr[0] and arr[1]; reading arr[2] reads a byte never written.
    let p = program(&LOCAL.replace("OFF", "8"));
    let f = findings(&p, "k", 32, &[128], &[], init());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].class, Class::Init);
    assert_eq!(f[0].space.as_deref(), Some("local"));
    assert_eq!(f[0].addr, Some(8));
    assert_eq!(f[0].count, 32);
    assert!(
        f[0].site.inst.starts_with("ld.local.u32"),
        "{}",
        f[0].site.inst
    );
    assert!(f[0].what.contains("local memory"), "{}", f[0].what);
    // Reading what it wrote: clean, under every check.
    let p = program(&LOCAL.replace("OFF", "4"));
    let all = Checks::parse("all,reg").unwrap();
    assert!(findings(&p, "k", 32, &[128], &[], all).is_empty());
}

#[test]
fn a_read_the_thread_writes_back_is_no_finding() {
    // A bit-field store's read-modify-write of an unwritten word (nvcc -G code): the read
    // is taken back by the store of the same bytes.
    let body = LOCAL.replace(
        "ld.local.u32 %r2, [%rd2+OFF];",
        "ld.local.u32 %r2, [%rd2+8]; or.b32 %r2, %r2, 1; st.local.u32 [%rd2+8], %r2;",
    );
    assert!(findings(&program(&body), "k", 4, &[16], &[], init()).is_empty());
    // Writing other bytes takes nothing back.
    let body = LOCAL.replace(
        "ld.local.u32 %r2, [%rd2+OFF];",
        "ld.local.u32 %r2, [%rd2+8]; st.local.u32 [%rd2+12], %r2;",
    );
    let f = findings(&program(&body), "k", 4, &[16], &[], init());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].count, 4);
}

#[test]
fn local_generic_address_is_checked() {
    // The same read through a generic address (`cvta.local`).
    let body = LOCAL.replace("OFF", "8").replace(
        "ld.local.u32 %r2, [%rd2+8];",
        "cvta.local.u64 %rd5, %rd2; ld.u32 %r2, [%rd5+8];",
    );
    let f = findings(&program(&body), "k", 4, &[16], &[], init());
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].site.inst.starts_with("ld.u32"), "{}", f[0].site.inst);
}

/// `f` writes its local word when `w` is non-zero and reads it; the kernel calls it twice,
/// with `W1` then `W2`.
const FRAMES: &str = "
.func (.reg .b32 rv) f (.reg .b32 w)
{
  .reg .pred %p<2>;
  .reg .b64 %rd<4>;
  .local .align 4 .b32 v;
  mov.u64 %rd1, v;
  setp.ne.u32 %p1, w, 0;
  @%p1 st.local.u32 [%rd1], w;
  ld.local.u32 rv, [%rd1];
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  call (%r1), f, (W1);
  call (%r2), f, (W2);
  add.u32 %r3, %r1, %r2;
  st.global.u32 [%rd1], %r3;
  ret;
}
";

#[test]
fn a_callees_frame_is_uninitialised_at_each_call() {
    // The second call reads its frame's word, which the first call wrote: still a finding.
    let p = program(&FRAMES.replace("W1", "7").replace("W2", "0"));
    let f = findings(&p, "k", 1, &[4], &[], init());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].site.function, "f");
    assert!(
        f[0].site.inst.starts_with("ld.local.u32"),
        "{}",
        f[0].site.inst
    );
    let p = program(&FRAMES.replace("W1", "7").replace("W2", "5"));
    assert!(findings(&p, "k", 1, &[4], &[], Checks::all()).is_empty());
}

const ALLOCA: &str = "
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  stacksave.u64 %rd6;
  alloca.u64 %rd2, 16;
  st.local.u32 [%rd2], 5;
  ld.local.u32 %r1, [%rd2];
  stackrestore.u64 %rd6;
  alloca.u64 %rd3, 16;
  ld.local.u32 %r2, [%rd3+OFF];
  add.u32 %r3, %r1, %r2;
  st.global.u32 [%rd1], %r3;
  ret;
}
";

#[test]
fn alloca_memory_is_uninitialised_when_allocated() {
    // The second `alloca` gets the first's bytes back, unwritten again.
    let f = findings(
        &program(&ALLOCA.replace("OFF", "0")),
        "k",
        1,
        &[4],
        &[],
        init(),
    );
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].site.inst.starts_with("ld.local.u32 %r2"),
        "{}",
        f[0].site.inst
    );
    assert_eq!(f[0].space.as_deref(), Some("local"));
    // Writing it first: clean.
    let clean = ALLOCA.replace("OFF", "0").replace(
        "ld.local.u32 %r2, [%rd3+0];",
        "st.local.u32 [%rd3], 1; ld.local.u32 %r2, [%rd3];",
    );
    assert!(findings(&program(&clean), "k", 1, &[4], &[], Checks::all()).is_empty());
}

const REGS: &str = "
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 4;
  @%p1 mov.u32 %r2, 9;
  BODY
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
";

#[test]
fn register_read_before_write() {
    // Lanes 4 to 7 read %r2, which only lanes 0 to 3 wrote.
    let p = program(&REGS.replace("BODY", "add.u32 %r3, %r2, 1;"));
    let f = findings(&p, "k", 8, &[32], &[], reg());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].class, Class::Reg);
    assert_eq!(f[0].threads[0].tid, [4, 0, 0]);
    assert_eq!(f[0].count, 4);
    assert!(f[0].what.contains("%r2"), "{}", f[0].what);
    assert!(
        f[0].site.inst.starts_with("add.u32 %r3"),
        "{}",
        f[0].site.inst
    );
    assert_eq!(Class::Reg.name(), "reg");
    // Not a check of `init`.
    assert!(findings(&p, "k", 8, &[32], &[], init()).is_empty());
    // Read only where written: clean.
    let all = Checks::parse("all,reg").unwrap();
    let p = program(&REGS.replace("BODY", "mov.u32 %r3, 0; @%p1 add.u32 %r3, %r2, 1;"));
    assert!(findings(&p, "k", 8, &[32], &[], all).is_empty());
    // Four threads, all of which write it: clean.
    let p = program(&REGS.replace("BODY", "add.u32 %r3, %r2, 1;"));
    assert!(findings(&p, "k", 4, &[16], &[], all).is_empty());
}

#[test]
fn register_checks_see_guards_addresses_and_vectors() {
    // A guard never written.
    let p = program(&REGS.replace("BODY", "mov.u32 %r3, 1; @%p2 mov.u32 %r3, 2;"));
    let f = findings(&p, "k", 4, &[16], &[], reg());
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].what.contains("%p2"), "{}", f[0].what);
    // An address base never written (found before the access faults at address 0).
    let p = program(&REGS.replace("BODY", "ld.global.u32 %r3, [%rd5];"));
    let e = p
        .launch("k")
        .block([4, 1, 1])
        .checks(reg())
        .arg(Arg::Buffer(vec![0; 16]))
        .run()
        .expect_err("faults");
    let f = &e.outcome.findings;
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].what.contains("%rd5"), "{}", f[0].what);
    // A vector element never written; the destination vector counts as written.
    let p = program(&REGS.replace(
        "BODY",
        "mov.b64 %rd4, {%r2, %r5}; mov.b64 {%r3, %r4}, %rd4; add.u32 %r3, %r3, %r4;",
    ));
    let f = findings(&p, "k", 4, &[16], &[], reg());
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].what.contains("%r5"), "{}", f[0].what);
    assert!(
        f[0].site.inst.starts_with("mov.b64 %rd4"),
        "{}",
        f[0].site.inst
    );
}

#[test]
fn register_reads_the_isa_ignores_are_not_findings() {
    // `selp` reads only the operand it selects: %r2 where %p1 holds.
    let p = program(&REGS.replace("BODY", "selp.u32 %r3, %r2, 0, %p1;"));
    assert!(findings(&p, "k", 8, &[32], &[], reg()).is_empty());
    // Selected where it was not written: a finding.
    let p = program(&REGS.replace("BODY", "selp.u32 %r3, 0, %r2, %p1;"));
    let f = findings(&p, "k", 8, &[32], &[], reg());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].count, 4);
    // `prmt` with a selector naming only `a`'s bytes does not read `b`.
    let p = program(&REGS.replace("BODY", "prmt.b32 %r3, %r1, %r5, 0x3210;"));
    assert!(findings(&p, "k", 4, &[16], &[], reg()).is_empty());
    let p = program(&REGS.replace("BODY", "prmt.b32 %r3, %r1, %r5, 0x5410;"));
    assert_eq!(findings(&p, "k", 4, &[16], &[], reg()).len(), 1);
    // A `mov` of a register to itself.
    let p = program(&REGS.replace("BODY", "mov.u32 %r5, %r5; mov.u32 %r3, 1;"));
    assert!(findings(&p, "k", 4, &[16], &[], reg()).is_empty());
}

#[test]
fn a_callees_registers_are_unwritten_at_each_call() {
    // `g` writes %r1 only when its parameter is non-zero and returns it: its parameter and
    // the caller's return register count as written, the second call's %r1 does not.
    let body = "
.func (.reg .b32 rv) g (.reg .b32 w)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  setp.ne.u32 %p1, w, 0;
  @%p1 mov.u32 %r1, w;
  mov.u32 rv, %r1;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  call (%r1), g, (3);
  call (%r2), g, (W2);
  add.u32 %r3, %r1, %r2;
  st.global.u32 [%rd1], %r3;
  ret;
}
";
    let f = findings(&program(&body.replace("W2", "0")), "k", 1, &[4], &[], reg());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].site.function, "g");
    assert!(f[0].what.contains("%r1"), "{}", f[0].what);
    let f = findings(
        &program(&body.replace("W2", "4")),
        "k",
        1,
        &[4],
        &[],
        Checks::all(),
    );
    assert!(of(f, Class::Reg).is_empty());
}

#[test]
fn parse_names_reg() {
    let c = Checks::parse("reg").unwrap();
    assert!(c.reg && !c.init && !c.mem);
    // `all` is every check but `reg`; `all,reg` is every check.
    assert!(!Checks::all().reg);
    let c = Checks::parse("all,reg").unwrap();
    assert!(c.reg && c.init && c.race);
    assert!(Checks::parse("init,reg").unwrap().init);
}

/// Runs `entry` of `src` (a whole module) with `block` threads and the checks, expecting the
/// launch to fail; returns the findings and the error.
fn failing(src: &str, entry: &str, block: u32, c: Checks) -> (Vec<Finding>, String) {
    let m = ptx_ir_text::parse(src).expect("parses");
    let p = Program::load(&m).expect("loads");
    let f = p
        .launch(entry)
        .block([block, 1, 1])
        .arg(Arg::Buffer(vec![0; 4]))
        .checks(c)
        .threads(4)
        .run()
        .expect_err("fails");
    (f.outcome.findings, f.error.to_string())
}

/// The one finding of `f`, of class `sync`, at an instruction starting with `inst`, saying
/// `what`.
fn one_sync<'a>(f: &'a [Finding], inst: &str, what: &str) -> &'a Finding {
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].class, Class::Sync);
    assert!(f[0].site.inst.starts_with(inst), "{}", f[0].site.inst);
    assert!(f[0].what.contains(what), "{}", f[0].what);
    &f[0]
}

#[test]
fn membermasks_that_disagree() {
    // Lane 0 names the whole warp, the other lanes all but lane 0: lane 0's members give
    // another membermask.
    let body = |inst: &str| {
        format!(
            "
.visible .entry k(.param .u64 out)
{{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  selp.b32 %r2, -1, -2, %p1;
  {inst}
  ret;
}}
"
        )
    };
    for inst in [
        "bar.warp.sync %r2;",
        "shfl.sync.idx.b32 %r3, %r1, 0, 31, %r2;",
        "vote.sync.ballot.b32 %r3, %p1, %r2;",
        "redux.sync.add.u32 %r3, %r1, %r2;",
        "match.any.sync.b32 %r3, %r1, %r2;",
        "elect.sync %r3|%p1, %r2;",
    ] {
        let p = program(&body(inst));
        let f = findings(&p, "k", 32, &[4], &[], sync());
        let f = one_sync(&f, &inst[..inst.find(' ').unwrap()], "same membermask");
        assert_eq!(f.threads.len(), 2);
        assert_eq!((f.threads[0].lane, f.threads[1].lane), (0, 1));
        assert!(findings(&p, "k", 32, &[4], &[], Checks::default()).is_empty());
    }
    // Every lane the same mask, and two disjoint halves with a mask each: clean.
    for mask in ["-1", "%r4"] {
        let p = program(&format!(
            "
.visible .entry k(.param .u64 out)
{{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  selp.b32 %r4, 0xffff, 0xffff0000, %p1;
  bar.warp.sync {mask};
  shfl.sync.bfly.b32 %r3, %r1, 1, 31, {mask};
  ret;
}}
"
        ));
        assert!(findings(&p, "k", 32, &[4], &[], Checks::all()).is_empty());
    }
}

#[test]
fn collective_waits_for_lanes_at_another_instruction() {
    // Lanes 0..15 and 16..31 reach two different bar.warp.sync -1: neither completes.
    let src = format!(
        "{HEAD}
.visible .entry k(.param .u64 out)
{{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra A;
  bar.warp.sync -1;
  bra E;
A:
  bar.warp.sync -1;
E:
  ret;
}}
"
    );
    let (f, e) = failing(&src, "k", 32, sync());
    assert!(e.contains("deadlock"), "{e}");
    assert_eq!(f.len(), 2, "{f:?}");
    for f in &f {
        assert_eq!(f.class, Class::Sync);
        assert!(
            f.what.contains("never execute this instruction"),
            "{}",
            f.what
        );
        assert_eq!(f.threads.len(), 2);
    }
    assert_ne!(f[0].site.index, f[1].site.index);
    // Without the check: the same deadlock, no finding.
    let (f, _) = failing(&src, "k", 32, Checks::default());
    assert!(f.is_empty());
}

#[test]
fn barrier_that_never_completes() {
    // Warp 0 waits at bar.sync 1, 64; warp 1 never arrives (it waits at barrier 2).
    let src = format!(
        "{HEAD}
.visible .entry k(.param .u64 out)
{{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra A;
  bar.sync 2, 64;
  bra E;
A:
  bar.sync 1, 64;
E:
  ret;
}}
"
    );
    let (f, e) = failing(&src, "k", 64, sync());
    assert!(e.contains("deadlock"), "{e}");
    assert_eq!(f.len(), 2, "{f:?}");
    assert!(f
        .iter()
        .all(|f| f.class == Class::Sync
            && f.what.contains("never completes: 32 of 64 threads arrived")));
}

#[test]
fn thread_outside_its_membermask_is_a_finding_too() {
    // Lane 0 executes shfl.sync with a membermask without lane 0: undefined (an error), and
    // with the sync check a finding at the instruction.
    let src = format!(
        "{HEAD}
.visible .entry k(.param .u64 out)
{{
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  shfl.sync.idx.b32 %r3, %r1, 0, 31, 0xfffffffe;
  ret;
}}
"
    );
    let (f, e) = failing(&src, "k", 32, sync());
    assert!(e.contains("outside its own membermask"), "{e}");
    let f = one_sync(&f, "shfl.sync", "outside its own membermask");
    assert_eq!(f.threads[0].lane, 0);
    assert!(failing(&src, "k", 32, Checks::default()).0.is_empty());
    // The mem check alone does not report it.
    assert!(failing(&src, "k", 32, Checks::parse("mem").unwrap())
        .0
        .is_empty());
}

/// A CTA of `block` threads: thread 0 initialises mbarrier `bar` with count `count`, a
/// `bar.sync`, then `body`.
fn mbar(count: u32, body: &str) -> String {
    format!(
        "{HEAD}
.visible .entry k(.param .u64 out)
{{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [bar], {count};
  bar.sync 0;
  {body}
  ret;
}}
"
    )
}

#[test]
fn mbarrier_misuse() {
    let cases = [
        // Two arrivals on a barrier expecting one, in one phase.
        (
            mbar(1, "@%p1 mbarrier.arrive.shared.b64 %rd1, [bar], 2;"),
            "@%p1 mbarrier.arrive",
            "only 1 arrivals are pending",
        ),
        // Initialised again while valid (pending arrivals).
        (
            mbar(2, "@%p1 mbarrier.init.shared.b64 [bar], 2;"),
            "@%p1 mbarrier.init",
            "holds a valid mbarrier object",
        ),
        // Invalidated, then waited on (the message names the inval).
        (
            mbar(
                1,
                "@%p1 mbarrier.inval.shared.b64 [bar];\n  bar.sync 0;\n  mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;",
            ),
            "mbarrier.try_wait",
            "`@%p1 mbarrier.inval.shared.b64 [bar]` (#4) invalidated",
        ),
        // A phase parity other than 0 or 1.
        (
            mbar(1, "mbarrier.try_wait.parity.shared.b64 %p2, [bar], 2;"),
            "mbarrier.try_wait",
            "neither 0 nor 1",
        ),
    ];
    for (src, inst, what) in &cases {
        let (f, e) = failing(src, "k", 32, sync());
        assert!(e.contains(what), "{e}");
        one_sync(&f, inst, what);
        assert!(failing(src, "k", 32, Checks::default()).0.is_empty());
    }
    // Used by the book: clean.
    let ok = mbar(
        32,
        "mbarrier.arrive.shared.b64 %rd1, [bar];\n  \
         W: mbarrier.try_wait.shared.b64 %p2, [bar], %rd1;\n  @!%p2 bra W;\n  \
         bar.sync 0;\n  @%p1 mbarrier.inval.shared.b64 [bar];",
    );
    let m = ptx_ir_text::parse(&ok).expect("parses");
    let p = Program::load(&m).expect("loads");
    assert!(findings(&p, "k", 32, &[4], &[], Checks::all()).is_empty());
}

/// Warp 0 of a 64-thread CTA runs `body` between allocating 32 columns of tensor memory into
/// `%r2` and the end.
fn tmem(body: &str) -> String {
    format!(
        ".version 8.7\n.target sm_100a\n.address_size 64
.visible .entry k(.param .u64 out)
{{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .shared .align 8 .b32 taddr;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @!%p1 bra E;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [taddr], 32;
  ld.shared.u32 %r2, [taddr];
  {body}
E:
  ret;
}}
"
    )
}

#[test]
fn tensor_memory_allocation_rules() {
    let cases = [
        // Never freed: the leak is found when the CTA exits, at the allocation.
        (
            tmem(""),
            "tcgen05.alloc",
            "were not deallocated before the CTA exited",
        ),
        // Allocating after giving up the permit.
        (
            tmem(
                "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n  \
                 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [taddr], 32;",
            ),
            "tcgen05.alloc",
            "after a thread of the CTA executed tcgen05.relinquish_alloc_permit",
        ),
        // Freeing twice.
        (
            tmem(
                "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;\n  \
                 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;",
            ),
            "tcgen05.dealloc",
            "not a previous allocation",
        ),
    ];
    for (src, inst, what) in &cases {
        let (f, e) = failing(src, "k", 64, sync());
        assert!(e.contains(what), "{e}");
        let f = one_sync(&f, inst, what);
        assert!(f.threads[0].tid[0] < 32);
        assert!(failing(src, "k", 64, Checks::default()).0.is_empty());
    }
    // Freed, then the permit given up: clean.
    let ok = tmem(
        "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;\n  \
         tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
    );
    let m = ptx_ir_text::parse(&ok).expect("parses");
    let p = Program::load(&m).expect("loads");
    assert!(findings(&p, "k", 64, &[4], &[], Checks::all()).is_empty());
}

/// Runs `entry` on `grid` CTAs of `block` threads with buffers `bufs` and the checks, on one
/// worker and on four: the findings, which must be the same.
fn grid_findings(p: &Program, entry: &str, grid: u32, block: u32, bufs: &[usize]) -> Vec<Finding> {
    let run = |threads: u32| {
        let mut l = p
            .launch(entry)
            .grid([grid, 1, 1])
            .block([block, 1, 1])
            .checks(Checks::all())
            .threads(threads);
        for &n in bufs {
            l = l.arg(Arg::Buffer(vec![0; n]));
        }
        l.run().expect("runs").findings
    };
    let one = run(1);
    assert_eq!(one, run(4), "the findings do not depend on the workers");
    one
}

/// The race findings on global memory of `f`.
fn global_races(f: &[Finding]) -> Vec<&Finding> {
    f.iter()
        .filter(|f| f.class == Class::Race && f.space.as_deref() == Some("global"))
        .collect()
}

#[test]
fn global_plain_increment_across_ctas_races() {
    // Thread 0 of every CTA adds one to the same word with a plain load and store.
    let p = program(
        "
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra E;
  ld.global.u32 %r2, [%rd1];
  add.u32 %r2, %r2, 1;
  st.global.u32 [%rd1], %r2;
E:
  ret;
}
",
    );
    let f = grid_findings(&p, "k", 4, 32, &[4]);
    let g = global_races(&f);
    assert!(!g.is_empty(), "{f:?}");
    assert!(g[0].what.contains("another cluster"), "{}", g[0].what);
    let ctas: Vec<u32> = g[0].threads.iter().map(|t| t.ctaid[0]).collect();
    assert_ne!(ctas[0], ctas[1], "{:?}", g[0]);
    // With an atomic instead there is nothing to report.
    let atomic = program(
        "
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  atom.global.add.u32 %r2, [%rd1], 1;
  red.global.add.u32 [%rd1+4], 1;
  ret;
}
",
    );
    assert!(grid_findings(&atomic, "k", 4, 64, &[8]).is_empty());
}

/// Thread 0 (warp 0) writes a global word, thread 32 (warp 1) reads it; `SYNC` is between.
const GLOBAL_HANDOFF: &str = "
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.global.u32 [%rd1], 7;
  SYNC
  setp.eq.u32 %p1, %r1, 32;
  @%p1 ld.global.u32 %r2, [%rd1];
  @%p1 st.global.u32 [%rd1+4], %r2;
  ret;
}
";

#[test]
fn global_handoff_between_warps_of_a_cta() {
    let racy = program(&GLOBAL_HANDOFF.replace("SYNC", ""));
    let f = grid_findings(&racy, "k", 1, 64, &[8]);
    let g = global_races(&f);
    assert_eq!(g.len(), 1, "{f:?}");
    assert!(g[0].what.contains("read-after-write"), "{}", g[0].what);
    assert!(
        g[0].site.inst.contains("ld.global.u32"),
        "{}",
        g[0].site.inst
    );
    let tids: Vec<u32> = g[0].threads.iter().map(|t| t.tid[0]).collect();
    assert_eq!(tids, [32, 0]);
    let ordered = program(&GLOBAL_HANDOFF.replace("SYNC", "bar.sync 0;"));
    assert!(grid_findings(&ordered, "k", 1, 64, &[8]).is_empty());
    // Two CTAs: each one's handoff is ordered, but both write word 0 (no sync between CTAs).
    let f = grid_findings(&ordered, "k", 2, 64, &[8]);
    let g = global_races(&f);
    assert!(!g.is_empty(), "{f:?}");
    assert!(
        g.iter().all(|f| f.what.contains("another cluster")),
        "{g:?}"
    );
}

#[test]
fn global_slices_read_by_another_cta_race() {
    // Each CTA writes its own slice, then reads the other CTA's slice without synchronising.
    let p = program(
        "
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mad.lo.u32 %r3, %r2, 32, %r1;
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  xor.b32 %r4, %r2, 1;
  mad.lo.u32 %r5, %r4, 32, %r1;
  mul.wide.u32 %rd4, %r5, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.u32 %r6, [%rd5];
  ret;
}
",
    );
    let f = grid_findings(&p, "k", 2, 32, &[256]);
    let g = global_races(&f);
    assert!(!g.is_empty(), "{f:?}");
    assert!(g
        .iter()
        .all(|f| f.threads[0].ctaid[0] == 1 && f.threads[1].ctaid[0] == 0));
}

/// The threadfence reduction: each CTA stores its partial sums, `FENCE`, thread 0 takes a
/// ticket with an atomic; the CTA that takes the last ticket reads every partial sum.
const FENCE_REDUCTION: &str = "
.visible .entry k(.param .u64 part, .param .u64 count, .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 last;
  ld.param.u64 %rd1, [part];
  ld.param.u64 %rd2, [count];
  ld.param.u64 %rd7, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %nctaid.x;
  mov.u32 %r9, %ntid.x;
  mad.lo.u32 %r4, %r2, %r9, %r1;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r4;
  bar.sync 0;
  setp.eq.u32 %p1, %r1, 0;
  @!%p1 bra WAIT;
  FENCE
  atom.global.add.u32 %r5, [%rd2], 1;
  sub.u32 %r6, %r3, 1;
  setp.eq.u32 %p2, %r5, %r6;
  selp.u32 %r7, 1, 0, %p2;
  st.shared.u32 [last], %r7;
WAIT:
  bar.sync 0;
  ld.shared.u32 %r8, [last];
  setp.eq.u32 %p3, %r8, 0;
  @%p3 bra E;
  mov.u32 %r10, 0;
  mov.u32 %r11, %r1;
  mul.lo.u32 %r12, %r3, %r9;
LOOP:
  mul.wide.u32 %rd5, %r11, 4;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.u32 %r13, [%rd6];
  add.u32 %r10, %r10, %r13;
  add.u32 %r11, %r11, %r9;
  setp.lt.u32 %p2, %r11, %r12;
  @%p2 bra LOOP;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd7, %rd5;
  st.global.u32 [%rd6], %r10;
E:
  ret;
}
";

#[test]
fn threadfence_reduction_is_clean() {
    for fence in ["membar.gl;", "fence.acq_rel.gpu;", "fence.sc.gpu;"] {
        let p = program(&FENCE_REDUCTION.replace("FENCE", fence));
        let f = grid_findings(&p, "k", 4, 64, &[4 * 256, 4, 4 * 64]);
        assert!(f.is_empty(), "{fence}: {f:?}");
    }
    // Without the fence and the atomic (a plain counter), the last CTA's reads race with the
    // other CTAs' partial sums.
    let p = program(&FENCE_REDUCTION.replace("FENCE", "").replace(
        "atom.global.add.u32 %r5, [%rd2], 1;",
        "ld.global.u32 %r5, [%rd2];\n  add.u32 %r15, %r5, 1;\n  st.global.u32 [%rd2], %r15;",
    ));
    let f = grid_findings(&p, "k", 4, 64, &[4 * 256, 4, 4 * 64]);
    assert!(!global_races(&f).is_empty(), "{f:?}");
}

/// One warp sums 32 shared words into word 0, warp-synchronously: `SYNC` after each step.
const WARP_REDUCE: &str = "
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .shared .align 4 .b32 s[32];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %r1;
  SYNC
  mov.u32 %r5, 16;
LOOP:
  setp.lt.u32 %p1, %r1, %r5;
  shl.b32 %r6, %r5, 2;
  add.u32 %r7, %r4, %r6;
  @%p1 ld.shared.u32 %r8, [%r7];
  @%p1 ld.shared.u32 %r9, [%r4];
  add.u32 %r9, %r9, %r8;
  @%p1 st.shared.u32 [%r4], %r9;
  SYNC
  shr.u32 %r5, %r5, 1;
  setp.ne.u32 %p1, %r5, 0;
  @%p1 bra LOOP;
  ret;
}
";

#[test]
fn lanes_of_one_warp_race_without_syncwarp() {
    let racy = program(&WARP_REDUCE.replace("SYNC", ""));
    let f = findings(&racy, "k", 32, &[4], &[], race());
    assert!(!f.is_empty());
    assert!(f.iter().all(|f| f.class == Class::Race), "{f:?}");
    // The first: lane 0 reads word 16, which lane 16 stored (no `bar.warp.sync` between).
    assert!(f[0].what.contains("read-after-write"), "{}", f[0].what);
    assert!(f[0].what.contains("same warp"), "{}", f[0].what);
    let tids: Vec<u32> = f[0].threads.iter().map(|t| t.tid[0]).collect();
    assert_eq!(tids, [0, 16]);
    let synced = program(&WARP_REDUCE.replace("SYNC", "bar.warp.sync -1;"));
    assert!(findings(&synced, "k", 32, &[4], &[], Checks::all()).is_empty());
}

#[test]
fn one_lane_writes_all_read_after_syncwarp() {
    let src = "
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 v;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.shared.u32 [v], 42;
  @%p1 st.global.u32 [%rd1], 42;
  SYNC
  ld.shared.u32 %r2, [v];
  ld.global.u32 %r3, [%rd1];
  st.shared.u32 [v], 42;
  ret;
}
";
    let synced = program(&src.replace("SYNC", "bar.warp.sync -1;"));
    // The last store of every lane is unordered with the other lanes' loads too, but each
    // lane loaded the word itself in that execution: not reported (conservative).
    assert!(findings(&synced, "k", 32, &[4], &[], Checks::all()).is_empty());
    // Without the first `bar.warp.sync`, the reads of shared and global memory race.
    let racy = program(&src.replace("SYNC", ""));
    let f = findings(&racy, "k", 32, &[4], &[], race());
    let spaces: Vec<&str> = f.iter().filter_map(|f| f.space.as_deref()).collect();
    assert!(
        spaces.contains(&"shared") && spaces.contains(&"global"),
        "{f:?}"
    );
    // All lanes storing to one word in one instruction is no race.
    let all = program(
        "
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .shared .align 4 .b32 v;
  st.shared.u32 [v], 1;
  ld.shared.u32 %r1, [v];
  ret;
}
",
    );
    assert!(findings(&all, "k", 32, &[4], &[], race()).is_empty());
}

/// Warp 0's thread 0 copies 64 bytes of global memory into `buf` with a bulk copy tracked by
/// an mbarrier and waits for it; warp 1 then reads `buf` after `CONSUME`. `PRE` runs in warp 1
/// before the copy is issued.
const BULK: &str = "
.visible .entry k(.param .u64 in)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b32 buf[16];
  ld.param.u64 %rd1, [in];
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, buf;
  mov.u32 %r9, bar;
  setp.eq.u32 %p3, %r1, 0;
  @%p3 mbarrier.init.shared.b64 [%r9], 1;
  @%p3 st.shared.u32 [%r3+60], 0;
  bar.sync 0;
  setp.lt.u32 %p1, %r1, 32;
  @!%p1 bra CONS;
  @!%p3 bra END;
  PRODUCE
  mbarrier.arrive.expect_tx.shared.b64 %rd2, [%r9], 64;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd1], 64, [%r9];
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p2, [%r9], 0;
  @!%p2 bra WAIT;
  AFTER
  bra END;
CONS:
  PRE
  CONSUME
  ld.shared.u32 %r6, [%r3+60];
END:
  ret;
}
";

fn bulk(produce: &str, after: &str, pre: &str, consume: &str) -> Vec<Finding> {
    let p = program(
        &BULK
            .replace("PRODUCE", produce)
            .replace("AFTER", after)
            .replace("PRE", pre)
            .replace("CONSUME", consume),
    );
    findings(&p, "k", 64, &[64], &[], Checks::all())
}

#[test]
fn asynchronous_copies_race_with_readers_that_do_not_wait() {
    // The consumer waits on the copy's mbarrier: ordered.
    let wait = "W2:\n  mbarrier.try_wait.parity.shared.b64 %p2, [%r9], 0;\n  @!%p2 bra W2;";
    assert!(
        bulk("", "", "", wait).is_empty(),
        "{:?}",
        bulk("", "", "", wait)
    );
    // The producer waits and then arrives at a named barrier the consumer syncs on: ordered.
    let f = bulk("", "barrier.arrive 1, 64;", "", "barrier.sync 1, 64;");
    assert!(f.is_empty(), "{f:?}");
    // The consumer syncs on a named barrier that the producer arrives at before issuing the
    // copy: the read is not ordered after the copy (the interpreter completes it at the
    // producer's wait, so the read sees the data, but a GPU need not).
    let f = bulk("barrier.arrive 1, 64;", "", "", "barrier.sync 1, 64;");
    let races = of(f, Class::Race);
    assert_eq!(races.len(), 1, "{races:?}");
    let r = &races[0];
    assert!(r.what.contains("asynchronous operation"), "{}", r.what);
    // `buf` is 16-aligned after the 8-byte mbarrier.
    assert_eq!(r.addr, Some(16 + 60));
    let mut tids: Vec<u32> = r.threads.iter().map(|t| t.tid[0]).collect();
    tids.sort();
    assert_eq!(tids, [0, 32]);
}

#[test]
fn asynchronous_copy_overwriting_a_stage_still_read_races() {
    // Warp 1 reads the stage, then the copy overwrites it with nothing ordering the read
    // before the issue (a pipeline reusing a stage before its consumer released it); the
    // consumer then waits on the mbarrier, so its second read is ordered.
    let wait = "W2:\n  mbarrier.try_wait.parity.shared.b64 %p2, [%r9], 0;\n  @!%p2 bra W2;";
    let f = bulk("", "", "ld.shared.u32 %r7, [%r3+60];", wait);
    let races = of(f, Class::Race);
    assert_eq!(races.len(), 1, "{races:?}");
    assert!(
        races[0].site.inst.starts_with("cp.async.bulk"),
        "{}",
        races[0].site.inst
    );
    assert!(
        races[0].what.contains("write-after-read"),
        "{}",
        races[0].what
    );
    // The consumer releases the stage through a second mbarrier... here a named barrier that
    // the producer waits at before issuing: ordered.
    let f = bulk(
        "barrier.sync 2, 64;",
        "",
        "ld.shared.u32 %r7, [%r3+60];\n  barrier.arrive 2, 64;",
        wait,
    );
    assert!(of(f, Class::Race).is_empty());
}

/// Every thread copies its own word with `cp.async` and waits for its group; then it reads
/// its neighbour's word (`SYNC` between).
const CP_ASYNC: &str = "
.visible .entry k(.param .u64 in)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b32 buf[64];
  ld.param.u64 %rd1, [in];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  cvt.u64.u32 %rd2, %r2;
  add.s64 %rd2, %rd1, %rd2;
  cp.async.ca.shared.global [%r4], [%rd2], 4;
  cp.async.commit_group;
  cp.async.wait_group 0;
  SYNC
  add.u32 %r5, %r1, 32;
  and.b32 %r5, %r5, 63;
  shl.b32 %r5, %r5, 2;
  add.u32 %r5, %r3, %r5;
  ld.shared.u32 %r6, [%r5];
  ret;
}
";

#[test]
fn cp_async_data_of_another_warp_needs_a_barrier() {
    let p = program(&CP_ASYNC.replace("SYNC", "bar.sync 0;"));
    assert!(findings(&p, "k", 64, &[256], &[], Checks::all()).is_empty());
    // Without the barrier each warp reads words the other warp's copies wrote: the first
    // warp to run reads before the other's copies were even issued (write-after-read at
    // their completion), the second after they completed but unordered (read-after-write).
    let p = program(&CP_ASYNC.replace("SYNC", ""));
    let races = of(
        findings(&p, "k", 64, &[256], &[], Checks::all()),
        Class::Race,
    );
    assert!(!races.is_empty());
    assert!(
        races
            .iter()
            .all(|r| r.what.contains("asynchronous operation")),
        "{races:?}"
    );
}

/// Lane 0 of warp 0 stores a shared word; every lane of warp 1 reads it (a broadcast, which
/// the race check takes as one access of the lanes together): `SYNC` orders them, if
/// anything.
const BROADCAST: &str = "
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .shared .align 4 .b32 v[2];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.shared.u32 [v+4], 7;
  SYNC
  setp.ge.u32 %p1, %r1, 32;
  @%p1 ld.shared.v2.u32 {%r2, %r3}, [v];
  ret;
}
";

#[test]
fn broadcast_read_races_once_per_execution() {
    let racy = program(&BROADCAST.replace("SYNC", ""));
    let f = findings(&racy, "k", 64, &[4], &[], race());
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].what.contains("read-after-write"), "{}", f[0].what);
    let tids: Vec<u32> = f[0].threads.iter().map(|t| t.tid[0]).collect();
    assert_eq!(tids, [32, 0]);
    assert_eq!(f[0].addr, Some(0));
    // The lanes after the first join its access, as one by one they would.
    assert_eq!(f[0].count, 1);
    let synced = program(&BROADCAST.replace("SYNC", "bar.sync 0;"));
    assert!(findings(&synced, "k", 64, &[4], &[], race()).is_empty());
}

/// Lane 0 of warp 0 stores a texel of a surface; lane 0 of warp 1 loads it with `suld`:
/// `SYNC` orders them, if anything.
const SURFACE: &str = "
.visible .entry k(.param .u64 out, .param .u64 buf, .param .u64 surf)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd3, [surf];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 8;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 sust.b.1d.b32.trap [%rd3, {%r2}], %r1;
  SYNC
  setp.eq.u32 %p1, %r1, 32;
  @%p1 suld.b.1d.b32.trap %r3, [%rd3, {%r2}];
  @%p1 st.global.u32 [%rd1], %r3;
  ret;
}
";

#[test]
fn surface_load_races_with_an_unordered_store() {
    let run = |sync: &str| {
        let p = program(&SURFACE.replace("SYNC", sync));
        let surf =
            ptx_ir_interp::texture::SurfaceArg::parse("buf=1,type=u32,ch=1,dims=4").expect("spec");
        p.launch("k")
            .block([64, 1, 1])
            .checks(Checks::all())
            .arg(Arg::Buffer(vec![0; 4]))
            .arg(Arg::Buffer(vec![0; 16]))
            .arg(Arg::Surface(surf))
            .run()
            .expect("runs")
            .findings
    };
    let f = run("");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].class, Class::Race);
    assert!(f[0].what.contains("read-after-write"), "{}", f[0].what);
    assert!(f[0].site.inst.contains("suld"), "{}", f[0].site.inst);
    let tids: Vec<u32> = f[0].threads.iter().map(|t| t.tid[0]).collect();
    assert_eq!(tids, [32, 0]);
    assert!(run("bar.sync 0;").is_empty());
}

/// Lane 0 of warp 1 stores a global word; lane 0 of warp 0 copies it to shared memory with
/// `cp.async` (the asynchronous proxy reads it) and stores it back to global memory with a
/// bulk copy (the proxy writes it at the copy's completion); then lane 0 of warp 1 reads it.
/// `SYNC` orders the store before the copy, `SYNC2` the bulk copy's completion before the
/// read, if anything.
const ASYNC_GLOBAL: &str = "
.visible .entry k(.param .u64 g)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b32 buf[4];
  ld.param.u64 %rd1, [g];
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, buf;
  setp.eq.u32 %p1, %r1, 32;
  setp.eq.u32 %p2, %r1, 0;
  @%p1 st.global.u32 [%rd1], 5;
  SYNC
  @%p2 cp.async.cg.shared.global [%r3], [%rd1], 16;
  cp.async.commit_group;
  cp.async.wait_group 0;
  @%p2 fence.proxy.async.shared::cta;
  @%p2 cp.async.bulk.global.shared::cta.bulk_group [%rd1+16], [%r3], 16;
  @%p2 cp.async.bulk.commit_group;
  @%p2 cp.async.bulk.wait_group 0;
  SYNC2
  @%p1 ld.global.u32 %r5, [%rd1+16];
  ret;
}
";

#[test]
fn asynchronous_global_accesses_race_with_unordered_threads() {
    let run = |sync: &str, sync2: &str| {
        let p = program(&ASYNC_GLOBAL.replace("SYNC2", sync2).replace("SYNC", sync));
        of(
            findings(&p, "k", 64, &[64], &[], Checks::all()),
            Class::Race,
        )
    };
    assert_eq!(run("bar.sync 0;", "bar.sync 0;"), []);
    // The copy's read of the word warp 1 stores, with no barrier between (warp 0 runs first:
    // the store comes after the read; `cp.async` reads as its thread does).
    let f = run("", "bar.sync 0;");
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].site.inst.contains("st.global"), "{}", f[0].site.inst);
    assert!(f[0].what.contains("write-after-read"), "{}", f[0].what);
    assert!(f[0].what.contains("cp.async.cg"), "{}", f[0].what);
    // Warp 1's read of what the bulk copy writes, with no barrier after its wait_group (warp
    // 1 runs ahead: the read comes before the copy's completion writes the word).
    let f = run("bar.sync 0;", "");
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].site.inst.contains("cp.async.bulk"),
        "{}",
        f[0].site.inst
    );
    assert!(f[0].what.contains("write-after-read"), "{}", f[0].what);
    assert!(
        f[0].what.contains("this asynchronous operation's access"),
        "{}",
        f[0].what
    );
    assert_eq!(f[0].space.as_deref(), Some("global"));
    let tids: Vec<u32> = f[0].threads.iter().map(|t| t.tid[0]).collect();
    assert_eq!(tids, [0, 32]);
}

/// Two warps share 4 KiB of shared memory that every thread fills before a barrier; thread 0
/// then has `tcgen05` read it asynchronously (`ISSUE`: A at 0 and B at 2048 for the MMA, all
/// 4 KiB for `tcgen05.cp`), commits to `bar`, `SYNC`s, and warp 1 stores into B's rows
/// `BEFORE` or `AFTER` its wait on that commit.
const TCGEN05_OPERANDS: &str = "
.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 1024 .b8 sm[4096];
  .shared .align 8 .b32 taddr;
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [taddr], 32;
  mov.u32 %r3, sm;
  shl.b32 %r4, %r1, 6;
  add.u32 %r4, %r3, %r4;
  st.shared.v4.u32 [%r4], {%r1, %r1, %r1, %r1};
  st.shared.v4.u32 [%r4+16], {%r1, %r1, %r1, %r1};
  st.shared.v4.u32 [%r4+32], {%r1, %r1, %r1, %r1};
  st.shared.v4.u32 [%r4+48], {%r1, %r1, %r1, %r1};
  fence.proxy.async.shared::cta;
  setp.eq.u32 %p3, %r1, 0;
  @%p3 mbarrier.init.shared.b64 [bar], 1;
  fence.mbarrier_init.release.cluster;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  ld.shared.u32 %r10, [taddr];
  shr.u32 %r5, %r3, 4;
  cvt.u64.u32 %rd1, %r5;
  mov.b64 %rd4, 70437463654400;
  or.b64 %rd4, %rd4, 524288;
  add.s64 %rd2, %rd1, %rd4;
  add.s64 %rd3, %rd2, 128;
  mov.u32 %r11, 67239952;
  setp.ne.u32 %p5, %r1, %r1;
  @%p3 ISSUE
  @%p3 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar];
  SYNC
  @!%p1 BEFORE
W:
  mbarrier.try_wait.parity.shared.b64 %p7, [bar], 0;
  @!%p7 bra W;
  @!%p1 AFTER
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, 32;
  @%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
  ret;
}
";

#[test]
fn tcgen05_operands_race_with_stores_before_the_commit_completes() {
    let mma = "tcgen05.mma.cta_group::1.kind::f16 [%r10], %rd2, %rd3, %r11, %p5;";
    let cp = "tcgen05.cp.cta_group::1.128x256b [%r10], %rd2;";
    let store = "st.shared.u32 [%r3+2052], %r1;";
    let nop = "mov.u32 %r12, 0;";
    // Warp 0 arrives at a named barrier after the commit and warp 1 syncs on it: the store
    // comes after the issue, not after the reads' completion.
    let handshake = "@%p1 barrier.arrive 1, 64;\n  @!%p1 barrier.sync 1, 64;";
    let run = |issue: &str, sync: &str, before: &str, after: &str, c: Checks| {
        let src = TCGEN05_OPERANDS
            .replace("ISSUE", issue)
            .replace("SYNC", sync)
            .replace("BEFORE", before)
            .replace("AFTER", after);
        let m = ptx_ir_text::parse(&src).expect("parses");
        let p = Program::load(&m).expect("loads");
        findings(&p, "k", 64, &[4], &[], c)
    };
    for issue in [mma, cp] {
        let opname = issue.split('.').take(2).collect::<Vec<_>>().join(".");
        // The store waits for the commit's mbarrier phase: ordered after the reads.
        for sync in ["", handshake] {
            let f = run(issue, sync, nop, store, Checks::all());
            assert!(f.is_empty(), "{issue}: {f:?}");
        }
        // The store does not wait: unordered with the asynchronous read, which (warp 1 running
        // ahead) comes after it, or (after the handshake) before it.
        for (sync, kind) in [("", "read-after-write"), (handshake, "write-after-read")] {
            let f = run(issue, sync, store, nop, Checks::all());
            assert_eq!(f.len(), 1, "{issue}: {f:?}");
            assert_eq!(f[0].class, Class::Race);
            assert!(f[0].what.contains(kind), "{issue}: {}", f[0].what);
            assert_eq!(f[0].addr, Some(2052), "{f:?}");
            let mut tids: Vec<u32> = f[0].threads.iter().map(|t| t.tid[0]).collect();
            tids.sort();
            assert_eq!(tids, [0, 32], "{f:?}");
            assert!(
                f[0].site.inst.contains(&opname) || f[0].what.contains(&opname),
                "{opname}: {f:?}"
            );
            // Without the race check nothing is reported.
            assert!(run(issue, sync, store, nop, Checks::default()).is_empty());
        }
    }
}

/// Warp 0's threads loop over their own 16 bytes of global memory (`v4` loads and stores, and
/// `INNER` inside the loop), then warp 1 runs `AFTER` on thread 0's bytes, `SYNC` between.
const OWN_LOOP: &str = "
.visible .entry k(.param .u64 buf)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [buf];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @!%p1 bra OTHER;
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r8, 0;
L:
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd3];
  add.f32 %f1, %f1, %f2;
  st.global.v4.f32 [%rd3], {%f3, %f1, %f4, %f2};
  INNER
  add.u32 %r8, %r8, 1;
  setp.lt.u32 %p2, %r8, 8;
  @%p2 bra L;
OTHER:
  SYNC
  @!%p1 AFTER
  ret;
}
";

#[test]
fn a_thread_repeating_its_own_accesses_still_races_with_others() {
    let run = |inner: &str, sync: &str, after: &str| {
        let p = program(
            &OWN_LOOP
                .replace("INNER", inner)
                .replace("SYNC", sync)
                .replace("AFTER", after),
        );
        grid_findings(&p, "k", 1, 64, &[64 * 16])
    };
    let read = "ld.global.u32 %r9, [%rd1+4];";
    let write = "st.global.u32 [%rd1+8], %r1;";
    let byte = "st.global.u8 [%rd3+9], %r1;";
    for inner in ["", byte, "ld.global.u32 %r10, [%rd3+4];"] {
        for after in [read, write] {
            // Ordered by the barrier: clean.
            let f = run(inner, "bar.sync 0;", after);
            assert!(global_races(&f).is_empty(), "{inner} {after}: {f:?}");
            // Not ordered: one race on thread 0's word, whichever runs first.
            let f = run(inner, "", after);
            let r = global_races(&f);
            assert_eq!(r.len(), 1, "{inner} {after}: {f:?}");
            // Offsets 4 to 11 of the buffer (at a 4 KiB-aligned address).
            assert!(matches!(r[0].addr.map(|a| a % 4096), Some(4..=11)), "{r:?}");
            let mut tids: Vec<u32> = r[0].threads.iter().map(|t| t.tid[0]).collect();
            tids.sort();
            assert_eq!(tids[0], 0, "{r:?}");
            assert!(tids[1] >= 32, "{r:?}");
        }
    }
}

/// Threads of CTA rank 0 and 1 (64 each) update 64-bit words of shared memory through
/// `.shared::cluster`: `WORD` sets %r7 to the word's shared::cta address, `RANK` %r8 to the CTA,
/// `UPDATE` is the update of that address (%r9) by the threads it guards.
const REMOTE: &str = "
.visible .entry k(.param .u64 out)
.reqnctapercluster 2
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .shared .align 8 .b64 w[64];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  xor.b32 %r3, %r2, 1;
  mov.u32 %r4, w;
  shl.b32 %r5, %r1, 3;
  add.u32 %r6, %r4, %r5;
  st.shared.u64 [%r6], 0;
  and.b32 %r10, %r1, 31;
  setp.eq.u32 %p1, %r10, 0;
  setp.lt.u32 %p2, %r1, 32;
  cvt.u64.u32 %rd1, %r1;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  WORD
  RANK
  mapa.shared::cluster.u32 %r9, %r7, %r8;
  UPDATE
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
";

fn remote(target: &str, word: &str, rank: &str, update: &str) -> Vec<Finding> {
    let src = REMOTE
        .replace("WORD", word)
        .replace("RANK", rank)
        .replace("UPDATE", update);
    let m = ptx_ir_text::parse(&format!("{}{src}", HEAD.replace("sm_90", target))).expect("parses");
    let p = Program::load(&m).expect("loads");
    let o = p
        .launch("k")
        .grid([2, 1, 1])
        .block([64, 1, 1])
        .checks(race())
        .arg(Arg::Buffer(vec![0; 8]))
        .run()
        .expect("runs");
    o.findings
}

#[test]
fn remote_64_bit_bitwise_atomics_are_not_atomic_on_sm_90() {
    const WORD0: &str = "mov.u32 %r7, %r4;";
    const OWN_WORD: &str = "mov.u32 %r7, %r6;";
    const OTHER: &str = "mov.u32 %r8, %r3;";
    const SELF: &str = "mov.u32 %r8, %r2;";
    // 64 threads xor into one word of the other CTA: the lanes of a warp load one old value.
    let f = remote(
        "sm_90a",
        WORD0,
        OTHER,
        "red.shared::cluster.xor.b64 [%r9], %rd1;",
    );
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].class, Class::Race);
    assert!(
        f[0].what.starts_with("lanes 0 and 1 of one warp"),
        "{}",
        f[0].what
    );
    assert!(f[0].what.contains("not atomic"), "{}", f[0].what);
    assert!(
        f[0].site
            .to_string()
            .contains("red.shared::cluster.xor.b64"),
        "{}",
        f[0].site
    );
    // One lane of each warp: the race between the warps, which nothing orders.
    for op in [
        "atom.shared::cluster.or.b64 %rd2, [%r9], %rd1;",
        "red.shared::cluster.max.s64 [%r9], %rd1;",
    ] {
        let f = remote("sm_90", WORD0, OTHER, &format!("@%p1 {op}"));
        assert_eq!(f.len(), 1, "{op}: {f:?}");
        assert!(
            f[0].what.contains("hazard on shared memory"),
            "{}",
            f[0].what
        );
        assert!(f[0].what.contains("not atomic"), "{}", f[0].what);
        assert_eq!(f[0].threads.len(), 2);
        assert_ne!(
            f[0].threads[0].tid[0] / 32,
            f[0].threads[1].tid[0] / 32,
            "two warps"
        );
    }
    // Ordered by the cluster barrier: warp 0's lane 0, then warp 1's.
    let seq = "and.pred %p3, %p1, %p2;\n\
               @%p3 red.shared::cluster.xor.b64 [%r9], %rd1;\n\
               barrier.cluster.arrive;\nbarrier.cluster.wait;\n\
               not.pred %p2, %p2;\nand.pred %p3, %p1, %p2;\n\
               @%p3 red.shared::cluster.xor.b64 [%r9], %rd1;";
    assert!(remote("sm_90a", WORD0, OTHER, seq).is_empty());
    // Atomic: one thread per word, the CTA's own shared memory, 64-bit add, 32-bit xor, and a
    // target where this lowering was not measured.
    for (target, word, rank, update) in [
        (
            "sm_90a",
            OWN_WORD,
            OTHER,
            "red.shared::cluster.xor.b64 [%r9], %rd1;",
        ),
        (
            "sm_90a",
            WORD0,
            SELF,
            "red.shared::cluster.xor.b64 [%r9], %rd1;",
        ),
        (
            "sm_90a",
            WORD0,
            OTHER,
            "red.shared::cluster.add.u64 [%r9], %rd1;",
        ),
        (
            "sm_90a",
            WORD0,
            OTHER,
            "atom.shared::cluster.exch.b64 %rd2, [%r9], %rd1;",
        ),
        (
            "sm_90a",
            WORD0,
            OTHER,
            "red.shared::cluster.xor.b32 [%r9], %r1;",
        ),
        (
            "sm_100a",
            WORD0,
            OTHER,
            "red.shared::cluster.xor.b64 [%r9], %rd1;",
        ),
        (
            "sm_90a",
            "mov.u32 %r7, %r4;\ncvt.u64.u32 %rd3, %r4;",
            SELF,
            "cvta.shared.u64 %rd3, %rd3;\nmapa.u64 %rd3, %rd3, %r2;\natom.xor.b64 %rd2, [%rd3], %rd1;",
        ),
    ] {
        let f = remote(target, word, rank, update);
        assert!(f.is_empty(), "{target} {update}: {f:?}");
    }
}

/// The H200's record (`corpus/dsmem/dsmem_repeat.jsonl`, `hopper_probe.py --repeat 200`): a
/// `dsrace.atom.<op>.<type>` probe lost updates (64 threads of a CTA on one word of the next
/// CTA) exactly where the interpreter reports the atomic as not atomic.
#[test]
fn remote_atomics_race_where_the_gpu_lost_updates() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/dsmem/dsmem_repeat.jsonl");
    let text = std::fs::read_to_string(&path).expect("the record");
    let mut probes = 0;
    for line in text.lines() {
        let Some(rest) = line.split("\"name\": \"dsrace.atom.").nth(1) else {
            continue;
        };
        let name = &rest[..rest.find('"').expect("name")];
        let (op, ty) = name.split_once('.').expect("op.type");
        // `.gen`: the word's generic address.
        let (ty, generic) = match ty.strip_suffix(".gen") {
            Some(t) => (t, true),
            None => (ty, false),
        };
        let lost: u32 = line
            .split("\"lost\": ")
            .nth(1)
            .expect("lost")
            .trim_end_matches('}')
            .trim()
            .parse()
            .expect("count");
        let (d, s) = if ty.ends_with("64") {
            ("%rd2", "%rd1")
        } else {
            ("%r11", "%r1")
        };
        let operands = if op == "cas" {
            format!("{d}, [%r9], {s}, {s};")
        } else {
            format!("{d}, [%r9], {s};")
        };
        let f = if generic {
            let update = format!(
                "cvta.shared.u64 %rd3, %rd3;\nmapa.u64 %rd3, %rd3, %r3;\natom.{op}.{ty} {}",
                operands.replace("[%r9]", "[%rd3]")
            );
            remote(
                "sm_90a",
                "mov.u32 %r7, %r4;\ncvt.u64.u32 %rd3, %r4;",
                "mov.u32 %r8, %r3;",
                &update,
            )
        } else {
            let update = format!("atom.shared::cluster.{op}.{ty} {operands}");
            remote("sm_90a", "mov.u32 %r7, %r4;", "mov.u32 %r8, %r3;", &update)
        };
        assert_eq!(
            !f.is_empty(),
            lost > 0,
            "{name}: lost {lost}, findings {f:?}"
        );
        probes += 1;
    }
    assert_eq!(probes, 16);
}
