//! Sparse `mma.sp`: what the interpreter reports instead of computing. The layouts and sums
//! are checked against the GPU by `corpus/vectors/mmasp.jsonl.xz` (`tests/vectors.rs`).

use ptx_ir_interp::Program;

/// Runs one warp of `inst` (an `mma.sp` reading metadata `%e` = `meta`) on zero fragments.
fn run(inst: &str, meta: u32) -> Result<(), String> {
    let src = format!(
        ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k() {{\n\
         .reg .b32 %r<8>; .reg .b32 %e; .reg .f32 %f<8>;\n\
         mov.u32 %e, {meta};\n{inst}\nret; }}\n"
    );
    let m = ptx_ir_text::parse(&src).expect("parse");
    let p = Program::load(&m).expect("load");
    p.launch("k")
        .block([32, 1, 1])
        .run()
        .map(|_| ())
        .map_err(|f| f.error.to_string())
}

/// `mma.sp` `.f16` of shape `m16n8k{k}` with sparsity selector `sel`.
fn f16(k: u32, meta: u32, sel: u32) -> Result<(), String> {
    let a = (0..k / 8)
        .map(|i| format!("%r{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    run(
        &format!(
            "mma.sp::ordered_metadata.sync.aligned.m16n8k{k}.row.col.f32.f16.f16.f32 \
             {{%f0, %f1, %f2, %f3}}, {{{a}}}, {{{a}}}, {{%f4, %f5, %f6, %f7}}, %e, {sel};"
        ),
        meta,
    )
}

#[test]
fn valid_metadata_runs() {
    // Every nibble 0b1110: elements at indices 2 and 3 of each chunk.
    f16(16, 0xeeee_eeee, 3).unwrap();
    f16(32, 0x4444_4444, 1).unwrap();
}

#[test]
fn misuse_is_reported() {
    let e = f16(16, 0xeeee_eee5, 0).unwrap_err();
    assert!(e.contains("undefined") && e.contains("0b0101"), "{e}");
    // k32 takes selectors 0 and 1 only (the H100 traps on 2).
    let e = f16(32, 0x4444_4444, 2).unwrap_err();
    assert!(e.contains("sparsity selector 2"), "{e}");
}

#[test]
fn tf32_metadata_names_one_element_of_two() {
    let tf32 = |meta: u32| {
        run(
            "mma.sp::ordered_metadata.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 \
             {%f0, %f1, %f2, %f3}, {%r0, %r1}, {%r2, %r3}, {%f4, %f5, %f6, %f7}, %e, 0;",
            meta,
        )
    };
    tf32(0x4e4e_4e4e).unwrap();
    // 0b1000 (indices 0 and 2) is defined for 16-bit types, not for .tf32.
    let e = tf32(0x4e4e_4e48).unwrap_err();
    assert!(e.contains("only 0b0100 and 0b1110"), "{e}");
}
