//! Prints the libFuzzer dictionary of the text fuzz targets (`ptx_ir_oracles::dict`):
//! `cargo run --release -p ptx-ir-oracles --example write_dict > fuzz/ptx.dict`.

fn main() {
    print!("{}", ptx_ir_oracles::dict::ptx_dictionary());
}
