//! Reading a large module on several threads.
//!
//! The text is cut at lines that look like the start of a module item (`.visible .entry`,
//! `.global`, ... at the start of a line), near equal shares of the work, and the parts
//! are read side by side, each by its own [`Reader`] with its own interner. A cut is trusted
//! only if the part before it, read in full, ends exactly there: a cut inside a comment or a
//! string, or anywhere else the serial reader would not stop, is found that way, and reading
//! goes on serially from the last trusted point. The parts' names are then interned into the
//! first part's interner in source order, which numbers every name as a serial read does, so
//! the module (and any error) is the one [`super::parse_module`] gives.

use super::{to_error, Reader};
use crate::error::{PErr, ParseError};
use crate::lex::is_ident_char;
use nom::Err;
use ptx_ir_core::{visit, Interner, Item, Module, Name};
use rayon::prelude::*;

/// Text below which a part is not worth a thread of its own. Handing work to a sleeping
/// thread, reading the part's distinct instruction words again and merging its names cost
/// more than reading NCCL's 100-250 KB modules on two threads gains (measured: slower below
/// about 256 KiB a part on the 2-core bench machine).
const MIN_PART: usize = 256 << 10;

/// Directives that start a module item, as they begin a line of compiler output.
const ITEM_STARTS: [&[u8]; 8] = [
    b".visible",
    b".entry",
    b".func",
    b".weak",
    b".extern",
    b".global",
    b".const",
    b".common",
];

/// What one part read: its items, its names, and how much text was left where it stopped.
struct Part {
    items: Vec<Item>,
    names: Interner,
    rest: usize,
}

/// Reads `src` on up to `threads` threads (see the module docs).
pub(crate) fn parse_module_threads(
    src: &str,
    file: &str,
    threads: usize,
) -> Result<Module, ParseError> {
    read_in_parts(src, file, threads, MIN_PART)
}

/// As [`parse_module_threads`], with parts of at least `min_part` bytes.
pub(crate) fn read_in_parts(
    src: &str,
    file: &str,
    threads: usize,
    min_part: usize,
) -> Result<Module, ParseError> {
    let text = src.as_bytes();
    let mut r = Reader::with_spare(text.len());
    let read = read_parts(&mut r, text, threads, min_part);
    r.give_back();
    read.map_err(|e| to_error(file, src, e))
}

fn read_parts(
    r: &mut Reader,
    text: &[u8],
    threads: usize,
    min_part: usize,
) -> Result<Module, Err<PErr>> {
    let (body, header) = r.header(text)?;
    let from = text.len() - body.len();
    // One part per thread: more parts would even out parts of unequal cost, but each costs
    // its own word resolution and name merge, which measured more than the balance gained.
    let parts = threads.min(body.len() / min_part.max(1));
    let cuts = if parts > 1 {
        cut_points(text, from, parts)
    } else {
        Vec::new()
    };
    if cuts.is_empty() {
        let (_, items) = r.items(body, 0)?;
        return Ok(r.finish(header, items));
    }
    // Part k runs from cut k-1 (the header's end for the first) to cut k (the end for the
    // last).
    let starts: Vec<usize> = std::iter::once(from).chain(cuts.iter().copied()).collect();
    let stops: Vec<usize> = cuts.iter().map(|&c| text.len() - c).chain([0]).collect();
    let read: Vec<_> = starts
        .par_iter()
        .zip(stops.par_iter())
        .with_max_len(1)
        .map(|(&start, &stop)| read_part(text, start, stop))
        .collect();
    let mut items = Vec::new();
    let mut left = body.len();
    for (part, &start) in read.into_iter().zip(&starts) {
        if left != text.len() - start {
            break;
        }
        let mut part = part?;
        if r.names.is_empty() {
            // The first part's names are numbered as a serial read numbers them.
            r.names = part.names;
        } else {
            merge_names(&mut r.names, &mut part);
        }
        items.append(&mut part.items);
        left = part.rest;
    }
    if left > 0 {
        // A cut the serial reader would not have stopped at: on from the last good one.
        let (_, more) = r.items(&text[text.len() - left..], 0)?;
        items.extend(more);
    }
    Ok(r.finish(header, items))
}

