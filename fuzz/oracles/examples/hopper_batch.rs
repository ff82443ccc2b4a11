//! Writes a batch of generated `hopper_agree` kernels (the `sm_90a` families) with their launches
//! and the reference's answers, for a run on an H100/H200 with `fuzz/tools/hw_run_maps.py` and a
//! comparison with `fuzz/tools/hw_compare_maps.py`.
//!
//! `cargo run --release -p ptx-ir-oracles --example hopper_batch -- DIR [PER_FAMILY] [SEED]`
//! (`HW_FAMILIES=Bulk,Tensor,...` restricts the families). The `sm_100a` families (`Tmem`,
//! `Clc`) and the tensor family's misalignment arm (which traps by design) are left out.

use arbitrary::Unstructured;
use ptx_ir_oracles::hopper_agree::{self as ha, Kernel, ProtocolFamily};
use ptx_ir_oracles::Bytes;
use ptx_ir_smith::hopper as hs;
use std::io::Write;

fn build(f: ProtocolFamily, u: &mut Unstructured) -> arbitrary::Result<Option<ha::Kernel>> {
    Ok(Some(match f {
        ProtocolFamily::Async => Kernel::of(&hs::copy::Spec::arbitrary(u)?),
        ProtocolFamily::Bulk => Kernel::of(&hs::bulk::Spec::arbitrary(u)?),
        ProtocolFamily::Mbarrier => Kernel::of(&hs::mbar::Spec::arbitrary(u)?),
        ProtocolFamily::Cluster => Kernel::of(&hs::cluster::Spec::arbitrary(u)?),
        ProtocolFamily::Matrix => Kernel::of(&hs::matrix::Spec::arbitrary(u)?),
        ProtocolFamily::Fmma => Kernel::of(&hs::fmma::Spec::arbitrary(u)?),
        ProtocolFamily::Wgmma => Kernel::of(&hs::wgmma::Spec::arbitrary(u)?),
        ProtocolFamily::Tensor => Kernel::of(&hs::tensor::Spec::arbitrary(u)?),
        ProtocolFamily::Multicast => Kernel::of(&hs::mcast::Spec::arbitrary(u)?),
        ProtocolFamily::Tmem | ProtocolFamily::Clc => return Ok(None),
    }))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(
        args.get(1)
            .expect("usage: hopper_batch DIR [PER_FAMILY] [SEED]"),
    );
    let per: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(50);
    let seed: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    std::fs::create_dir_all(&dir).expect("output directory");
    let fams: Vec<ProtocolFamily> = match std::env::var("HW_FAMILIES") {
        Ok(v) => ProtocolFamily::ALL
            .into_iter()
            .filter(|f| v.split(',').any(|n| n == format!("{f:?}")))
            .collect(),
        Err(_) => ProtocolFamily::ALL.to_vec(),
    };
    let mut src = Bytes::new(seed);
    let mut index = std::fs::File::create(dir.join("cases.jsonl")).expect("cases.jsonl");
    let mut n = 0;
    for f in fams {
        let mut written = 0;
        let mut tries = 0;
        while written < per && tries < 20 * per {
            tries += 1;
            let data = src.fill(8192);
            let mut u = Unstructured::new(&data);
            let Ok(Some(k)) = build(f, &mut u) else {
                continue;
            };
            let name = format!("case{n:05}");
            std::fs::write(dir.join(format!("{name}.ptx")), &k.text).expect("write ptx");
            writeln!(index, "{}", k.batch_line(&name, &format!("{f:?}"), "")).expect("write index");
            written += 1;
            n += 1;
        }
    }
    eprintln!("{n} cases in {}", dir.display());
}
