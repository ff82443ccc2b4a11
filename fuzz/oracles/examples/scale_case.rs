//! Prints the shape, size and text length of `scale` fuzz inputs, and times their check:
//! `cargo run --release -p ptx-ir-oracles --example scale_case -- FILE...`.
fn main() {
    for p in std::env::args().skip(1) {
        let b = std::fs::read(&p).expect("readable input");
        let mut u = arbitrary::Unstructured::new(&b);
        match ptx_ir_oracles::scale::case(&mut u, ptx_ir_oracles::scale::MAX_SIZE) {
            Ok(c) => {
                let t = std::time::Instant::now();
                ptx_ir_oracles::scale::check(&c);
                println!(
                    "{p}: {} size {} text {} bytes, checked in {:.2} s",
                    c.shape,
                    c.size,
                    c.text.len(),
                    t.elapsed().as_secs_f64()
                );
            }
            Err(e) => println!("{p}: no case ({e})"),
        }
    }
}