/// Reads the items from `start` up to the first that starts with at most `stop` bytes left.
fn read_part(text: &[u8], start: usize, stop: usize) -> Result<Part, Err<PErr>> {
    let mut r = Reader::with_spare(text.len() - start - stop);
    let read = r.items(&text[start..], stop);
    let names = std::mem::take(&mut r.names);
    r.give_back();
    let (rest, items) = read?;
    Ok(Part {
        items,
        names,
        rest: rest.len(),
    })
}

/// Interns `part`'s names into `names`, in the part's order, and renames its items to match.
fn merge_names(names: &mut Interner, part: &mut Part) {
    let map: Vec<Name> = (0..part.names.len())
        .map(|k| names.intern(part.names.get(Name::from_index(k))))
        .collect();
    visit::for_each_item_name_mut(&mut part.items, &mut |n| {
        // Every name of the part is in its interner.
        if let Some(&m) = map.get(n.index()) {
            *n = m;
        }
    });
}

/// Up to `parts - 1` offsets, in increasing order, of lines that look like the start of an
/// item, each the nearest to its fraction of the work of reading the text after `from`
/// (within half a part).
fn cut_points(text: &[u8], from: usize, parts: usize) -> Vec<usize> {
    let targets = work_fractions(text, from, parts);
    let mut cuts = Vec::with_capacity(targets.len());
    let mut low = from;
    let reach = (text.len() - from) / parts.max(1) / 2;
    for target in targets {
        let after = item_start_after(text, target, (target + reach).min(text.len()));
        let before = item_start_before(text, target.saturating_sub(reach).max(low + 1), target);
        let cut = match (before, after) {
            (Some(b), Some(a)) => Some(if target - b <= a - target { b } else { a }),
            (b, a) => b.or(a),
        };
        if let Some(c) = cut.filter(|&c| c > low) {
            cuts.push(c);
            low = c;
        }
    }
    cuts
}

/// Bytes of text per block in the work estimate, at most.
const BLOCK: usize = 16 << 10;

/// What a line costs to read, in bytes of text: a line of code reads about three times slower
/// per byte than the long lines of a byte table (cuRAND's), whose cost is their length.
const LINE_WORK: usize = 96;

/// The offsets after `from` that split the work of reading the text into `parts` equal
/// shares, estimated per block from its length and its lines.
fn work_fractions(text: &[u8], from: usize, parts: usize) -> Vec<usize> {
    // Blocks of a sixteenth of a part or less, so that a share ends close to its target.
    let block = ((text.len() - from) / (parts.max(1) * 16)).clamp(64, BLOCK);
    let work: Vec<usize> = text[from..]
        .chunks(block)
        .map(|b| b.len() + LINE_WORK * b.iter().filter(|&&c| c == b'\n').count())
        .collect();
    let total: usize = work.iter().sum();
    let mut out = Vec::with_capacity(parts.saturating_sub(1));
    let mut done = 0;
    for (k, w) in work.iter().enumerate() {
        done += w;
        while out.len() + 1 < parts && done * parts >= total * (out.len() + 1) {
            out.push(from + (k + 1) * block);
        }
    }
    out.retain(|&t| t < text.len());
    out
}

/// The first item start in `from..to`.
fn item_start_after(text: &[u8], from: usize, to: usize) -> Option<usize> {
    let mut p = from;
    while p < to {
        let nl = text[p..to].iter().position(|&b| b == b'\n')?;
        p += nl + 1;
        if item_starts_at(text, p) {
            return Some(p);
        }
    }
    None
}

/// The last item start in `from..to`.
fn item_start_before(text: &[u8], from: usize, to: usize) -> Option<usize> {
    let mut p = to;
    while p > from {
        let nl = text[from..p].iter().rposition(|&b| b == b'\n')?;
        let at = from + nl + 1;
        if item_starts_at(text, at) && at < to {
            return Some(at);
        }
        p = from + nl;
    }
    None
}

