//! Writes generated tensor-copy kernels (`hopper_agree`'s `Tensor` family) and, for each, one
//! kernel per step and variants of that step with one map parameter changed, in the
//! `hopper_batch` format (run with `fuzz/tools/hw_run_maps.py`, compare with
//! `fuzz/tools/hw_compare_maps.py`); the `family` field names the variant.
//!
//! `cargo run --release -p ptx-ir-oracles --example tensor_probe -- DIR N SEED`

use arbitrary::Unstructured;
use ptx_ir_oracles::hopper_agree::Kernel;
use ptx_ir_oracles::Bytes;
use ptx_ir_smith::hopper::tensor::{Map, Spec, Step, IN, SCRATCH, SMEM};
use std::io::Write;

fn write(dir: &std::path::Path, index: &mut std::fs::File, n: &mut usize, fam: &str, s: &Spec) {
    let k = if fam == "Beyond" {
        // The box reaches past shared memory: the reference has no answer.
        let l = ptx_ir_smith::hopper::Protocol::build(s).0;
        Kernel {
            expected: vec![0; l.out_len],
            known: vec![false; l.out_len],
            text: l.text,
            grid: l.grid,
            block: l.block,
            input: l.input,
            tmaps: l.tmaps,
        }
    } else {
        Kernel::of(s)
    };
    let name = format!("case{:05}", *n);
    std::fs::write(dir.join(format!("{name}.ptx")), &k.text).expect("write ptx");
    let steps = format!("{:?}", s.steps).replace('"', "'");
    writeln!(
        index,
        "{}",
        k.batch_line(&name, fam, &format!("\"steps\": \"{steps}\", "))
    )
    .expect("write index");
    *n += 1;
}

/// Whether the step's box fits shared memory at its offset.
fn fits(m: &Map, off: u32) -> bool {
    off + m.extent() <= SMEM
}

/// `m` with its outer dimensions redrawn wider, within `budget` bytes of tensor and the shared
/// memory from `off`.
fn wide(u: &mut Unstructured, m: &Map, budget: u32, off: u32) -> arbitrary::Result<Option<Map>> {
    let mut v = m.clone();
    for i in 1..v.rank() {
        v.es[i] = u.int_in_range(1..=8)?;
        v.boxd[i] = u.int_in_range(1..=24)?;
        v.dims[i] = u.int_in_range(1..=20)?;
    }
    loop {
        let eb = v.elem.bytes as u64;
        let mut ext = (v.dims[0] as u64 * eb).div_ceil(16) * 16;
        let mut st = Vec::new();
        for i in 1..v.rank() {
            st.push(ext);
            ext *= v.dims[i] as u64;
        }
        if ext <= budget as u64 {
            v.strides = st;
            break;
        }
        let i = (1..v.rank()).max_by_key(|&i| v.dims[i]).unwrap();
        if v.dims[i] == 1 {
            return Ok(None);
        }
        v.dims[i] = v.dims[i].div_ceil(2);
    }
    while !fits(&v, off) {
        let i = (1..v.rank()).max_by_key(|&i| v.box_elems(i)).unwrap();
        if v.box_elems(i) == 1 {
            return Ok(None);
        }
        v.boxd[i] -= 1;
    }
    Ok(Some(v))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(&args[1]);
    let per: usize = args[2].parse().unwrap();
    let seed: u64 = args[3].parse().unwrap();
    let steps_too = std::env::var("NO_STEPS").is_err();
    std::fs::create_dir_all(&dir).expect("output directory");
    let mut src = Bytes::new(seed);
    let mut index = std::fs::File::create(dir.join("cases.jsonl")).expect("cases.jsonl");
    let mut n = 0;
    let mut written = 0;
    let mut beyond: Vec<Spec> = Vec::new();
    while written < per {
        let data = src.fill(8192);
        let mut u = Unstructured::new(&data);
        let Ok(s) = Spec::arbitrary(&mut u) else {
            continue;
        };
        written += 1;
        write(&dir, &mut index, &mut n, "Whole", &s);
        if !steps_too {
            continue;
        }
        for step in &s.steps {
            let (load, off) = match step {
                Step::Load(_, d) => (true, *d),
                Step::Store(_, d) | Step::Reduce(_, _, d) => (false, *d),
                _ => continue,
            };
            let mut one = s.clone();
            one.steps = vec![step.clone()];
            write(&dir, &mut index, &mut n, "Step", &one);
            let m = if load { &s.load } else { &s.store };
            let mut vars: Vec<(&str, Map)> = Vec::new();
            if m.es.iter().any(|&e| e != 1) {
                let mut v = m.clone();
                v.es.iter_mut().for_each(|e| *e = 1);
                vars.push(("Es1", v));
                let mut v = m.clone();
                for i in 0..v.rank() {
                    v.boxd[i] = v.box_elems(i);
                    v.es[i] = 1;
                }
                vars.push(("Es1Same", v));
            }
            if m.swizzle != 0 {
                let mut v = m.clone();
                v.swizzle = 0;
                vars.push(("Swz0", v));
            }
            if m.nan {
                let mut v = m.clone();
                v.nan = false;
                vars.push(("Zero", v));
            }
            for (fam, v) in vars {
                if !fits(&v, off) {
                    continue;
                }
                let mut t = one.clone();
                if load {
                    t.load = v;
                } else {
                    t.store = v;
                }
                write(&dir, &mut index, &mut n, fam, &t);
            }
            // Wider outer dimensions: traversal strides up to 8, boxes up to 24, dims up to 20.
            if m.rank() > 1 {
                let data = src.fill(256);
                let mut w = Unstructured::new(&data);
                if let Ok(Some(v)) = wide(&mut w, m, if load { IN } else { SCRATCH }, off) {
                    let mut t = one.clone();
                    let c = v
                        .dims
                        .iter()
                        .map(|&d| w.int_in_range(0..=d as i32 + 2).unwrap_or(0));
                    let mut c: Vec<i32> = c.collect();
                    c[0] = 0;
                    match &mut t.steps[0] {
                        Step::Load(x, _) | Step::Store(x, _) | Step::Reduce(_, x, _) => *x = c,
                        _ => {}
                    }
                    if load {
                        t.load = v;
                    } else {
                        t.store = v;
                    }
                    write(&dir, &mut index, &mut n, "Wide", &t);
                }
            }
            // A box reaching past the shared allocation (4096 + 8 bytes).
            if load && m.extent() >= 256 {
                let mut t = one.clone();
                if let Step::Load(_, d) = &mut t.steps[0] {
                    *d = (SMEM - m.extent() + 128).min(SMEM - 128);
                }
                beyond.push(t);
            }
            // Coordinates at the origin.
            let mut t = one.clone();
            match &mut t.steps[0] {
                Step::Load(c, _) | Step::Store(c, _) | Step::Reduce(_, c, _) => {
                    c.iter_mut().for_each(|x| *x = 0)
                }
                _ => {}
            }
            write(&dir, &mut index, &mut n, "Origin", &t);
        }
    }
    for t in &beyond {
        write(&dir, &mut index, &mut n, "Beyond", t);
    }
    eprintln!("{n} cases in {}", dir.display());
}
