//! Every regression file of `corpus/regress/` (see `ptx_ir_oracles::regress` for the format, `ptx_ir_oracles::replay` for the checks):
//! the findings of the fuzzers, kept as tests.

#[test]
fn regression_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/regress");
    let (failures, n) = ptx_ir_oracles::replay::run_dir(&dir);
    assert!(n > 0, "no regression files in {}", dir.display());
    assert!(
        failures.is_empty(),
        "{} of {n} regression files failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
