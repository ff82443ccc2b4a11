//! The reader oracle: any text gives a module or an error, never a panic; whatever parses
//! round-trips (print -> parse equals it, printing is a fixpoint), and reading with statement
//! spans gives the same module. Every input is read twice, after the inputs before it (with
//! the instruction words and caches the reader keeps per thread) and as a thread's first
//! module: the two give the same module or the same error. A third read with the reader's fast
//! paths off (`parse_general_only`) must give them too.
//!
//! Input that looks like PTX (a corpus seed, or what libFuzzer made of one) is read as is.
//! Otherwise the first byte chooses: even, the remaining bytes as (lossy UTF-8) text; odd, one
//! of the built-in real modules ([`crate::seeds::TEXT`]) mutated by edits the remaining bytes
//! describe — deletions, insertions, bit flips, copied ranges and spliced PTX tokens.
//! Hangs and unbounded memory are caught by libFuzzer's `-timeout` and `-rss_limit_mb`.

use crate::regress;
use arbitrary::Unstructured;
use ptx_ir_text::{parse, parse_with_spans, print};

/// Runs the oracle on one input.
pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let data = u.peek_bytes(u.len()).unwrap_or_default();
    let text = if crate::looks_like_text(data) {
        let t = String::from_utf8_lossy(data).into_owned();
        u.bytes(u.len())?;
        t
    } else {
        let mode: u8 = u.arbitrary()?;
        if mode & 1 == 0 {
            let rest = u.bytes(u.len())?;
            String::from_utf8_lossy(rest).into_owned()
        } else {
            let (_, seed) = *u.choose(crate::seeds::TEXT)?;
            let mut b = seed.as_bytes().to_vec();
            crate::seeds::mutate(u, &mut b, 8);
            String::from_utf8_lossy(&b).into_owned()
        }
    };
    check_text(&text);
    Ok(())
}

/// Reads `text`; if it parses, checks that it round-trips. Panics (with a regression file) on
/// a failure; a panic inside the reader or printer propagates as is.
pub fn check_text(text: &str) {
    let kept = parse(text);
    ptx_ir_text::release_thread_scratch();
    if !same_read(&kept, &parse(text)) {
        fail(
            text,
            "a read after other modules (words and caches kept) differs from a first read",
        );
    }
    if !same_read(&kept, &ptx_ir_text::parse_general_only(text)) {
        fail(
            text,
            "the reader's fast paths and its general paths read this differently",
        );
    }
    let Ok(m) = kept else {
        return;
    };
    match parse_with_spans(text, "<input>") {
        Ok((m2, _)) if m2 == m => {}
        Ok(_) => fail(text, "reading with spans gives a different module"),
        Err(e) => fail(text, &format!("reading with spans fails: {e}")),
    }
    let t1 = print(&m);
    match parse(&t1) {
        Ok(m2) if m2 == m => {
            if print(&m2) != t1 {
                fail(text, "printing is not a fixpoint");
            }
        }
        Ok(m2) => fail(
            text,
            &format!(
                "IR differs after print -> parse: {}",
                ptx_ir::roundtrip::first_difference(&m, &m2)
            ),
        ),
        Err(e) => fail(text, &format!("printed text does not parse: {e}")),
    }
}

/// Whether two reads gave the same module, or the same error.
fn same_read(
    a: &Result<ptx_ir_core::Module, ptx_ir_text::ParseError>,
    b: &Result<ptx_ir_core::Module, ptx_ir_text::ParseError>,
) -> bool {
    match (a, b) {
        (Ok(a), Ok(b)) => a == b,
        (Err(a), Err(b)) => a.to_string() == b.to_string(),
        _ => false,
    }
}

fn fail(text: &str, err: &str) -> ! {
    let file = regress::Case::parse(err, text.as_bytes()).render();
    panic!("parse oracle: {err}\n--- regression file (save as corpus/regress/NAME.ptx):\n{file}");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file of the shared corpus passes the oracle: in particular the fast paths read
    /// each as the general paths do.
    #[test]
    fn shared_corpus() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
        let mut files = Vec::new();
        let mut dirs = vec![root];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "ptx") {
                    files.push(p);
                }
            }
        }
        assert!(files.len() >= 41, "{} corpus files", files.len());
        for f in files {
            check_text(&std::fs::read_to_string(&f).unwrap());
        }
    }

    #[test]
    fn smoke() {
        let done = crate::smoke(run, 0x5eed_0002, 600, 2048);
        assert!(done >= 300, "only {done} of 600 inputs completed");
    }
}
