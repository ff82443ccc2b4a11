//! Resource limits on hostile launches: huge grids, arguments, register ranges, call chains and
//! recursion end in the right result or a clear error, with bounded memory and time.

use ptx_ir_interp::{Arg, Error, Program, SpecError};

const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

fn program(body: &str) -> Program {
    let src = format!("{HEAD}{body}");
    let m = ptx_ir_text::parse(&src).expect("parse");
    Program::load(&m).expect("load")
}

fn out_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().expect("4 bytes"))
}

#[test]
fn register_range_of_four_billion_loads_and_runs() {
    let p = program(
        ".visible .entry k(.param .u64 out) {\n\
           .reg .b32 %r<4000000000>; .reg .b64 %rd<2>;\n\
           ld.param.u64 %rd1, [out];\n\
           mov.u32 %r3999999999, 42; mov.u32 %r0, 1;\n\
           add.u32 %r3999999999, %r3999999999, %r0;\n\
           st.global.u32 [%rd1], %r3999999999;\n\
           ret; }\n",
    );
    // Only the registers the body names get slots (the carry flag, %rd1, %r0, %r3999999999).
    let slots = p.funcs[0].slots;
    assert!(slots.total() <= 4, "{slots:?}");
    let o = p
        .launch("k")
        .arg(Arg::Buffer(vec![0; 4]))
        .run()
        .expect("run");
    assert_eq!(out_u32(&o.buffers[0]), 43);
}

#[test]
fn register_outside_its_range_is_a_load_error() {
    let src = format!(
        "{HEAD}.visible .entry k() {{ .reg .b32 %r<10>; mov.u32 %r10, 1; mov.u32 %r01, 1; ret; }}\n"
    );
    let m = ptx_ir_text::parse(&src).expect("parse");
    let e = Program::load(&m).expect_err("%r10 is not declared");
    assert!(e.to_string().contains("%r10"), "{e}");
}

/// An edit of an instruction of a parsed module.
type Edit = fn(&mut ptx_ir_core::Instruction);

/// An instruction whose operands do not fit what its handler reads (IR built without the
/// instruction table's forms) is a load error naming the function and the instruction, whether
/// or not it would run.
#[test]
fn operands_that_do_not_fit_the_handler_are_a_load_error() {
    use ptx_ir_core::{Opcode, Operand};
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 out) {{ .reg .b32 %r<3>; .reg .b64 %rd<2>;\n\
         ld.param.u64 %rd1, [out]; add.u32 %r0, %r1, %r2; st.global.u32 [%rd1], %r0; ret; }}\n"
    );
    let cases: [(&str, Opcode, Edit); 3] = [
        ("2 operands where 3 are expected", Opcode::Add, |i| {
            i.operands.pop();
        }),
        ("operand 1 is not a memory address", Opcode::Ld, |i| {
            i.operands[1] = Operand::Int(8)
        }),
        ("operand 0 is not a destination", Opcode::Add, |i| {
            i.operands[0] = Operand::Int(1)
        }),
    ];
    for (want, op, edit) in cases {
        let mut m = ptx_ir_text::parse(&src).expect("parse");
        let f = m.functions_mut().next().expect("k");
        let body = f.statements_mut().expect("body");
        ptx_ir_core::walk::for_each_instruction_mut(body, &mut |_, i| {
            if i.opcode == op {
                edit(i)
            }
        });
        match Program::load(&m).expect_err(want) {
            Error::Load {
                function,
                inst: Some(inst),
                message,
            } => {
                assert_eq!(function, "k");
                assert!(message.contains(want), "{message}");
                assert!(inst.starts_with(op.name()), "{inst}");
            }
            e => panic!("{want}: {e}"),
        }
    }
}

