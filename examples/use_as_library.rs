//! The README's "Use as a library" example: read a kernel (text or bytecode), verify it, print
//! it, and run it in the interpreter.
//!
//! `cargo run --release --example use_as_library` (from the project root).

use ptx_ir::interp::{Arg, Program};
use ptx_ir::{ir::verify, load, text};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let module = load::load_path("corpus/interp/reduce_shared.ptx".as_ref())?.module;
    assert!(verify::verify(&module).is_empty());
    println!("{} bytes of canonical PTX", text::print(&module).len());
    let input: Vec<u8> = (0u32..256).flat_map(u32::to_le_bytes).collect();
    let run = Program::load(&module)?
        .launch("k")
        .grid([2, 1, 1])
        .block([128, 1, 1])
        .args([Arg::Buffer(input), Arg::Buffer(vec![0; 8])])
        .run()?;
    let sums: Vec<u32> = run.buffers[1]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    println!("per-CTA sums: {sums:?}"); // [8128, 24512]
    Ok(())
}
