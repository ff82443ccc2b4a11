//! Control flow that the PTX ISA leaves undefined (9.7.12): an indirect call to a function that
//! is not in its call table or `.calltargets` list, or that does not match its
//! `.callprototype`, and `call.uni` / `ret.uni` executed divergently, are errors naming the rule;
//! the defined forms run.

use ptx_ir_interp::{Arg, Error, Program};

const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// Three functions of one signature: `add1`, `add2`, `add3` return their argument plus 1, 2, 3.
const FUNCS: &str = "\
.func (.reg .u32 rv) add1 (.reg .u32 a) { add.u32 rv, a, 1; ret; }
.func (.reg .u32 rv) add2 (.reg .u32 a) { add.u32 rv, a, 2; ret; }
.func (.reg .u32 rv) add3 (.reg .u32 a) { add.u32 rv, a, 3; ret; }
.func (.param .b64 rv) wide (.param .b64 a) { .reg .b64 t; ld.param.b64 t, [a]; st.param.b64 [rv], t; ret; }
.func (.reg .u32 rv) two (.reg .u32 a, .reg .u32 b) { add.u32 rv, a, b; ret; }
";

/// Runs kernel `k` (32 threads, one `u32` per thread in its buffer) of `FUNCS` and `body`.
fn run(module: &str) -> Result<Vec<u32>, Box<Error>> {
    let src = format!("{HEAD}{FUNCS}{module}");
    let m = ptx_ir_text::parse(&src).expect("parse");
    let p = Program::load(&m).expect("load");
    match p
        .launch("k")
        .block([32, 1, 1])
        .arg(Arg::Buffer(vec![0; 128]))
        .run()
    {
        Ok(o) => Ok(o.buffers[0]
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect()),
        Err(f) => Err(Box::new(f.error)),
    }
}

/// A kernel: `%r1` is the thread index, `%rd1` the address of the thread's output word, `%r9`
/// is stored there after `body`.
fn kernel(decls: &str, body: &str) -> String {
    format!(
        "{decls}\n.visible .entry k(.param .u64 out) {{\n\
         .reg .pred %p<4>; .reg .b32 %r<10>; .reg .b64 %rd<10>;\n\
         ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mul.wide.u32 %rd2, %r1, 4;\n\
         add.s64 %rd1, %rd1, %rd2; mov.u32 %r9, 0;\n\
         {body}\n\
         st.global.u32 [%rd1], %r9; ret; }}\n"
    )
}

fn undefined(r: Result<Vec<u32>, Box<Error>>, want: &str) -> String {
    match r.map_err(|e| *e) {
        Err(Error::Undefined { rule, .. }) => {
            assert!(rule.contains(want), "rule `{rule}` does not say `{want}`");
            rule
        }
        other => panic!("expected undefined behaviour ({want}), got {other:?}"),
    }
}

#[test]
fn call_table_runs_the_listed_functions() {
    let k = kernel(
        ".global .u64 tbl[3] = { add1, add2, add3 };",
        "rem.u32 %r2, %r1, 3; mul.wide.u32 %rd3, %r2, 8; mov.u64 %rd4, tbl;\n\
         add.s64 %rd4, %rd4, %rd3; ld.global.u64 %rd5, [%rd4];\n\
         call (%r9), %rd5, (%r1), tbl;",
    );
    let out = run(&k).expect("runs");
    for (t, v) in out.iter().enumerate() {
        assert_eq!(*v, t as u32 + t as u32 % 3 + 1);
    }
}

#[test]
fn call_table_call_to_an_unlisted_function_is_undefined() {
    let k = kernel(
        ".global .u64 tbl[2] = { add1, add2 };",
        "mov.u64 %rd5, add3; call (%r9), %rd5, (%r1), tbl;",
    );
    undefined(run(&k), "not in the call table or `.calltargets` list");
}

#[test]
fn function_scope_call_table_in_const_space() {
    let ok = kernel(
        "",
        ".const .u64 tbl[2] = { add1, add2 };\n\
         mov.u64 %rd5, add2; call (%r9), %rd5, (%r1), tbl;",
    );
    assert_eq!(run(&ok).expect("runs")[5], 7);
    let bad = kernel(
        "",
        ".const .u64 tbl[2] = { add1, add2 };\n\
         mov.u64 %rd5, add3; call (%r9), %rd5, (%r1), tbl;",
    );
    undefined(run(&bad), "not in the call table");
}

#[test]
fn calltargets_call_to_an_unlisted_function_is_undefined() {
    let ok = kernel(
        "",
        "mov.u64 %rd5, add2; Ft: .calltargets add1, add2; call (%r9), %rd5, (%r1), Ft;",
    );
    assert_eq!(run(&ok).expect("runs")[3], 5);
    let bad = kernel(
        "",
        "mov.u64 %rd5, add3; Ft: .calltargets add1, add2; call (%r9), %rd5, (%r1), Ft;",
    );
    undefined(run(&bad), "not in the call table or `.calltargets` list");
}

#[test]
fn callprototype_call_to_a_matching_function_runs() {
    let k = kernel(
        "",
        "mov.u64 %rd5, add3; Fp: .callprototype (.reg .u32 _) _ (.reg .u32 _);\n\
         call (%r9), %rd5, (%r1), Fp;",
    );
    assert_eq!(run(&k).expect("runs")[4], 7);
}

