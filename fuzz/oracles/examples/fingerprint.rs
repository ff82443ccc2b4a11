//! Prints a fingerprint of what the generators make from fixed seeds, so that a refactoring of
//! `ptx-ir-smith` (or of the reference semantics) can be checked to change no kernel: GPU
//! batches recorded from these generators (`corpus/fuzzhw/`) must stay reproducible.
//!
//! `cargo run --release -p ptx-ir-oracles --example fingerprint [-- SIMT_COUNT PER_FAMILY]`
//!
//! It draws `SIMT_COUNT` (default 10,000) SIMT programs as the oracles and `hw_batch` do
//! (`Swarm::arbitrary` then `Gen::program`; even draws over every family, odd ones over one
//! family in turn), lowers each and prints it as PTX text, and `PER_FAMILY` (default 1,000)
//! protocols of each Hopper/Blackwell family (and of the tensor family's misalignment arm). It
//! prints, per part, the counts and three FNV-1a hashes: `text` over the kernels' text and
//! launches (input buffers, shapes, tensor maps), `canonical` over the same with each kernel's
//! text in canonical form (read and printed again, `print(parse(text))`: spacing, numerals and
//! the spelling of `[r+0]` do not count), and `reference` over the reference semantics'
//! answers. Equal lines before and after a change mean the same kernels and the same answers.
//!
//! The last lines combine the parts: `fingerprint` the `text` and `reference` hashes of every
//! part, `fingerprint canonical` their `canonical` and `reference` hashes, and `hopper
//! canonical` those of the Hopper/Blackwell parts alone (a change in how a generator writes its
//! text, such as building it through the IR builder, leaves the canonical lines as they were).
//! With `FINGERPRINT_DUMP=DIR` it also writes each part's kernels in canonical form to
//! `DIR/<part>.ptx`, one after another, to find what differs when a hash does.

use arbitrary::Unstructured;
use ptx_ir_oracles::Bytes;
use ptx_ir_refsem::{eval, hopper::Reference};
use ptx_ir_smith::hopper::{self as hs, Launch};
use ptx_ir_smith::{gen, lower, model as prog};

/// FNV-1a, 64 bits.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
        // A separator, so that the boundaries between items count.
        self.0 ^= 0xff;
        self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
    }

    fn num(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
}

/// Counts and hashes of one part.
struct Part {
    drawn: usize,
    failed: usize,
    text_bytes: usize,
    text: Fnv,
    canonical: Fnv,
    reference: Fnv,
    /// The kernels in canonical form, when `FINGERPRINT_DUMP` asks for them.
    dump: Option<String>,
}

impl Part {
    fn new() -> Part {
        Part {
            drawn: 0,
            failed: 0,
            text_bytes: 0,
            text: Fnv::new(),
            canonical: Fnv::new(),
            reference: Fnv::new(),
            dump: std::env::var_os("FINGERPRINT_DUMP").map(|_| String::new()),
        }
    }

    fn launch(&mut self, l: &Launch) {
        self.drawn += 1;
        self.text_bytes += l.text.len();
        self.text.bytes(l.text.as_bytes());
        self.text.num(l.grid as u64);
        self.text.num(l.block as u64);
        self.text.bytes(&l.input);
        self.text.num(l.out_len as u64);
        for t in &l.tmaps {
            self.text.bytes(t.as_bytes());
        }
        let canonical = match ptx_ir_text::parse(&l.text) {
            Ok(m) => ptx_ir_text::print(&m),
            Err(e) => format!("// does not read back: {e}\n{}", l.text),
        };
        let c = &mut self.canonical;
        c.bytes(canonical.as_bytes());
        c.num(l.grid as u64);
        c.num(l.block as u64);
        c.bytes(&l.input);
        c.num(l.out_len as u64);
        for t in &l.tmaps {
            c.bytes(t.as_bytes());
        }
        if let Some(d) = &mut self.dump {
            d.push_str(&format!(
                "// kernel {}: grid {} block {} out {} tmaps {:?}\n",
                self.drawn, l.grid, l.block, l.out_len, l.tmaps
            ));
            d.push_str(&canonical);
        }
    }

    fn answer(&mut self, expected: &[u8], known: &[bool]) {
        self.reference.bytes(expected);
        self.reference
            .bytes(&known.iter().map(|&k| k as u8).collect::<Vec<_>>());
    }

    fn print(&self, name: &str) {
        println!(
            "{name:<10} drawn {:>6}  refused {:>6}  text bytes {:>10}  text {:016x}  canonical {:016x}  reference {:016x}",
            self.drawn, self.failed, self.text_bytes, self.text.0, self.canonical.0, self.reference.0
        );
        if let (Some(d), Some(dir)) = (&self.dump, std::env::var_os("FINGERPRINT_DUMP")) {
            let dir = std::path::PathBuf::from(dir);
            std::fs::create_dir_all(&dir).expect("FINGERPRINT_DUMP directory");
            std::fs::write(dir.join(format!("{name}.ptx")), d).expect("write the dump");
        }
    }
}

