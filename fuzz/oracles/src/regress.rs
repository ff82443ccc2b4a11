//! Regression files: every finding of the oracles, as a PTX file with its expectation in a
//! header comment, kept in `corpus/regress/` and run by `cargo test` (`tests/regress.rs`, through
//! [`crate::replay`]). This module is the file format only: the oracles write it, the replay
//! reads it back and runs each case's expectation.
//!
//! ```text
//! // regress: <oracle>: <what went wrong when the file was written>
//! // expect: roundtrip | parse | error | decode | run
//! // xfail: <why>                      (optional: a known open bug; see below)
//! // input: <hex>                      (parse/decode: the exact input bytes, split over lines)
//! // RUN: ptx run --entry k --grid G --block B --arg hex:<in> --arg zeros:<n>   (run)
//! // out: <hex>                        (run: the expected last buffer, split over lines)
//! <PTX text>
//! ```
//!
//! Expectations:
//!
//! - `roundtrip`: the text parses; print -> parse gives the same IR; printing is a fixpoint;
//!   encode -> decode gives the same IR.
//! - `parse`: the input (the `input:` bytes if present, else the text after the header) is
//!   read without a panic; if it parses, it round-trips.
//! - `error`: the text is rejected by the reader (an error, not a panic).
//! - `decode`: the `input:` bytes decode without a panic; if they decode, the module prints and
//!   re-encodes to the same module.
//! - `run`: the text runs (from its IR, from its printed-and-reparsed text and from its decoded
//!   bytecode) with the `RUN:` launch, without an error, and the last buffer ends as `out:`.
//!
//! `xfail:` marks a finding that is not fixed yet: the file must still fail (so the test suite
//! stays green and the case stays recorded); once it passes the test says so, and the line
//! should be removed.

use std::fmt::Write;

/// What a regression file expects.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Parses and round-trips.
    Roundtrip,
    /// Reading does not panic; what parses round-trips.
    Parse,
    /// The reader rejects the text.
    Error,
    /// Decoding does not panic; what decodes prints and re-encodes.
    Decode,
    /// Runs to the expected output.
    Run,
}

impl Expect {
    fn as_str(self) -> &'static str {
        match self {
            Expect::Roundtrip => "roundtrip",
            Expect::Parse => "parse",
            Expect::Error => "error",
            Expect::Decode => "decode",
            Expect::Run => "run",
        }
    }
}

/// One regression case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The oracle that found it and what it saw.
    pub summary: String,
    /// The expectation.
    pub expect: Expect,
    /// Why the case is expected to fail still, if it is.
    pub xfail: Option<String>,
    /// Exact input bytes (parse/decode), when the text body cannot hold them.
    pub input: Option<Vec<u8>>,
    /// Arguments of the run (after `ptx run`).
    pub run: Option<String>,
    /// Expected contents of the last buffer after the run.
    pub out: Option<Vec<u8>>,
    /// The PTX text.
    pub body: String,
}

fn one_line(s: &str) -> String {
    let l = s.lines().next().unwrap_or("").trim();
    if l.len() > 200 {
        let mut cut = 200;
        while !l.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}...", &l[..cut])
    } else {
        l.to_string()
    }
}

/// Hex digits of `b`.
pub fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

/// Bytes of hex digits (whitespace ignored); `None` if malformed.
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if digits.len() % 2 != 0 {
        return None;
    }
    digits
        .chunks(2)
        .map(|c| u8::from_str_radix(std::str::from_utf8(c).ok()?, 16).ok())
        .collect()
}

/// Whether `b` can be the body of a regression file as is.
fn printable(b: &[u8]) -> bool {
    std::str::from_utf8(b).is_ok_and(|s| {
        s.chars()
            .all(|c| c == '\n' || c == '\t' || c == '\r' || !c.is_control())
    })
}

impl Case {
    /// A round-trip failure of `text`.
    pub fn roundtrip(err: &str, text: &str) -> Case {
        Case {
            summary: format!("roundtrip: {}", one_line(err)),
            expect: Expect::Roundtrip,
            xfail: None,
            input: None,
            run: None,
            out: None,
            body: text.to_string(),
        }
    }

    /// A reader failure on `input`.
    pub fn parse(err: &str, input: &[u8]) -> Case {
        let (input, body) = if printable(input) {
            (None, String::from_utf8_lossy(input).into_owned())
        } else {
            (Some(input.to_vec()), String::new())
        };
        Case {
            summary: format!("parse: {}", one_line(err)),
            expect: Expect::Parse,
            xfail: None,
            input,
            run: None,
            out: None,
            body,
        }
    }