#[test]
fn callprototype_mismatch_is_undefined() {
    // Parameter count.
    let k = kernel(
        "",
        "mov.u64 %rd5, two; Fp: .callprototype (.reg .u32 _) _ (.reg .u32 _);\n\
         call (%r9), %rd5, (%r1), Fp;",
    );
    undefined(run(&k), "does not match the `.callprototype`");
    // Parameter size and space: `wide` takes and returns a `.param .b64`.
    let k = kernel(
        "",
        "mov.u64 %rd5, wide; Fp: .callprototype (.reg .u32 _) _ (.reg .u32 _);\n\
         call (%r9), %rd5, (%r1), Fp;",
    );
    undefined(run(&k), "does not match the `.callprototype`");
    // Return count.
    let k = kernel(
        "",
        "mov.u64 %rd5, add1; Fp: .callprototype _ (.reg .u32 _);\n\
         call %rd5, (%r1), Fp;",
    );
    undefined(run(&k), "does not match the `.callprototype`");
    // Type: a `.f32` formal does not match a `.u32` one.
    let k = kernel(
        "",
        "mov.u64 %rd5, add1; Fp: .callprototype (.reg .f32 _) _ (.reg .u32 _);\n\
         .reg .f32 %f1; call (%f1), %rd5, (%r1), Fp;",
    );
    undefined(run(&k), "does not match the `.callprototype`");
}

#[test]
fn call_uni_with_a_divergent_guard_is_undefined() {
    let ok = kernel(
        "",
        "setp.lt.u32 %p1, %r1, 64; @%p1 call.uni (%r9), add1, (%r1);",
    );
    assert_eq!(run(&ok).expect("runs")[31], 32);
    let bad = kernel(
        "",
        "setp.lt.u32 %p1, %r1, 16; @%p1 call.uni (%r9), add1, (%r1);",
    );
    undefined(
        run(&bad),
        "call.uni executed with a divergent guard predicate",
    );
    // Without `.uni` the same call is defined.
    let plain = kernel(
        "",
        "setp.lt.u32 %p1, %r1, 16; @%p1 call (%r9), add1, (%r1);",
    );
    let out = run(&plain).expect("runs");
    assert_eq!((out[15], out[16]), (16, 0));
}

#[test]
fn call_uni_with_divergent_targets_is_undefined() {
    let body = |uni: &str| {
        format!(
            "setp.lt.u32 %p1, %r1, 16; mov.u64 %rd5, add1; @%p1 mov.u64 %rd5, add2;\n\
             Ft: .calltargets add1, add2; call{uni} (%r9), %rd5, (%r1), Ft;"
        )
    };
    undefined(
        run(&kernel("", &body(".uni"))),
        "call.uni executed with a divergent call target",
    );
    let out = run(&kernel("", &body(""))).expect("runs");
    assert_eq!((out[0], out[16]), (2, 17));
}

#[test]
fn ret_uni_of_part_of_the_threads_is_undefined() {
    // Half the threads return early with `ret.uni` while the others are still in the function.
    let f = |ret: &str| {
        format!(
            ".func (.reg .u32 rv) half (.reg .u32 a) {{ .reg .pred p; mov.u32 rv, 1;\n\
             setp.lt.u32 p, a, 16; @p {ret}; mov.u32 rv, 2; {ret}; }}"
        )
    };
    undefined(
        run(&kernel(&f("ret.uni"), "call (%r9), half, (%r1);")),
        "ret.uni executed by only part of the warp's threads",
    );
    let out = run(&kernel(&f("ret"), "call (%r9), half, (%r1);")).expect("runs");
    assert_eq!((out[0], out[16]), (1, 2));
    // Threads that diverged inside the function and reconverge before `ret.uni` are defined.
    let g = ".func (.reg .u32 rv) join (.reg .u32 a) { .reg .pred p; mov.u32 rv, 1;\n\
             setp.lt.u32 p, a, 16; @p bra J; mov.u32 rv, 2; J: ret.uni; }";
    let out = run(&kernel(g, "call (%r9), join, (%r1);")).expect("runs");
    assert_eq!((out[0], out[16]), (1, 2));
    // ret.uni in the kernel by part of its threads.
    let k = kernel("", "setp.lt.u32 %p1, %r1, 16; @%p1 ret.uni;");
    undefined(
        run(&k),
        "ret.uni executed by only part of the warp's threads",
    );
}

#[test]
fn brx_idx_uni_with_a_divergent_guard_is_undefined() {
    let body = |uni: &str| {
        format!(
            "setp.lt.u32 %p1, %r1, 16; mov.u32 %r2, 1;\n\
             ts: .branchtargets A, B;\n\
             @%p1 brx.idx{uni} %r2, ts;\n\
             A: mov.u32 %r9, 1; bra.uni E;\n\
             B: mov.u32 %r9, 2;\n\
             E:"
        )
    };
    undefined(
        run(&kernel("", &body(".uni"))),
        "brx.idx.uni executed with a divergent guard predicate",
    );
    let out = run(&kernel("", &body(""))).expect("runs");
    assert_eq!((out[0], out[16]), (2, 1));
}
