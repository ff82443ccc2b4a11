//! The real-program suite (`tools/realprog/`): CUDA C++ and Triton kernels compiled to PTX,
//! run on the GPU by `tools/realprog/record.py`, replayed here in the interpreter.
//!
//! `corpus/realprog/launches.json` lists every launch (module, entry, grid, block, cluster,
//! dynamic shared memory, arguments); the inputs are regenerated from their seeds (splitmix64,
//! as `tools/realprog/inputs.py` does), and every buffer argument's final bytes must equal the
//! recording `corpus/realprog/gpu.jsonl.xz` byte for byte. A launch fails when its recording is
//! missing, was made from other PTX (sha256), is not `ok`, or disagrees, or when the
//! interpreter stops with an error; `corpus/realprog/known_failures.txt` lists the launches
//! expected to fail (`LAUNCH_ID  reason`; a trailing `*` matches a prefix; `#` starts a
//! comment). An entry needs a reason, and an entry matching only launches that pass is stale
//! and fails the test.

mod common;

use ptx_ir::interp::{Arg, Checks, Program};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/realprog")
}

fn xz(path: &Path) -> Vec<u8> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    lzma_rs::xz_decompress(&mut &data[..], &mut out)
        .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
    out
}

// ----------------------------------------------------------------------------- inputs

struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn rne(m: u32, shift: u32) -> u32 {
    let q = m >> shift;
    let rem = m & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    if rem > half || (rem == half && q & 1 == 1) {
        q + 1
    } else {
        q
    }
}

/// binary32 bits to binary16 bits, round to nearest even (`inputs.f32_to_f16_bits`).
fn f32_to_f16(b: u32) -> u16 {
    let sign = (b >> 16) & 0x8000;
    let exp = ((b >> 23) & 0xFF) as i32;
    let mant = b & 0x7F_FFFF;
    if exp == 0xFF {
        return (sign | 0x7C00 | if mant != 0 { 0x200 } else { 0 }) as u16;
    }
    let e = exp - 112;
    if e >= 31 {
        return (sign | 0x7C00) as u16;
    }
    if e <= 0 {
        if e < -10 {
            return sign as u16;
        }
        return (sign | rne(mant | 0x80_0000, (14 - e) as u32)) as u16;
    }
    (sign | rne(((e as u32) << 23) | mant, 13)) as u16
}

fn f32_to_bf16(b: u32) -> u16 {
    if b & 0x7FFF_FFFF > 0x7F80_0000 {
        return ((b >> 16) | 0x40) as u16;
    }
    (b.wrapping_add(0x7FFF + ((b >> 16) & 1)) >> 16) as u16
}

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v[k].as_str()
        .unwrap_or_else(|| panic!("`{k}` missing in {v}"))
}

fn num(v: &Value, k: &str) -> usize {
    v[k].as_u64()
        .unwrap_or_else(|| panic!("`{k}` missing in {v}")) as usize
}

fn int(text: &str) -> i128 {
    let (neg, t) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text),
    };
    let m = match t.strip_prefix("0x") {
        Some(h) => i128::from_str_radix(h, 16),
        None => t.parse(),
    }
    .unwrap_or_else(|_| panic!("bad integer `{text}`"));
    if neg {
        -m
    } else {
        m
    }
}

fn float(text: &str) -> f64 {
    text.parse()
        .unwrap_or_else(|_| panic!("bad float `{text}`"))
}

/// `f32s`, `f16s`: one element in eight is one of these (`inputs.SPECIALS32`).
const SPECIALS32: [u32; 8] = [
    0x0000_0000,
    0x8000_0000,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0xFFFF_FFFF,
    0x0000_0001,
    0x7F7F_FFFF,
];

