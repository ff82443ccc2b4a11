//! Counts the instructions of PTX files (text or bytecode) per family and per opcode, with a
//! read-only visitor over the IR.
//!
//! ```sh
//! cargo run --release --example family_count -- corpus/golden/print/*.ptx
//! ```

use ptx_ir::ir::walk::{walk_function, Visit};
use ptx_ir::ir::{Family, Function, Instruction, Opcode};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

/// Instruction counts, keyed by family and by opcode. Counting in `visit_instruction` sees
/// instructions of nested `{ }` blocks too: the default `visit_statement` descends into them.
#[derive(Default)]
struct Counts {
    families: BTreeMap<Family, usize>,
    opcodes: BTreeMap<Opcode, usize>,
    functions: usize,
}

impl Visit for Counts {
    fn visit_function(&mut self, f: &Function) {
        self.functions += usize::from(f.body.is_some());
        walk_function(self, f);
    }

    fn visit_instruction(&mut self, i: &Instruction) {
        *self.families.entry(i.opcode.family()).or_default() += 1;
        *self.opcodes.entry(i.opcode).or_default() += 1;
        // Operands hold nothing to count: no `walk_instruction`.
    }
}

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: family_count FILE...");
        return ExitCode::from(2);
    }
    let mut counts = Counts::default();
    for f in &files {
        match ptx_ir::load::load_path(Path::new(f)) {
            Ok(loaded) => counts.visit_module(&loaded.module),
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let total: usize = counts.families.values().sum();
    println!(
        "{} files, {} function bodies, {total} instructions",
        files.len(),
        counts.functions
    );
    println!();
    println!("{:<50} {:>9} {:>7}", "family", "count", "share");
    for (fam, n) in &counts.families {
        let share = 100.0 * *n as f64 / total.max(1) as f64;
        println!("{:<50} {n:>9} {share:>6.1}%", fam.name());
    }
    println!();
    println!("most frequent opcodes:");
    let mut ops: Vec<(&Opcode, &usize)> = counts.opcodes.iter().collect();
    ops.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (op, n) in ops.iter().take(15) {
        println!("  {:<28} {n:>9}", op.name());
    }
    ExitCode::SUCCESS
}