#[test]
fn deep_non_recursive_call_chain_runs_in_linear_time() {
    const N: usize = 100_000;
    let mut s = String::from(HEAD);
    s.push_str(&format!(
        ".func (.reg .b32 r) f{}(.reg .b32 a) {{ add.u32 r, a, 1; ret; }}\n",
        N - 1
    ));
    for i in (0..N - 1).rev() {
        s.push_str(&format!(
            ".func (.reg .b32 r) f{i}(.reg .b32 a) {{ .reg .b32 t; add.u32 t, a, 1; call (r), f{}, (t); ret; }}\n",
            i + 1
        ));
    }
    s.push_str(
        ".visible .entry k(.param .u64 out) { .reg .b32 %r<2>; .reg .b64 %rd<2>;\n\
         ld.param.u64 %rd1, [out]; mov.u32 %r0, 7; call (%r1), f0, (%r0);\n\
         st.global.u32 [%rd1], %r1; ret; }\n",
    );
    let m = ptx_ir_text::parse(&s).expect("parse");
    let p = Program::load(&m).expect("load");
    // No `--stack`: the call graph bounds the stack, so the launch gets what it needs, as the
    // CUDA driver grows the stack for such kernels.
    let o = p
        .launch("k")
        .arg(Arg::Buffer(vec![0; 4]))
        .run()
        .expect("run");
    assert_eq!(out_u32(&o.buffers[0]), 7 + N as u32);
    assert_eq!(o.stats.thread_instructions, 3 * N as u64 + 4);
}

#[test]
fn unbounded_recursion_overflows_the_stack() {
    let p = program(".func f() { call f, (); ret; }\n.visible .entry k() { call f, (); ret; }\n");
    let e = p.launch("k").run().expect_err("overflow").error;
    // 1024 bytes at 16 per call: the 65th call does not fit.
    match &e {
        Error::StackOverflow {
            site,
            depth,
            bytes,
            limit,
            ..
        } => {
            assert_eq!((*depth, *bytes, *limit), (65, 1040, 1024), "{e}");
            assert_eq!(site.function, "f");
            assert!(site.inst.starts_with("call"), "{e}");
        }
        _ => panic!("{e}"),
    }
    assert!(
        e.to_string()
            .contains("call depth 65 needs 1040 bytes, over the per-thread stack limit of 1024"),
        "{e}"
    );
    // A bigger stack goes deeper, in proportion.
    let e = p
        .launch("k")
        .stack(1 << 20)
        .run()
        .expect_err("overflow")
        .error;
    assert!(
        matches!(e, Error::StackOverflow { depth: 65537, .. }),
        "{e}"
    );
}

#[test]
fn recursion_with_local_frames_pays_for_them() {
    let p = program(
        ".func f() { .local .align 8 .b8 buf[112]; call f, (); ret; }\n\
         .visible .entry k() { call f, (); ret; }\n",
    );
    let e = p.launch("k").run().expect_err("overflow").error;
    // Each call costs 16 + 112 bytes: 8 calls fit in 1024.
    assert!(matches!(e, Error::StackOverflow { depth: 9, .. }), "{e}");
}

#[test]
fn huge_grid_beyond_the_fuel_is_refused_before_it_starts() {
    let p = program(".visible .entry k() { .reg .b32 %r<2>; mov.u32 %r1, %tid.x; ret; }\n");
    let e = p
        .launch("k")
        .grid([2_147_483_647, 65_535, 65_535])
        .block([1024, 1, 1])
        .fuel(1 << 20)
        .run()
        .expect_err("fuel")
        .error;
    assert!(
        matches!(&e, Error::Launch(m) if m.contains("threads each execute at least one instruction")),
        "{e}"
    );
    // Without instructions, no grid does anything.
    let empty = program(".visible .entry k() { }\n");
    let run = empty
        .launch("k")
        .grid([2_147_483_647, 65_535, 65_535])
        .block([1024, 1, 1])
        .run()
        .expect("empty kernel");
    assert_eq!(run.stats.thread_instructions, 0);
}

#[test]
fn large_grid_runs_until_the_fuel_runs_out() {
    // 2^21 threads fit the fuel, their loops do not: the run stops part-way through the grid,
    // having set up only the clusters it reached.
    let p = program(
        ".visible .entry k() { .reg .b32 %r<2>; .reg .pred %p;\n\
         mov.u32 %r1, 0;\nL: add.u32 %r1, %r1, 1; setp.lt.u32 %p, %r1, 10; @%p bra L;\nret; }\n",
    );
    let e = p
        .launch("k")
        .grid([65_536, 1, 1])
        .block([32, 1, 1])
        .fuel(1 << 22)
        .run()
        .expect_err("fuel")
        .error;
    assert_eq!(e, Error::FuelExhausted(1 << 22));
}