/// A buffer's initial bytes (`inputs.generate`).
fn generate(a: &Value) -> Vec<u8> {
    let g = s(a, "gen");
    match g {
        "fill" => return vec![0xAB; num(a, "bytes")],
        "zeros" => return vec![0; num(a, "bytes")],
        "hex" => return unhex(s(a, "hex")),
        _ => {}
    }
    let n = num(a, "n");
    let mut out = Vec::with_capacity(n * 8);
    if g == "iota32" {
        let (start, step) = (int(s(a, "start")), int(s(a, "step")));
        for i in 0..n as i128 {
            out.extend_from_slice(&((start + i * step) as u32).to_le_bytes());
        }
        return out;
    }
    if g == "const32" {
        let v = int(s(a, "value")) as u32;
        for _ in 0..n {
            out.extend_from_slice(&v.to_le_bytes());
        }
        return out;
    }
    let mut r = SplitMix64(u64::from_str_radix(s(a, "seed"), 16).expect("seed"));
    match g {
        "f32" | "f16" | "bf16" | "f64" => {
            let (lo, hi) = (float(s(a, "lo")), float(s(a, "hi")));
            for _ in 0..n {
                let z = r.next();
                if g == "f64" {
                    let u = (z >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0);
                    out.extend_from_slice(&(lo + (hi - lo) * u).to_le_bytes());
                    continue;
                }
                let u = (z >> 40) as f64 * (1.0 / 16_777_216.0);
                let b = ((lo + (hi - lo) * u) as f32).to_bits();
                match g {
                    "f32" => out.extend_from_slice(&b.to_le_bytes()),
                    "f16" => out.extend_from_slice(&f32_to_f16(b).to_le_bytes()),
                    _ => out.extend_from_slice(&f32_to_bf16(b).to_le_bytes()),
                }
            }
        }
        "f32e" | "f16e" | "f32s" | "f16s" => {
            let (lo, hi) = (int(s(a, "lo")) as i64, int(s(a, "hi")) as i64);
            let signed = a["signed"].as_bool().unwrap_or(true);
            for _ in 0..n {
                let z = r.next();
                let e = lo + ((z >> 32) % (hi - lo + 1) as u64) as i64;
                let biased = (e + 127).clamp(0, 254) as u32;
                let mut b = (biased << 23) | ((z >> 1) as u32 & 0x7F_FFFF);
                if signed && z & 1 == 1 {
                    b |= 0x8000_0000;
                }
                if (g == "f32s" || g == "f16s") && (z >> 20) & 7 == 0 {
                    b = SPECIALS32[(z >> 24) as usize & 7];
                }
                if g == "f32e" || g == "f32s" {
                    out.extend_from_slice(&b.to_le_bytes());
                } else {
                    out.extend_from_slice(&f32_to_f16(b).to_le_bytes());
                }
            }
        }
        "e4m3" | "e5m2" => {
            let (lo, hi) = (int(s(a, "lo")) as u64, int(s(a, "hi")) as u64);
            for _ in 0..n {
                let z = r.next();
                let e = lo + (z >> 32) % (hi - lo + 1);
                let sign = ((z & 1) << 7) as u8;
                if g == "e4m3" {
                    let mut m = (z >> 1) & 7;
                    if e == 15 && m == 7 {
                        m = 6;
                    }
                    out.push(sign | (e << 3) as u8 | m as u8);
                } else {
                    out.push(sign | (e.min(30) << 2) as u8 | ((z >> 1) & 3) as u8);
                }
            }
        }
        "u8" | "u32" | "i32" => {
            let (lo, hi) = (int(s(a, "lo")), int(s(a, "hi")));
            for _ in 0..n {
                let v = lo + ((r.next() >> 32) as i128) % (hi - lo);
                if g == "u8" {
                    out.push(v as u8);
                } else {
                    out.extend_from_slice(&(v as u32).to_le_bytes());
                }
            }
        }
        "u64" => {
            for _ in 0..n {
                out.extend_from_slice(&r.next().to_le_bytes());
            }
        }
        _ => panic!("unknown generator `{g}`"),
    }
    out
}

fn scalar(a: &Value) -> Arg {
    let t = s(a, "type");
    let v = s(a, "value");
    match t {
        "f32" => Arg::f32(float(v) as f32),
        "f64" => Arg::f64(float(v)),
        _ => {
            let size = match t {
                "u16" => 2,
                "u32" | "i32" => 4,
                "u64" | "i64" => 8,
                _ => panic!("unknown scalar type `{t}`"),
            };
            Arg::Scalar((int(v) as u64).to_le_bytes()[..size].to_vec())
        }
    }
}

fn unhex(h: &str) -> Vec<u8> {
    (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).expect("hex"))
        .collect()
}

// ----------------------------------------------------------------------------- sha256