    /// A decoder failure on `input`.
    pub fn decode(err: &str, input: &[u8]) -> Case {
        Case {
            summary: format!("decode: {}", one_line(err)),
            expect: Expect::Decode,
            xfail: None,
            input: Some(input.to_vec()),
            run: None,
            out: None,
            body: String::new(),
        }
    }

    /// An interpreter finding: `text` run with `run` must leave `out` in the last buffer.
    pub fn run(err: &str, text: &str, run: &str, out: &[u8]) -> Case {
        Case {
            summary: format!("interp_agree: {}", one_line(err)),
            expect: Expect::Run,
            xfail: None,
            input: None,
            run: Some(run.to_string()),
            out: Some(out.to_vec()),
            body: text.to_string(),
        }
    }

    /// The file text.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "// regress: {}", self.summary);
        let _ = writeln!(s, "// expect: {}", self.expect.as_str());
        if let Some(x) = &self.xfail {
            let _ = writeln!(s, "// xfail: {x}");
        }
        let wrap = |s: &mut String, key: &str, b: &[u8]| {
            let h = hex(b);
            for chunk in h.as_bytes().chunks(96) {
                let _ = writeln!(s, "// {key}: {}", String::from_utf8_lossy(chunk));
            }
        };
        if let Some(b) = &self.input {
            wrap(&mut s, "input", b);
        }
        if let Some(r) = &self.run {
            let _ = writeln!(s, "// RUN: ptx run {r}");
        }
        if let Some(b) = &self.out {
            wrap(&mut s, "out", b);
        }
        s.push_str(&self.body);
        s
    }

    /// Reads a regression file.
    pub fn parse_file(text: &str) -> Result<Case, String> {
        let mut summary = None;
        let mut expect = None;
        let mut xfail = None;
        let mut input = String::new();
        let mut out = String::new();
        let mut run = None;
        let mut rest = text;
        while let Some(line) = rest.strip_prefix("// ") {
            let (l, after) = match line.find('\n') {
                Some(k) => (&line[..k], &line[k + 1..]),
                None => (line, ""),
            };
            let Some((key, value)) = l.split_once(": ").or_else(|| l.split_once(':')) else {
                break;
            };
            match key {
                "regress" => summary = Some(value.to_string()),
                "expect" => {
                    expect = Some(match value.trim() {
                        "roundtrip" => Expect::Roundtrip,
                        "parse" => Expect::Parse,
                        "error" => Expect::Error,
                        "decode" => Expect::Decode,
                        "run" => Expect::Run,
                        other => return Err(format!("unknown expectation `{other}`")),
                    })
                }
                "xfail" => xfail = Some(value.to_string()),
                "input" => input.push_str(value.trim()),
                "out" => out.push_str(value.trim()),
                "RUN" => {
                    run = Some(
                        value
                            .trim()
                            .strip_prefix("ptx run")
                            .unwrap_or(value)
                            .trim()
                            .to_string(),
                    )
                }
                _ => break,
            }
            rest = after;
        }
        let hexed = |s: &str, what: &str| -> Result<Option<Vec<u8>>, String> {
            if s.is_empty() {
                Ok(None)
            } else {
                unhex(s)
                    .map(Some)
                    .ok_or_else(|| format!("malformed `{what}:` hex"))
            }
        };
        Ok(Case {
            summary: summary.ok_or("missing `// regress:` line")?,
            expect: expect.ok_or("missing `// expect:` line")?,
            xfail,
            input: hexed(&input, "input")?,
            run,
            out: hexed(&out, "out")?,
            body: rest.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_parse_round_trip() {
        let c = Case::run(
            "differs\nmore",
            ".version 8.0\n.target sm_90\n",
            "--entry k --grid 1 --block 32 --arg hex:00 --arg zeros:4",
            &[1, 2, 3, 4],
        );
        let back = Case::parse_file(&c.render()).unwrap();
        assert_eq!(back, c);
        let d = Case::decode("boom", &(0..=255).collect::<Vec<u8>>());
        assert_eq!(Case::parse_file(&d.render()).unwrap(), d);
        let p = Case::parse("x", b"\x00\x01 not text");
        assert_eq!(Case::parse_file(&p.render()).unwrap(), p);
    }
}