#[test]
fn launches_beyond_the_gpu_limits_are_refused() {
    let p = program(".visible .entry k() { ret; }\n");
    let launch_err = |grid: [u32; 3], block: [u32; 3]| -> String {
        match p.launch("k").grid(grid).block(block).run() {
            Err(f) => match f.error {
                Error::Launch(m) => m,
                e => panic!("{e}"),
            },
            Ok(_) => panic!("{grid:?} {block:?} launched"),
        }
    };
    assert_eq!(
        launch_err([u32::MAX, 1, 1], [1, 1, 1]),
        "grid x 4294967295 exceeds the GPU's limit 2147483647"
    );
    assert_eq!(
        launch_err([1, 65_536, 1], [1, 1, 1]),
        "grid y 65536 exceeds the GPU's limit 65535"
    );
    assert_eq!(
        launch_err([1, 1, 1], [1, 1, 65]),
        "block z 65 exceeds the GPU's limit 64"
    );
    assert!(launch_err([1, 1, 1], [1024, 2, 1]).contains("2048 threads"));
    assert!(launch_err([0, 1, 1], [1, 1, 1]).contains("at least 1"));
    let e = p
        .launch("k")
        .dynamic_shared(u32::MAX)
        .run()
        .expect_err("shared");
    assert!(
        e.to_string().contains("exceeds the GPU's limit 232448"),
        "{e}"
    );
}

#[test]
fn buffers_over_the_memory_limit_are_errors() {
    let p = program(".visible .entry k(.param .u64 a) { ret; }\n");
    let e = p
        .launch("k")
        .mem_limit(1 << 20)
        .arg(Arg::Buffer(vec![0; (1 << 20) + 1]))
        .run()
        .expect_err("limit")
        .error;
    match e {
        Error::MemoryLimit {
            what, bytes, limit, ..
        } => {
            assert_eq!(what, "buffer argument 0");
            assert_eq!((bytes, limit), ((1 << 20) + 1, 1 << 20));
        }
        e => panic!("{e}"),
    }
    for spec in [
        "zeros:99999999999999",
        "zeros:4294967297",
        "iota32:4000000000",
    ] {
        let e = Arg::parse_spec(spec).expect_err(spec);
        assert!(
            matches!(&e, SpecError::TooBig { spec: s, out_of_memory: false, .. } if s == spec),
            "{e}"
        );
        let text = e.to_string();
        assert!(
            text.contains(spec) && text.contains("memory limit"),
            "{text}"
        );
    }
    let e = Arg::parse_spec_within("hex:00112233", 3).expect_err("hex");
    assert!(
        matches!(
            e,
            SpecError::TooBig {
                bytes: 4,
                limit: 3,
                ..
            }
        ),
        "{e}"
    );
    assert!(Arg::parse_spec_within("zeros:1024", 1024).is_ok());
}

#[test]
fn local_memory_and_registers_count_against_the_memory_limit() {
    let p = program(".visible .entry k() { .reg .b64 %rd<4>; mov.u64 %rd1, 0; mov.u64 %rd2, 0; mov.u64 %rd3, 0; ret; }\n");
    let e = p
        .launch("k")
        .block([1024, 1, 1])
        .mem_limit(4096)
        .run()
        .expect_err("limit")
        .error;
    assert!(
        matches!(&e, Error::MemoryLimit { what, .. } if what.contains("registers")),
        "{e}"
    );
}

#[test]
fn huge_module_variable_is_a_load_error() {
    let src = format!("{HEAD}.global .b8 big[10000000000000];\n.visible .entry k() {{ ret; }}\n");
    let m = ptx_ir_text::parse(&src).expect("parse");
    let e = Program::load(&m).expect_err("too big").to_string();
    assert!(
        e.contains("`big` is 10000000000000 bytes") && e.contains("limit"),
        "{e}"
    );
}