fn sha256(data: &[u8]) -> String {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in msg.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, c) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let mut v = h;
        for i in 0..64 {
            let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
            let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
            let t1 = v[7]
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
            let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            let t2 = s0.wrapping_add(maj);
            v = [
                t1.wrapping_add(t2),
                v[0],
                v[1],
                v[2],
                v[3].wrapping_add(t1),
                v[4],
                v[5],
                v[6],
            ];
        }
        for (a, b) in h.iter_mut().zip(v) {
            *a = a.wrapping_add(b);
        }
    }
    h.iter().map(|x| format!("{x:08x}")).collect()
}

// ----------------------------------------------------------------------------- replay

/// `(pattern, reason)` of each listed known failure.
fn known_failures() -> Vec<(String, String)> {
    common::known_failures(&corpus().join("known_failures.txt"))
}

fn matches(pattern: &str, id: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(p) => id.starts_with(p),
        None => pattern == id,
    }
}

/// Runs one launch; `Err` says why it does not pass.
fn replay(prog: &Program, l: &Value, rec: Option<&Value>) -> Result<(), String> {
    let rec = rec.ok_or("no recorded result (re-record: tools/realprog/record.py)")?;
    let status = s(rec, "status");
    if status != "ok" {
        return Err(format!(
            "recorded {status}: {}",
            rec["detail"].as_str().unwrap_or("")
        ));
    }
    let dims = |k: &str| -> [u32; 3] {
        let v = l[k].as_array().expect("dims");
        [0, 1, 2].map(|i| v[i].as_u64().expect("dim") as u32)
    };
    let mut launch = prog
        .launch(s(l, "entry"))
        .grid(dims("grid"))
        .block(dims("block"))
        .dynamic_shared(num(l, "shared") as u32);
    if !l["cluster"].is_null() {
        launch = launch.cluster(dims("cluster"));
    }
    let (mut initial, mut arg_of) = (Vec::new(), Vec::new());
    for (j, a) in l["args"].as_array().expect("args").iter().enumerate() {
        if s(a, "type") == "buf" {
            let b = generate(a);
            initial.push(b.clone());
            arg_of.push(j);
            launch = launch.arg(Arg::Buffer(b));
        } else {
            launch = launch.arg(scalar(a));
        }
    }
    // The same launch on several threads: the same outcome (or failure), and what ran it.
    // The serial run also runs every check (`--check all`): real programs must give no
    // finding, and checking must not change what a launch computes.
    let serial = launch.clone().checks(Checks::all()).run();
    if let Some(f) = serial.as_ref().ok().and_then(|o| o.findings.first()) {
        return Err(format!("a check reports: {f}"));
    }
    let parallel = launch.threads(4).run();
    let (s_out, p_out) = match (&serial, &parallel) {
        (Ok(s), Ok(p)) => (s, p),
        (Err(s), Err(p)) => (&s.outcome, &p.outcome),
        _ => return Err("the serial and the parallel run disagree on failing".into()),
    };
    if serial.as_ref().err().map(|f| &f.error) != parallel.as_ref().err().map(|f| &f.error)
        || s_out.buffers != p_out.buffers
        || s_out.stats != p_out.stats
    {
        return Err("the parallel run's outcome differs from the serial one".into());
    }
    match &p_out.serial {
        None => RAN_PARALLEL.fetch_add(1, Ordering::Relaxed),
        // A launch that passes has no error to rerun for; a rerun for a race is a finding.
        Some(why)
            if serial.is_ok() && (why.starts_with("two CTAs") || why.starts_with("a worker")) =>
        {
            return Err(format!("the parallel run fell back to a serial one: {why}"));
        }
        Some(_) => RAN_SERIAL.fetch_add(1, Ordering::Relaxed),
    };
    let out = serial.map_err(|f| format!("interpreter: {}", f.error))?;
    let want = rec["bufs"].as_array().ok_or("recording has no `bufs`")?;
    if want.len() != out.buffers.len() {
        return Err(format!(
            "{} buffers recorded, {} arguments",
            want.len(),
            out.buffers.len()
        ));
    }
    let mut bad = Vec::new();
    for (i, ((w, got), init)) in want.iter().zip(&out.buffers).zip(&initial).enumerate() {
        let w = w.as_str().expect("buf");
        let w = if w == "=" { init.clone() } else { unhex(w) };
        if w.len() != got.len() {
            bad.push(format!(
                "argument {}: {} bytes recorded, {} here",
                arg_of[i],
                w.len(),
                got.len()
            ));
            continue;
        }
        let diff: Vec<usize> = (0..w.len()).filter(|&k| w[k] != got[k]).collect();
        if let Some(&first) = diff.first() {
            let at = first & !3;
            let end = (at + 8).min(w.len());
            bad.push(format!(
                "argument {}: {}/{} bytes differ, first at byte {first} (bytes {at}..{end}: \
                 gpu {} interp {})",
                arg_of[i],
                diff.len(),
                w.len(),
                hexs(&w[at..end]),
                hexs(&got[at..end])
            ));
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(bad.join("; "))
    }
}

/// Launches whose parallel run ran on several threads, and those that ran serially.
static RAN_PARALLEL: AtomicUsize = AtomicUsize::new(0);
static RAN_SERIAL: AtomicUsize = AtomicUsize::new(0);

fn hexs(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn real_programs_agree_with_the_gpu() {
    let table: Value = serde_json::from_slice(
        &std::fs::read(corpus().join("launches.json")).expect("corpus/realprog/launches.json"),
    )
    .expect("launches.json");
    let launches = table["launches"].as_array().expect("launches");
    let rec_text = xz(&corpus().join("gpu.jsonl.xz"));
    let rec_text = String::from_utf8(rec_text).expect("utf-8");
    let mut meta = Value::Null;
    let mut recs: HashMap<String, Value> = HashMap::new();
    for line in rec_text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).expect("recording line");
        if !v["meta"].is_null() {
            meta = v["meta"].clone();
            continue;
        }
        recs.insert(s(&v, "id").to_string(), v);
    }
    println!("recording: {meta}");

    // Launches grouped by module, modules in table order.
    let mut order: Vec<String> = Vec::new();
    let mut by_module: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, l) in launches.iter().enumerate() {
        let m = s(l, "module").to_string();
        if !by_module.contains_key(&m) {
            order.push(m.clone());
        }
        by_module.entry(m).or_default().push(i);
    }
    let results: Mutex<Vec<Option<Result<(), String>>>> = Mutex::new(vec![None; launches.len()]);
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|sc| {
        for _ in 0..threads {
            sc.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(m) = order.get(k) else { break };
                let minfo = &table["modules"][m.as_str()];
                let text = xz(&corpus().join(s(minfo, "ptx")));
                let idx = &by_module[m];
                let prog = if sha256(&text) != s(minfo, "sha256") {
                    Err(
                        "the PTX file's sha256 differs from launches.json (suite.py export)"
                            .to_string(),
                    )
                } else {
                    let text = String::from_utf8(text).expect("utf-8 PTX");
                    ptx_ir::text::parse(&text)
                        .map_err(|e| format!("parse: {e}"))
                        .and_then(|m| Program::load(&m).map_err(|e| format!("load: {e}")))
                };
                for &i in idx {
                    let l = &launches[i];
                    let rec = recs.get(s(l, "id"));
                    let r = match &prog {
                        Err(e) => Err(e.clone()),
                        Ok(p) => match rec {
                            Some(r) if s(r, "sha256") != s(minfo, "sha256") => {
                                Err("recorded from other PTX (sha256 differs): re-record"
                                    .to_string())
                            }
                            _ => replay(p, l, rec),
                        },
                    };
                    results.lock().unwrap()[i] = Some(r);
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    let known = known_failures();
    let (mut passed, mut known_n) = (0, 0);
    let mut bad = Vec::new();
    let mut used = vec![false; known.len()];
    for (l, r) in launches.iter().zip(&results) {
        let id = s(l, "id");
        let r = r.as_ref().expect("every launch ran");
        let k = known.iter().position(|(p, _)| matches(p, id));
        if let Some(k) = k {
            used[k] = true;
        }
        match (r, k) {
            (Ok(()), None) => {
                passed += 1;
                println!("PASS  {id}");
            }
            (Ok(()), Some(_)) => {
                passed += 1;
                println!("PASS  {id} (listed in known_failures.txt)");
            }
            (Err(e), Some(_)) => {
                known_n += 1;
                println!("KNOWN {id}: {e}");
            }
            (Err(e), None) => {
                println!("FAIL  {id}: {e}");
                bad.push(format!("{id}: {e}"));
            }
        }
    }
    // An entry is stale when it matches no launch, or every launch it matches passes.
    let stale: Vec<&str> = known
        .iter()
        .enumerate()
        .filter(|&(k, (p, _))| {
            !used[k]
                || launches
                    .iter()
                    .zip(&results)
                    .filter(|(l, _)| matches(p, s(l, "id")))
                    .all(|(_, r)| matches!(r, Some(Ok(()))))
        })
        .map(|(_, (p, _))| p.as_str())
        .collect();
    let extra: Vec<&String> = recs
        .keys()
        .filter(|id| !launches.iter().any(|l| s(l, "id") == id.as_str()))
        .collect();
    println!(
        "{passed} passed, {} failed, {known_n} known ({} launches)",
        bad.len(),
        launches.len()
    );
    let (par, ser) = (
        RAN_PARALLEL.load(Ordering::Relaxed),
        RAN_SERIAL.load(Ordering::Relaxed),
    );
    println!(
        "threads(4): {par} launches ran on several threads, {ser} serially, all as threads(1)"
    );
    let mut problems = Vec::new();
    if !bad.is_empty() {
        problems.push(format!(
            "{} launches disagree with the recording:\n{}",
            bad.len(),
            bad.join("\n")
        ));
    }
    if !stale.is_empty() {
        problems.push(format!(
            "known_failures.txt lists launches that pass or do not exist: {stale:?}"
        ));
    }
    if !extra.is_empty() {
        problems.push(format!(
            "the recording has launches launches.json does not: {extra:?}"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The generators agree with `tools/realprog/inputs.py` on fixed values.
#[test]
fn input_generators_are_stable() {
    let mut r = SplitMix64(0);
    assert_eq!(r.next(), 0xE220_A839_7B1D_CDAF);
    assert_eq!(f32_to_f16(1.0f32.to_bits()), 0x3C00);
    assert_eq!(f32_to_f16(65520.0f32.to_bits()), 0x7C00);
    assert_eq!(f32_to_f16(5.960_464_5e-8_f32.to_bits()), 0x0001);
    assert_eq!(f32_to_f16(2.980_232_2e-8_f32.to_bits()), 0x0000);
    assert_eq!(f32_to_bf16(1.0f32.to_bits()), 0x3F80);
    assert_eq!(
        sha256(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    // The first elements each generator makes from one seed, as inputs.generate makes them.
    let cases = [
        (
            r#""gen":"f32","n":2,"lo":"-1.0","hi":"1.0""#,
            "ec4e653f70b96e3e",
        ),
        (
            r#""gen":"f64","n":1,"lo":"-3.0","hi":"3.0""#,
            "d04f8d23667f0540",
        ),
        (r#""gen":"f16","n":2,"lo":"-4.0","hi":"4.0""#, "2a43763b"),
        (r#""gen":"bf16","n":2,"lo":"-4.0","hi":"4.0""#, "65406f3f"),
        (
            r#""gen":"f32e","n":2,"lo":"-130","hi":"30","signed":true"#,
            "d6db54912b01d1a6",
        ),
        (
            r#""gen":"f16e","n":2,"lo":"-20","hi":"17","signed":true"#,
            "a7b688c2",
        ),
        (
            r#""gen":"f32s","n":16,"lo":"-130","hi":"30","signed":true"#,
            "d6db54912b01d1a6f46d8c2cf2562697341a6d96ffffffffa2ebf51800000000747c593c21c1e6b9\
             80bc602646b0498583f9a2b41fd39e08cd8e7d32ffff7f7f",
        ),
        (
            r#""gen":"f16s","n":16,"lo":"-20","hi":"17","signed":true"#,
            "a7b688c2633033a969d700feaf0f0000cc2a36c7e1004eae18c9f708ec1f007c",
        ),
        (r#""gen":"e4m3","n":4,"lo":"4","hi":"15""#, "b6ab4cfa"),
        (r#""gen":"e5m2","n":4,"lo":"10","hi":"31""#, "eab73cae"),
        (r#""gen":"u8","n":4,"lo":"0","hi":"256""#, "125de51b"),
        (
            r#""gen":"i32","n":2,"lo":"-1000","hi":"1000""#,
            "0a00000015000000",
        ),
        (
            r#""gen":"u32","n":2,"lo":"0","hi":"4294967296""#,
            "1276a7f25d2ed79d",
        ),
        (r#""gen":"u64","n":1"#, "adb7a9f11276a7f2"),
    ];
    for (fields, want) in cases {
        let spec: Value = serde_json::from_str(&format!(
            r#"{{"type":"buf",{fields},"seed":"54f201b4b68180b6"}}"#
        ))
        .unwrap();
        assert_eq!(hexs(&generate(&spec)), want, "{fields}");
    }
}