/// Whether a line that looks like the start of a module item begins at `p`.
fn item_starts_at(text: &[u8], p: usize) -> bool {
    p > 0
        && p < text.len()
        && text[p - 1] == b'\n'
        && text[p] == b'.'
        && ITEM_STARTS.iter().any(|w| {
            text[p..].starts_with(w) && !text.get(p + w.len()).is_some_and(|&b| is_ident_char(b))
        })
}

#[cfg(test)]
mod tests {
    use super::{cut_points, read_in_parts};
    use crate::ParseError;

    fn module(functions: usize, between: &str) -> String {
        let mut s = String::from(".version 8.0\n.target sm_90\n.address_size 64\n\n");
        s.push_str(".global .align 4 .b8 table[4] = {1, 2, 3, 4};\n");
        for k in 0..functions {
            s.push_str(&format!(
                ".visible .entry k{k}(\n\t.param .u64 p\n)\n{{\n\t.reg .b32 %r<{n}>;\n\
                 \t.reg .pred %p<2>;\n\tmov.u32 %r1, {k};\n\tsetp.eq.s32 %p1, %r1, 0;\n\
                 \t@%p1 bra $L_{k};\n\tadd.s32 %r{k}, %r1, %r1;\n$L_{k}:\n\tret;\n}}\n{between}",
                n = k + 2
            ));
        }
        s
    }

    fn serial(src: &str) -> Result<ptx_ir_core::Module, ParseError> {
        crate::read::parse_module(src, "t.ptx")
    }

    #[test]
    fn parts_read_as_a_serial_read_does() {
        let src = module(12, "");
        let want = serial(&src).unwrap();
        assert!(cut_points(src.as_bytes(), 50, 6).len() >= 4);
        for threads in 2..8 {
            let got = read_in_parts(&src, "t.ptx", threads, 1).unwrap();
            assert_eq!(got, want, "{threads} threads");
        }
    }

    #[test]
    fn a_cut_the_serial_reader_would_not_stop_at_is_not_trusted() {
        // Item-like lines inside block comments: any cut there is found out, and reading goes
        // on serially from the last good cut.
        let src = module(9, "/*\n.visible .entry fake(\n.global .u32 x;\n*/\n");
        let want = serial(&src).unwrap();
        let cuts = cut_points(src.as_bytes(), 50, 40);
        assert!(cuts.iter().any(|&c| src[..c].ends_with("/*\n")), "{cuts:?}");
        for threads in 2..12 {
            let got = read_in_parts(&src, "t.ptx", threads, 1).unwrap();
            assert_eq!(got, want, "{threads} threads");
        }
    }

    #[test]
    fn errors_are_the_serial_reader_s() {
        let src = module(10, "");
        let late = src.replacen("add.s32 %r7", "add.s32 %r7 %r7", 1);
        let early_and_late = late.replacen("mov.u32 %r1, 2;", "mov.u32 %r1 2;", 1);
        let unterminated = src.replacen("$L_6:", "/* $L_6:", 1);
        for bad in [late, early_and_late, unterminated] {
            let want = serial(&bad).unwrap_err().to_string();
            for threads in 2..8 {
                let got = read_in_parts(&bad, "t.ptx", threads, 1).unwrap_err();
                assert_eq!(got.to_string(), want, "{threads} threads");
            }
        }
    }

    #[test]
    fn corpus_files_cut_small_read_the_same() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
        for f in [
            "nvcc/arith_sm_90a_debug.ptx",
            "nvcc/sync_rdc_sm_100a.ptx",
            "nvcc/sync_sm_90a.ptx",
            "lib/nccl/1.ptx",
        ] {
            let src = std::fs::read_to_string(dir.join(f)).expect("the shared corpus");
            assert!(cut_points(src.as_bytes(), 0, 5).len() >= 3, "{f}");
            let want = serial(&src).unwrap();
            for threads in [2, 5, 16] {
                let got = read_in_parts(&src, f, threads, 4 << 10).unwrap();
                assert!(got == want, "{f} on {threads} threads");
            }
        }
    }
}