/// `tools/hostile/probe.py`'s recursive function: `f(d)` returns `d` after `d` nested calls;
/// with `local` bytes of `.local` array, stored to before the call and read after it at indices
/// ptxas cannot prove equal, so that the array stays in the GPU frame.
fn recursion_probe(local: u32) -> String {
    let (mut decl, mut store, mut load) = (String::new(), String::new(), String::new());
    if local > 0 {
        let mask = local / 4 - 1;
        decl = format!("\t.local .align 4 .b8 buf[{local}];\n\t.reg .b64 %rl<6>;\n");
        store = format!(
            "\tmov.u64 %rl1, buf;\n\tand.b32 %r5, %r1, {mask};\n\tmul.wide.u32 %rl2, %r5, 4;\n\
             \tadd.s64 %rl3, %rl1, %rl2;\n\tst.local.u32 [%rl3], %r1;\n"
        );
        load = format!(
            "\tmul.lo.u32 %r5, %r1, {};\n\tadd.u32 %r5, %r5, %r1;\n\tand.b32 %r5, %r5, {mask};\n\
             \tmul.wide.u32 %rl4, %r5, 4;\n\tadd.s64 %rl5, %rl1, %rl4;\n\
             \tld.local.u32 %r4, [%rl5];\n\tsub.s32 %r4, %r4, %r1;\n\tadd.s32 %r3, %r3, %r4;\n",
            mask + 1
        );
    }
    format!(
        ".visible .func (.param .b32 r) f(.param .b32 d)\n{{\n\t.reg .b32 %r<6>;\n\t.reg .pred %p;\n\
         {decl}\tld.param.b32 %r1, [d];\n\tmov.u32 %r3, %r1;\n\tsetp.eq.s32 %p, %r1, 0;\n\
         \t@%p bra DONE;\n{store}\tsub.s32 %r2, %r1, 1;\n\t{{\n\t.param .b32 a;\n\t.param .b32 rv;\n\
         \tst.param.b32 [a], %r2;\n\tcall (rv), f, (a);\n\tld.param.b32 %r3, [rv];\n\t}}\n{load}\
         \tadd.s32 %r3, %r3, 1;\nDONE:\n\tst.param.b32 [r], %r3;\n\tret;\n}}\n\
         .visible .entry k(.param .u64 out, .param .u32 n)\n{{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n\
         \tld.param.u64 %rd1, [out];\n\tld.param.u32 %r1, [n];\n\t{{\n\t.param .b32 a;\n\t.param .b32 rv;\n\
         \tst.param.b32 [a], %r1;\n\tcall (rv), f, (a);\n\tld.param.b32 %r2, [rv];\n\t}}\n\
         \tst.global.u32 [%rd1], %r2;\n\tret;\n}}\n"
    )
}

/// The stack model against the H200: for each frame size and stack limit of
/// `tools/hostile/results/stack.txt`, the deepest recursion the GPU ran runs and one level more
/// overflows (the GPU stopped with an illegal address there).
#[test]
fn recursion_depths_match_the_gpu() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tools/hostile/results/stack.txt"
    );
    let text = std::fs::read_to_string(path).expect("stack.txt");
    let mut rows = 0;
    for line in text.lines() {
        // rec_<local>_stack_<bytes>_max_depth <depth> ...
        let mut cols = line.split('\t');
        let key = cols.next().unwrap_or("");
        let Some(rest) = key.strip_prefix("rec_") else {
            continue;
        };
        let Some(rest) = rest.strip_suffix("_max_depth") else {
            continue;
        };
        let (local, stack) = rest.split_once("_stack_").expect("row key");
        let (local, stack): (u32, u32) = (local.parse().unwrap(), stack.parse().unwrap());
        let depth: u32 = cols.next().expect("depth").parse().unwrap();
        let p = program(&recursion_probe(local));
        let run = |n: u32| {
            p.launch("k")
                .stack(stack)
                .args([Arg::Buffer(vec![0; 4]), Arg::u32(n)])
                .run()
        };
        let ok = run(depth).unwrap_or_else(|f| panic!("{line}: {}", f.error));
        assert_eq!(out_u32(&ok.buffers[0]), depth, "{line}");
        let e = run(depth + 1).expect_err(line).error;
        assert!(matches!(e, Error::StackOverflow { .. }), "{line}: {e}");
        rows += 1;
    }
    assert_eq!(rows, 10, "rows of {path}");
}

/// A launch's progress counters end at the grid's CTAs and the run's thread-instructions.
#[test]
fn progress_counts_ctas_and_instructions() {
    let p = program(
        ".visible .entry k() .reqnctapercluster 2, 1, 1 { .reg .b32 %r<2>; mov.u32 %r0, 1; \
         add.u32 %r1, %r0, %r0; ret; }\n",
    );
    let progress = std::sync::Arc::new(ptx_ir_interp::Progress::new());
    let o = p
        .launch("k")
        .grid([6, 2, 1])
        .block([40, 1, 1])
        .progress(progress.clone())
        .run()
        .expect("run");
    assert_eq!(progress.ctas_total(), 12);
    assert_eq!(progress.ctas_done(), 12);
    assert_eq!(progress.thread_instructions(), o.stats.thread_instructions);
    assert_eq!(o.stats.thread_instructions, 12 * 40 * 3);
}