fn simt(count: usize) -> Part {
    let mut part = Part::new();
    let mut insts = 0;
    let mut src = Bytes::new(0xf1_9e59);
    let fams = prog::SimtFamily::ALL;
    let mut i = 0;
    while part.drawn < count {
        i += 1;
        let data = src.fill(4096);
        let mut u = Unstructured::new(&data);
        let families: &[prog::SimtFamily] = if i % 2 == 0 {
            &fams
        } else {
            std::slice::from_ref(&fams[(i / 2) % fams.len()])
        };
        let Ok(swarm) = gen::Swarm::arbitrary(&mut u, families) else {
            part.failed += 1;
            continue;
        };
        let Ok(p) = gen::Gen::new(&swarm).program(&mut u) else {
            part.failed += 1;
            continue;
        };
        let m = lower::module(&p);
        insts += m.instruction_count();
        let text = ptx_ir_text::print(&m);
        part.launch(&Launch::new(
            text,
            p.grid,
            p.block,
            lower::input(&p),
            p.out_len() as usize,
        ));
        match eval::run(&p) {
            Some(e) => part.answer(&e.bytes, &e.known),
            None => part.reference.num(u64::MAX),
        }
    }
    part.print("simt");
    println!("{:<10} instructions {insts}", "simt");
    part
}

fn protocol<P: Reference>(
    name: &str,
    seed: u64,
    per: usize,
    arbitrary: fn(&mut Unstructured) -> arbitrary::Result<P>,
) -> Part {
    draw(name, seed, per, arbitrary, |part, p| {
        let (l, trace) = p.build();
        let a = p.answer(&l, &trace);
        part.launch(&l);
        part.answer(&a.expected, &a.known);
    })
}

/// A family without a [`Reference`]: only its kernels count.
fn kernels<P>(
    name: &str,
    seed: u64,
    per: usize,
    arbitrary: fn(&mut Unstructured) -> arbitrary::Result<P>,
    build: fn(&P) -> Launch,
) -> Part {
    draw(name, seed, per, arbitrary, |part, p| part.launch(&build(p)))
}

/// `per` protocols drawn from 8 KiB inputs of the generator seeded with `seed`, each handed to
/// `each`; inputs the family refuses count as failed draws.
fn draw<P>(
    name: &str,
    seed: u64,
    per: usize,
    arbitrary: fn(&mut Unstructured) -> arbitrary::Result<P>,
    mut each: impl FnMut(&mut Part, &P),
) -> Part {
    let mut part = Part::new();
    let mut src = Bytes::new(seed);
    while part.drawn < per {
        let data = src.fill(8192);
        let Ok(p) = arbitrary(&mut Unstructured::new(&data)) else {
            part.failed += 1;
            continue;
        };
        each(&mut part, &p);
    }
    part.print(name);
    part
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let count: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let per: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1_000);
    let parts = [
        simt(count),
        protocol("async", 1, per, hs::copy::Spec::arbitrary),
        protocol("bulk", 2, per, hs::bulk::Spec::arbitrary),
        protocol("mbarrier", 3, per, hs::mbar::Spec::arbitrary),
        protocol("cluster", 4, per, hs::cluster::Spec::arbitrary),
        protocol("matrix", 5, per, hs::matrix::Spec::arbitrary),
        protocol("fmma", 6, per, hs::fmma::Spec::arbitrary),
        protocol("wgmma", 7, per, hs::wgmma::Spec::arbitrary),
        protocol("tensor", 8, per, hs::tensor::Spec::arbitrary),
        kernels(
            "misalign",
            12,
            per,
            hs::tensor::Misaligned::arbitrary,
            |m| m.build().0,
        ),
        protocol("multicast", 9, per, hs::mcast::Spec::arbitrary),
        kernels("tmem", 11, per, hs::tmem::Spec::arbitrary, |s| s.build().0),
        protocol("clc", 10, per, hs::clc::Spec::arbitrary),
    ];
    let combine = |parts: &[Part], canonical: bool| {
        let mut all = Fnv::new();
        for p in parts {
            all.num(if canonical { p.canonical.0 } else { p.text.0 });
            all.num(p.reference.0);
        }
        all.0
    };
    println!("fingerprint {:016x}", combine(&parts, false));
    println!("fingerprint canonical {:016x}", combine(&parts, true));
    println!("hopper canonical {:016x}", combine(&parts[1..], true));
}
