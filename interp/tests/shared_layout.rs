//! Each kernel's shared window, as ptxas allocates it: the module-scope `.shared` variables,
//! the function-scope ones of the device functions, the kernel's own, then the dynamic
//! (`extern`) array. An access past a kernel's static variables (and past its dynamic size)
//! is out of bounds for that kernel, whatever the other kernels of the module declare.

use ptx_ir_interp::{Arg, Checks, Error, FaultKind, Outcome, Program};

const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

fn program(body: &str) -> Program {
    let src = format!("{HEAD}{body}");
    let m = ptx_ir_text::parse(&src).expect("parses");
    Program::load(&m).expect("loads")
}

/// A kernel that stores its thread index into its own `.shared` array of `words` words,
/// waits, and reads word `tid + off` back into `out[tid]`.
fn reader(name: &str, words: u32) -> String {
    format!(
        "
.visible .entry {name}(.param .u64 out, .param .u32 off)
{{
  .reg .b32 %r<9>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 s_{name}[{words}];
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r5, [off];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s_{name};
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  add.u32 %r6, %r1, %r5;
  shl.b32 %r6, %r6, 2;
  add.u32 %r6, %r3, %r6;
  ld.shared.u32 %r7, [%r6];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
}}
"
    )
}

/// Two kernels in one module: `small` has 32 words of shared memory, `big` 64, and `small`
/// comes first, so that in one window shared by both a read past `small`'s array would land
/// in `big`'s.
fn two_kernels() -> Program {
    program(&format!("{}{}", reader("small", 32), reader("big", 64)))
}

