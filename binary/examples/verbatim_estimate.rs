//! Size of the bytecode design that binary/FORMAT.md weighs for decoding at 5 times the parse
//! speed ("Why decode is not 5 times faster than parse"): function bodies stored as the IR's
//! own arrays, which a decoder would check and copy rather than read. Estimated per corpus
//! folder, as % of the PTX text: each body as a 16-byte entry per statement (an instruction's
//! opcode, counts and guard; another statement's kind and name), a 2-byte modifier, and an
//! 8-byte cell per operand (a tag and 56 bits of payload: a name and selector, a literal, an
//! address's base and offset; a wider value, and a list's header, one more); the names as the
//! interner's bytes and a 4-byte end each; the rest of the module as today's uncompressed
//! bytecode. Then that, compressed whole, with LZ4 (`lz4_flex`'s block format) and zstd level 3.
//!
//! `cargo run --release -p ptx-ir-binary --example verbatim_estimate [-- DIR]` (`DIR` also gets
//! each module's uncompressed image, `NAME.img`, to try other compressors on).

use ptx_ir_core::{Item, Module, Operand, StmtRef};

fn cell(out: &mut Vec<u8>, tag: u8, payload: u64) {
    out.extend_from_slice(&(u64::from(tag) | payload << 8).to_le_bytes());
}

/// A value in one cell if it fits 56 bits, else a tag cell and the value.
fn wide(out: &mut Vec<u8>, tag: u8, v: u64) {
    if v < 1 << 56 {
        cell(out, tag, v);
    } else {
        cell(out, tag | 0x80, 0);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

fn operand(out: &mut Vec<u8>, o: &Operand) {
    let list = |out: &mut Vec<u8>, tag: u8, items: &[Operand]| {
        cell(out, tag, items.len() as u64);
        items.iter().for_each(|x| operand(out, x));
    };
    match o {
        Operand::Reg { name, sel } => {
            cell(out, 1, name.index() as u64 | u64::from(sel.bits()) << 32)
        }
        Operand::Special { reg, sel } => {
            // The register's ordinal is not public: its spelling's hash stands for it.
            let id = format!("{reg:?}")
                .bytes()
                .fold(0u64, |h, b| h * 31 + u64::from(b))
                & 0xffff;
            cell(out, 2, id | u64::from(sel.bits()) << 16)
        }
        Operand::Int(v) => wide(out, 3, *v as u64),
        Operand::Uint(v) => wide(out, 4, *v),
        Operand::F32(v) => cell(out, 5, u64::from(*v)),
        Operand::F64(v) => wide(out, 6, *v),
        Operand::Dec(v) => wide(out, 7, *v),
        Operand::Sym { name, offset } => {
            cell(out, 8, name.index() as u64);
            if *offset != 0 {
                wide(out, 9, *offset as u64);
            }
        }
        Operand::Addr {
            base,
            offset,
            unified,
        } => {
            let b = base.map_or(0, |n| n.index() as u64 + 1) | u64::from(*unified) << 32;
            cell(out, 10, b);
            if *offset != 0 {
                wide(out, 11, *offset as u64);
            }
        }
        Operand::Vector(v) => list(out, 12, v),
        Operand::Tuple(v) => list(out, 13, v),
        Operand::Args(v) => list(out, 14, v),
        Operand::Pair(p) => list(out, 15, &p[..]),
        Operand::Not(n) => cell(out, 16, n.index() as u64),
        Operand::Neg(x) => list(out, 17, std::slice::from_ref(&**x)),
        Operand::Sink => cell(out, 18, 0),
    }
}

/// The image of a module: bodies as arrays, names, and the rest as today's bytecode.
fn image(m: &Module) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..m.names.len() {
        out.extend_from_slice(m.names.get(ptx_ir_core::Name::from_index(i)).as_bytes());
    }
    let mut end = 0u32;
    for i in 0..m.names.len() {
        end += m.names.get(ptx_ir_core::Name::from_index(i)).len() as u32;
        out.extend_from_slice(&end.to_le_bytes());
    }
    let (mut entries, mut mods, mut cells) = (Vec::new(), Vec::new(), Vec::new());
    for item in &m.items {
        let Item::Function(f) = item else { continue };
        let Some(body) = &f.body else { continue };
        for s in body.iter() {
            let mut e = [0u8; 16];
            match s {
                StmtRef::Inst(i) => {
                    let inst = i.to_instruction();
                    e[0] = 1;
                    e[1..3].copy_from_slice(&(inst.opcode as u16).to_le_bytes());
                    e[3] = inst.mods.len() as u8;
                    e[4..6].copy_from_slice(&(inst.operands.len() as u16).to_le_bytes());
                    if let Some(g) = inst.guard {
                        e[6] = 1 + u8::from(g.negated);
                        e[8..12].copy_from_slice(&(g.pred.index() as u32).to_le_bytes());
                    }
                    for md in &inst.mods {
                        mods.extend_from_slice(&md.dense().to_le_bytes());
                    }
                    for o in &inst.operands {
                        operand(&mut cells, o);
                    }
                }
                StmtRef::Label(n) => {
                    e[0] = 2;
                    e[8..12].copy_from_slice(&(n.index() as u32).to_le_bytes());
                }
                other => {
                    // Declarations, `.loc`s and scopes: kind and the statement's own fields,
                    // as its debug text hashed into the entry's spare bytes.
                    e[0] = 3;
                    let h = format!("{other:?}")
                        .bytes()
                        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
                    e[8..16].copy_from_slice(&h.to_le_bytes());
                }
            }
            entries.extend_from_slice(&e);
        }
    }
    out.extend_from_slice(&entries);
    out.extend_from_slice(&mods);
    out.extend_from_slice(&cells);
    let mut rest = m.clone();
    for item in &mut rest.items {
        if let Item::Function(f) = item {
            f.body = None;
        }
    }
    out.extend(ptx_ir_binary::encode_with(&rest, ptx_ir_binary::Codec::Stored).unwrap());
    out
}

fn main() {
    let dump = std::env::args().nth(1).map(std::path::PathBuf::from);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    println!("folder         image    lz4   zstd-3   (% of the PTX text)");
    for folder in ["nvcc", "triton", "lib/curand", "lib/nccl"] {
        let (mut text, mut img, mut lz, mut zs) = (0usize, 0usize, 0usize, 0usize);
        let mut paths: Vec<_> = std::fs::read_dir(root.join(folder))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
            .collect();
        paths.sort();
        for p in paths {
            let src = std::fs::read_to_string(&p).unwrap();
            let m = ptx_ir_text::parse(&src).unwrap();
            let b = image(&m);
            if let Some(d) = &dump {
                std::fs::create_dir_all(d).unwrap();
                let name = format!(
                    "{}_{}.img",
                    folder.replace('/', "_"),
                    p.file_stem().unwrap().to_string_lossy()
                );
                std::fs::write(d.join(name), &b).unwrap();
            }
            text += src.len();
            img += b.len();
            lz += lz4_flex::block::compress(&b).len();
            zs += zstd::bulk::compress(&b, 3).unwrap().len();
        }
        let pct = |n: usize| 100.0 * n as f64 / text as f64;
        println!(
            "{folder:12} {:6.1}% {:5.1}% {:6.1}%",
            pct(img),
            pct(lz),
            pct(zs)
        );
    }
}
