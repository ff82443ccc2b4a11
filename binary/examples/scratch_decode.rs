use std::time::Instant;
fn main() {
    let root_s = std::env::var("ROOT").unwrap_or("../shared/corpus".into());
    let root = std::path::Path::new(&root_s);
    let mut fs = Vec::new();
    fn walk(d: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out)
            } else if p.extension().is_some_and(|e| e == "ptx") {
                out.push(p)
            }
        }
    }
    walk(root, &mut fs);
    fs.sort();
    let filt = std::env::var("FOLDER").unwrap_or_default();
    let mode = std::env::var("MODE").unwrap_or("both".into());
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let threads: usize = std::env::var("THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut srcs = vec![];
    let mut bins = vec![];
    let mut text = 0usize;
    for f in fs
        .iter()
        .filter(|f| filt.split(',').any(|x| f.to_string_lossy().contains(x)))
    {
        let s = std::fs::read_to_string(f).unwrap();
        if mode == "parse" || mode == "print" {
            text += s.len();
            srcs.push(s);
            continue;
        }
        let m = ptx_ir_text::parse(&s).unwrap();
        let codec = if std::env::var("STORED").is_ok() {
            ptx_ir_binary::Codec::Stored
        } else {
            ptx_ir_binary::Codec::Zstd
        };
        bins.push(ptx_ir_binary::encode_with(&m, codec).unwrap());
        text += s.len();
        srcs.push(s);
    }
    if mode == "print" {
        let ms: Vec<_> = srcs
            .iter()
            .map(|s| ptx_ir_text::parse(s).unwrap())
            .collect();
        let mut t = vec![];
        for _ in 0..reps {
            let t0 = Instant::now();
            for m in &ms {
                let s = ptx_ir_text::print(m);
                drop(std::hint::black_box(s));
            }
            t.push(t0.elapsed().as_secs_f64());
        }
        t.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!("text {} print {:.0} MB/s", text, text as f64 / t[0] / 1e6);
        return;
    }
    let mut tp = vec![];
    let mut td = vec![];
    let cold = std::env::var("COLD").is_ok();
    let inner: usize = std::env::var("INNER")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    for _ in 0..reps {
        if mode != "decode" {
            let t = Instant::now();
            for _ in 0..inner {
                for s in &srcs {
                    if cold {
                        ptx_ir_text::release_thread_scratch();
                    }
                    let m = ptx_ir_text::parse(s).unwrap();
                    let _ = threads;
                    drop(std::hint::black_box(m));
                }
            }
            tp.push(t.elapsed().as_secs_f64() / inner as f64);
        }
        if mode != "parse" {
            let t = Instant::now();
            for b in &bins {
                let m = ptx_ir_binary::decode(b).unwrap();
                drop(std::hint::black_box(m));
            }
            td.push(t.elapsed().as_secs_f64());
        }
    }
    let med = |v: &mut Vec<f64>| {
        if v.is_empty() {
            return 0.0;
        };
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        if std::env::var("BEST").is_ok() {
            v[0]
        } else {
            v[v.len() / 2]
        }
    };
    let (p, d) = (med(&mut tp), med(&mut td));
    println!(
        "text {} parse {:.0} MB/s decode {:.0} MB/s ratio {:.2}",
        text,
        text as f64 / p / 1e6,
        text as f64 / d / 1e6,
        p / d
    );
}