fn run(
    p: &Program,
    entry: &str,
    threads: u32,
    off: u32,
    checks: Option<Checks>,
) -> Result<Outcome, Box<Error>> {
    let mut l = p
        .launch(entry)
        .block([threads, 1, 1])
        .arg(Arg::Buffer(vec![0; 4 * threads as usize]))
        .arg(Arg::Scalar(off.to_le_bytes().to_vec()));
    if let Some(c) = checks {
        l = l.checks(c);
    }
    l.run().map_err(|f| Box::new(f.error))
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn assert_shared_oob(r: Result<Outcome, Box<Error>>, entry: &str, addr: u64) {
    match r.map_err(|e| *e) {
        Err(Error::Memory {
            site,
            kind: FaultKind::OutOfBounds,
            space,
            addr: a,
            size: 4,
            thread,
        }) => {
            assert_eq!(site.function, entry);
            assert!(site.inst.starts_with("ld.shared.u32"), "{}", site.inst);
            assert_eq!(space, "shared");
            assert_eq!(a, addr);
            assert_eq!(thread.tid[0], 31);
        }
        other => panic!("expected an out-of-bounds shared read, got {other:?}"),
    }
}

#[test]
fn read_past_a_kernels_shared_array_faults_though_another_kernel_follows() {
    let p = two_kernels();
    // Thread 31 reads word 32, one past `small`'s 32 words: out of bounds with the check and
    // without it.
    assert_shared_oob(run(&p, "small", 32, 1, Some(Checks::all())), "small", 128);
    assert_shared_oob(
        run(
            &p,
            "small",
            32,
            1,
            Some(Checks {
                mem: true,
                ..Checks::default()
            }),
        ),
        "small",
        128,
    );
    assert_shared_oob(run(&p, "small", 32, 1, None), "small", 128);
    // In bounds, each kernel reads what it stored.
    let o = run(&p, "small", 32, 0, Some(Checks::all())).expect("runs");
    assert!(o.findings.is_empty(), "{:?}", o.findings);
    assert_eq!(words(&o.buffers[0]), (0..32).collect::<Vec<_>>());
    let o = run(&p, "big", 64, 0, Some(Checks::all())).expect("runs");
    assert!(o.findings.is_empty(), "{:?}", o.findings);
    assert_eq!(words(&o.buffers[0]), (0..64).collect::<Vec<_>>());
    // `big` with 32 threads reads words 1..=32 of its 64, the last never written: in bounds.
    let o = run(&p, "big", 32, 1, None).expect("runs");
    assert_eq!(words(&o.buffers[0]), (1..32).chain([0]).collect::<Vec<_>>());
    // One past `big`'s 64 words is out of bounds too.
    let r = run(&p, "big", 64, 1, None);
    assert!(
        matches!(
            r.as_ref().map_err(|e| &**e),
            Err(Error::Memory { addr: 256, .. })
        ),
        "{r:?}"
    );
}

#[test]
fn each_kernel_has_its_own_static_size() {
    let p = two_kernels();
    let f = |n: &str| &p.funcs[p.by_name[n] as usize];
    assert_eq!(
        (f("small").shared_static, f("small").shared_dynamic_offset),
        (128, 128)
    );
    assert_eq!(
        (f("big").shared_static, f("big").shared_dynamic_offset),
        (256, 256)
    );
}

/// A device function with a `.shared` array of its own that reads the dynamic array, two
/// kernels of different static sizes calling it, and a third that does not.
const DEVICE: &str = "
.extern .shared .align 16 .b32 dyn[];
.visible .shared .align 4 .b32 common_word;

.func f(.param .u64 out)
{
  .reg .b32 %r<9>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 fs[4];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, fs;
  add.u32 %r4, %r3, %r2;
  mov.u32 %r5, dyn;
  add.u32 %r6, %r5, %r2;
  ld.shared.u32 %r7, [%r6];
  add.u32 %r7, %r7, 1000;
  st.shared.u32 [%r4], %r7;
  ld.shared.u32 %r8, [%r4];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r8;
  ret;
}

.visible .entry k1(.param .u64 out, .param .u64 sizes)
{
  .reg .b32 %r<9>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 own1[4];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, own1;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  mov.u32 %r5, dyn;
  add.u32 %r6, %r5, %r2;
  add.u32 %r7, %r1, 100;
  st.shared.u32 [%r6], %r7;
  bar.sync 0;
  {
    .param .b64 param0;
    st.param.b64 [param0], %rd1;
    call.uni f, (param0);
  }
  ld.param.u64 %rd2, [sizes];
  mov.u32 %r8, %total_smem_size;
  st.global.u32 [%rd2], %r8;
  ret;
}

.visible .entry k2(.param .u64 out, .param .u64 sizes)
{
  .reg .b32 %r<9>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 own2[16];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, own2;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  mov.u32 %r5, dyn;
  add.u32 %r6, %r5, %r2;
  add.u32 %r7, %r1, 200;
  st.shared.u32 [%r6], %r7;
  bar.sync 0;
  {
    .param .b64 param0;
    st.param.b64 [param0], %rd1;
    call.uni f, (param0);
  }
  ld.param.u64 %rd2, [sizes];
  mov.u32 %r8, %total_smem_size;
  st.global.u32 [%rd2], %r8;
  ret;
}

.visible .entry k3(.param .u64 out, .param .u64 sizes)
{
  .reg .b32 %r<9>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 own3[1];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r5, dyn;
  add.u32 %r6, %r5, %r2;
  st.shared.u32 [%r6], %r1;
  ld.shared.u32 %r7, [%r6];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ld.param.u64 %rd2, [sizes];
  mov.u32 %r8, %total_smem_size;
  st.global.u32 [%rd2], %r8;
  ret;
}
";

fn run_device(p: &Program, entry: &str, threads: u32) -> Result<(Vec<u32>, u32), Box<Error>> {
    let o = p
        .launch(entry)
        .block([threads, 1, 1])
        .dynamic_shared(16)
        .arg(Arg::Buffer(vec![0; 4 * threads as usize]))
        .arg(Arg::Buffer(vec![0; 4]))
        .checks(Checks::all())
        .run()
        .map_err(|f| Box::new(f.error))?;
    assert!(o.findings.is_empty(), "{entry}: {:?}", o.findings);
    Ok((words(&o.buffers[0]), words(&o.buffers[1])[0]))
}

#[test]
fn device_function_shared_variables_and_the_dynamic_array_in_every_caller() {
    let p = program(DEVICE);
    let f = |n: &str| &p.funcs[p.by_name[n] as usize];
    // common_word at 0, fs at 4..20; k1's own1 at 20..36, k2's own2 at 20..84, k3's own3 at
    // 20..24. k1 and k2 call f, which names the dynamic array: both place it at k2's offset.
    assert_eq!(f("k1").shared_static, 36);
    assert_eq!(f("k2").shared_static, 84);
    assert_eq!(f("k3").shared_static, 24);
    assert_eq!(f("k1").shared_dynamic_offset, 96);
    assert_eq!(f("k2").shared_dynamic_offset, 96);
    assert_eq!(f("k3").shared_dynamic_offset, 32);
    // f reads what its caller wrote to the dynamic array, through its own array.
    assert_eq!(
        run_device(&p, "k1", 4).unwrap(),
        (vec![1100, 1101, 1102, 1103], 96 + 16)
    );
    assert_eq!(
        run_device(&p, "k2", 4).unwrap(),
        (vec![1200, 1201, 1202, 1203], 96 + 16)
    );
    assert_eq!(
        run_device(&p, "k3", 4).unwrap(),
        (vec![0, 1, 2, 3], 32 + 16)
    );
    // Past the 16 dynamic bytes is out of bounds.
    let r = run_device(&p, "k3", 5);
    assert!(
        matches!(
            r.as_ref().map_err(|e| &**e),
            Err(Error::Memory {
                kind: FaultKind::OutOfBounds,
                addr: 48,
                ..
            })
        ),
        "{r:?}"
    );
}
