//! IR size report: heap and inline bytes of each parsed module, measured with a counting global
//! allocator, per corpus folder.
//!
//! `cargo run --release -p ptx-ir-text --example irsize [-- -v]` (`-v` lists every file).
//!
//! Columns: `IR bytes` is the module's inline size plus the heap bytes still live after
//! `parse` returned (everything the module owns); `B/inst` divides that by the instruction
//! count; `IR/text` by the source size; `names` is the interner's share; `allocs/inst` counts
//! allocator calls during parsing; `churn` is all bytes allocated during parsing over the IR
//! bytes (an upper bound on the parser's transient memory, relative to the result).

#[path = "../benches/corpus_files.rs"]
mod corpus_files;

use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

#[derive(Default, Clone, Copy)]
struct Row {
    files: usize,
    text: usize,
    insts: usize,
    ir: usize,
    names: usize,
    allocs: usize,
    churn: usize,
    print_cap: usize,
}

impl Row {
    fn add(&mut self, o: &Row) {
        self.files += o.files;
        self.text += o.text;
        self.insts += o.insts;
        self.ir += o.ir;
        self.names += o.names;
        self.allocs += o.allocs;
        self.churn += o.churn;
        self.print_cap += o.print_cap;
    }

    fn show(&self, name: &str) {
        let per = |x: usize| x as f64 / self.insts.max(1) as f64;
        println!(
            "{:<24} {:>5} {:>11} {:>8} {:>11} {:>7.1} {:>8.2} {:>6.2} {:>11.2} {:>6.2} {:>8.2}",
            name,
            self.files,
            self.text,
            self.insts,
            self.ir,
            per(self.ir),
            self.ir as f64 / self.text.max(1) as f64,
            self.names as f64 / self.ir.max(1) as f64,
            per(self.allocs),
            self.churn as f64 / self.ir.max(1) as f64,
            self.print_cap as f64 / self.text.max(1) as f64,
        );
    }
}

fn main() {
    let verbose = std::env::args().any(|a| a == "-v");
    let files = corpus_files::load();
    // Warm up: the vocabulary and instruction tables are built on first use.
    for c in &files {
        drop(ptx_ir_text::parse_file(&c.src, &c.rel));
    }
    println!(
        "{:<24} {:>5} {:>11} {:>8} {:>11} {:>7} {:>8} {:>6} {:>11} {:>6} {:>8}",
        "file/group",
        "files",
        "text bytes",
        "insts",
        "IR bytes",
        "B/inst",
        "IR/text",
        "names",
        "allocs/inst",
        "churn",
        "out/text"
    );
    let mut rows = Vec::new();
    for c in &files {
        // The reader's per-thread scratch is not part of the module: made and freed inside
        // the region, it counts as churn only.
        ptx_ir_text::release_thread_scratch();
        let region = Region::new(GLOBAL);
        let m = match ptx_ir_text::parse_file(&c.src, &c.rel) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        ptx_ir_text::release_thread_scratch();
        let st = region.change();
        let live = st.bytes_allocated.saturating_sub(st.bytes_deallocated);
        let out = ptx_ir_text::print(&m);
        let row = Row {
            files: 1,
            text: c.src.len(),
            insts: m.instruction_count(),
            ir: live + std::mem::size_of_val(&m),
            names: m.names.heap_bytes(),
            allocs: st.allocations + st.reallocations,
            churn: st.bytes_allocated,
            print_cap: out.capacity(),
        };
        if verbose {
            row.show(&c.rel);
        }
        rows.push((c.rel.as_str(), row));
        drop(m);
    }
    if verbose {
        println!();
    }
    for name in corpus_files::groups() {
        let mut total = Row::default();
        for (rel, r) in &rows {
            if corpus_files::in_group(rel, name) {
                total.add(r);
            }
        }
        if total.files > 0 {
            total.show(name);
        }
    }
}
