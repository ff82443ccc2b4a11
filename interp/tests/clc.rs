//! Seed 000's work-stealing example (`corpus/interp/clc_steal.ptx`) runs to completion with the
//! work of every CTA done exactly once, for several grid and cluster sizes and numbers of
//! clusters running at once.

use ptx_ir_interp::{Arg, Program};

fn program() -> Program {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/interp/clc_steal.ptx");
    let src = std::fs::read_to_string(path).expect("clc_steal.ptx");
    Program::load(&ptx_ir_text::parse(&src).expect("parse")).expect("load")
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn every_cluster_is_processed_exactly_once() {
    let p = program();
    for (entry, block, per_cta) in [("steal1", 1, 1u32), ("steal64", 64, 64 * 65 / 2)] {
        for cluster in [1u32, 2, 4] {
            for nclusters in [1u32, 2, 3, 7, 16] {
                for resident in [1u32, 2, 5] {
                    let grid = cluster * nclusters;
                    let n = grid as usize * 4;
                    let o = p
                        .launch(entry)
                        .grid([grid, 1, 1])
                        .block([block, 1, 1])
                        .cluster([cluster, 1, 1])
                        .resident_clusters(resident)
                        .arg(Arg::Buffer(vec![0; n]))
                        .arg(Arg::Buffer(vec![0; n]))
                        .run()
                        .unwrap_or_else(|f| panic!("{entry} grid {grid} cluster {cluster}: {f}"));
                    let done = words(&o.buffers[0]);
                    assert!(
                        done.iter().all(|&d| d == per_cta),
                        "{entry} grid {grid} cluster {cluster} resident {resident}: {done:?}"
                    );
                    // The CTA that did each piece of work belongs to one of the clusters that
                    // actually ran (the first `resident` ones, or more when a running one found
                    // nothing left to steal), at the same rank.
                    let who = words(&o.buffers[1]);
                    for (i, &w) in who.iter().enumerate() {
                        assert_eq!(
                            w % cluster,
                            i as u32 % cluster,
                            "{entry}: work {i} done by CTA {w}"
                        );
                    }
                }
            }
        }
    }
}
