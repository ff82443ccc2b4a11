//! The scale oracle: large and deep inputs cost time linear in their size, and never panic or
//! overflow the stack.
//!
//! libFuzzer's byte-level mutations and its default `-max_len` rarely build long or deep
//! structures; this oracle builds them on purpose. A few input bytes choose a shape and its
//! size (log-uniform, up to [`MAX_SIZE`]: 10^5 to 10^6 elements are common, and short inputs
//! give small cases), and the oracle writes PTX *text* of that shape, so that the reader faces
//! it:
//!
//! - `flat`: long flat expressions (initialisers `.global .u32 a = 1+2*3-...`, symbol-based
//!   ones `.global .u64 p = x + 4 - 2 ...`, long initialiser lists, section data, expression
//!   operands and address offsets in instructions; array sizes written as expressions);
//! - `deep`: nesting just below, at, just above and far above each bound of
//!   [`ptx_ir_core::limits`] (parentheses and unary operators in expressions, `{ }` in
//!   initialisers, scopes in bodies, operand lists and negations);
//! - `many`: many functions and kernels, module variables, declarations, parameters, files;
//! - `chain`: call chains `f0 -> f1 -> ... -> fn`, recursion against the stack limit,
//!   straight-line bodies, permuted blocks joined by branches, `brx.idx` over long
//!   `.branchtargets` and indirect calls over long `.calltargets` lists;
//! - `huge`: huge counts and values (register ranges, array sizes up to 2^64 - 1 and past it,
//!   alignments, immediates, `.loc` lines, `.maxntid`/`.reqntid`/`.maxnreg`, `.file` indices,
//!   versions);
//! - `long`: long identifiers, strings, comments, lines and runs of blank space, and an error
//!   after a million lines (its line number must be right).
//!
//! Each case knows whether its text is valid: valid text must parse, and must round-trip
//! ([`crate::roundtrip::check`]: print -> parse, printing fixpoint, encode -> decode in both
//! codecs); text past a bound or out of range must be refused with the expected error. What
//! parses is verified ([`ptx_ir_core::verify`]) and, for the shapes that run, launched in the
//! interpreter on one thread with bounded fuel and memory: the result must be the value the
//! generator computed, a clean stack-overflow error where the call chain outgrows the stack
//! limit, or (for the `huge` shapes) any clean error. Text that is small enough is also read
//! with the reader's fast paths off, which must give the same module or error.
//!
//! Sizes are log-uniform per variant, capped where a variant costs more per element (see
//! [`MAX_SIZE`] and the caps below): expressions, lists, nesting and lines up to 2^20 (text up
//! to 2^24 bytes for the `long` shapes); recursion 2^18 calls deep; declarations, variables,
//! parameters, files and straight-line instructions up to 2^17; blocks joined by branches and
//! `brx.idx` targets 2^16; functions 2^15 (`.calltargets` lists too), call chains 2^14 functions
//! (2^13 through `.param` parameters); text up to about 16 MiB.
//!
//! Linear cost is enforced by libFuzzer's `-timeout` and `-rss_limit_mb`: each variant's
//! largest case takes at most about 2 s in the fuzz target (debug assertions and coverage
//! instrumentation on, 3 to 5 times slower than `cargo test --release`) and 450 MiB of memory,
//! so that a cost that grows faster than the size shows as a timeout. The ignored test
//! `timings` prints the time of each variant's largest case (and writes those inputs, to time
//! them in the fuzz target); the `largest_*` tests run some of them in `cargo test`.
//!
//! A failure panics with the case: a regression file where the text is at most 64 KiB, else its
//! head and tail (the saved fuzzer input regenerates the text through [`case`]).

use crate::regress;
use arbitrary::Unstructured;
use ptx_ir_interp::{Arg, Error as RunError, Program};
use std::fmt::Write;

/// The largest size (elements: terms, functions, instructions, lines) drawn under libFuzzer.
pub const MAX_SIZE: usize = 1 << 20;

/// The most bytes of text a case may have.
pub const MAX_TEXT: usize = 64 << 20;

/// Text up to this size is also read with the reader's fast paths off.
const GENERAL_READ_MAX: usize = 1 << 20;

/// Host memory a launch may use.
const MEM_LIMIT: u64 = 1 << 30;

const HEADER: &str = ".version 8.7\n.target sm_90\n.address_size 64\n";

/// The largest size of each variant of the shapes whose variants cost different times per
/// element (`flat`, `many`, `chain`, `long`; bytes for the last): each variant's largest case
/// takes about 2 s at most in the fuzz target (a release build with debug assertions and
/// libFuzzer's coverage instrumentation, which runs the toolkit 3 to 5 times slower than a
/// plain release build), so that a cost that grows faster than the size shows as a timeout
/// (under the target's `-timeout=30`, a quadratic cost already at a quarter of the largest
/// size). The exceptions are call chains and many functions, the shapes where hand trials
/// found quadratic costs at 10^5 functions: they reach 2^17 (2^16 with `.param` arguments), about
/// 8 s in the fuzz target (the whole toolkit takes about 60 µs per function there), drawn
/// rarely enough (sizes are log-uniform) to cost little throughput.
const FLAT_CAPS: [usize; 8] = [1 << 20; 8];
const MANY_CAPS: [usize; 6] = [1 << 17, 1 << 14, 1 << 17, 1 << 17, 1 << 17, 1 << 17];
const CHAIN_CAPS: [usize; 8] = [
    1 << 17,
    1 << 16,
    1 << 18,
    1 << 17,
    1 << 17,
    1 << 16,
    1 << 16,
    1 << 15,
];
const LONG_CAPS: [usize; 7] = [
    1 << 21,
    1 << 22,
    1 << 22,
    1 << 22,
    1 << 21,
    1 << 24,
    1 << 21,
];

/// The expression, initialiser, operand and scope bounds, as sizes.
const EXPR: usize = ptx_ir_core::limits::MAX_EXPR_DEPTH as usize;
const INIT: usize = ptx_ir_core::limits::MAX_INIT_DEPTH as usize;
const OPERAND: usize = ptx_ir_core::limits::MAX_OPERAND_DEPTH as usize;
const SCOPE: usize = ptx_ir_core::limits::MAX_SCOPE_DEPTH as usize;

/// What the reader must make of a case's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// A module (that round-trips).
    Valid,
    /// An error whose message contains this.
    Refused(&'static str),
    /// Either; what parses round-trips.
    Either,
}

/// What a launch of kernel `k` must give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Want {
    /// Success, with this buffer (the kernel's `out`, 8 bytes).
    Out(Vec<u8>),
    /// A stack-overflow error.
    StackOverflow,
    /// Success or any error (never a panic).
    Clean,
}

/// A launch of kernel `k(.param .u64 out)` on one thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// The per-thread stack, if not the default.
    pub stack: Option<u32>,
    /// The fuel.
    pub fuel: u64,
    /// The expected result.
    pub want: Want,
}

/// One generated case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The shape, as `family/variant`.
    pub shape: String,
    /// The size parameter it was built with.
    pub size: usize,
    /// The PTX text.
    pub text: String,
    /// What the reader must make of it.
    pub expect: Expect,
    /// The launch, for the shapes that run.
    pub run: Option<Run>,
}

/// Runs the oracle on one input, with sizes up to [`MAX_SIZE`].
pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    run_with(u, MAX_SIZE)
}

/// Runs the oracle on one input, with sizes up to `max`.
pub fn run_with(u: &mut Unstructured, max: usize) -> arbitrary::Result<()> {
    let c = case(u, max)?;
    check(&c);
    Ok(())
}

/// The families of shapes, each a generator of cases of size up to its argument.
type Shape = fn(&mut Unstructured, usize) -> arbitrary::Result<Case>;
const SHAPES: [(&str, Shape); 6] = [
    ("flat", flat),
    ("deep", deep),
    ("many", many),
    ("chain", chain),
    ("huge", huge),
    ("long", long),
];

/// The case the input bytes describe (a failing fuzzer input regenerates its text with this).
pub fn case(u: &mut Unstructured, max: usize) -> arbitrary::Result<Case> {
    let k = u.choose_index(SHAPES.len())?;
    let c = (SHAPES[k].1)(u, max.max(1))?;
    assert!(
        c.text.len() <= MAX_TEXT,
        "scale oracle: {} of size {} wrote {} bytes of text",
        c.shape,
        c.size,
        c.text.len()
    );
    Ok(c)
}

/// A size from 1 to `max`, log-uniform: an exponent (1 byte), then that many low bits.
pub fn size(u: &mut Unstructured, max: usize) -> arbitrary::Result<usize> {
    let top = usize::BITS - 1 - max.max(1).leading_zeros();
    let e = u.int_in_range(0..=top)?;
    let low: u32 = u.arbitrary()?;
    Ok(((1usize << e) | (low as usize & ((1usize << e) - 1))).min(max))
}

/// A nesting depth around `limit`: just below, at, just above, below at random, or anything up
/// to `max.max(limit + 2)` (far above, often).
fn depth(u: &mut Unstructured, limit: usize, max: usize) -> arbitrary::Result<usize> {
    Ok(match u.int_in_range(0..=8u8)? {
        0 => limit - 1,
        1 | 2 => limit,
        3 => limit + 1,
        4 => limit + 2,
        5 => u.int_in_range(1..=limit)?,
        _ => size(u, max.max(limit + 2))?,
    })
}

/// A deterministic source for the bulk of a case's choices, seeded from a hash of the input
/// bytes not read yet, which it leaves unread: libFuzzer starts with inputs of a few bytes,
/// and those go to the choices of shape, variant and size.
fn rng(u: &Unstructured) -> crate::Bytes {
    let rest = u.peek_bytes(u.len()).unwrap_or_default();
    let h = rest.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    crate::Bytes::new(h)
}

/// `0..n` from `r` (`n` > 0).
fn below(r: &mut crate::Bytes, n: u64) -> u64 {
    r.next_u64() % n
}

fn case_of(shape: &str, size: usize, text: String, expect: Expect, run: Option<Run>) -> Case {
    Case {
        shape: shape.to_string(),
        size,
        text,
        expect,
        run,
    }
}

/// A launch that must store `v` (8 bytes, little-endian) in `out`.
fn out(v: u64, fuel: u64) -> Option<Run> {
    Some(Run {
        stack: None,
        fuel,
        want: Want::Out(v.to_le_bytes().to_vec()),
    })
}

/// A launch that must end cleanly.
fn clean(fuel: u64) -> Option<Run> {
    Some(Run {
        stack: None,
        fuel,
        want: Want::Clean,
    })
}

// ---------------------------------------------------------------------------------------------
// Checks.

/// Reads the case's text and checks everything the case expects; panics on a failure.
pub fn check(c: &Case) {
    let read = ptx_ir_text::parse(&c.text);
    if c.text.len() <= GENERAL_READ_MAX {
        let general = ptx_ir_text::parse_general_only(&c.text);
        let same = match (&read, &general) {
            (Ok(a), Ok(b)) => a == b,
            (Err(a), Err(b)) => a.to_string() == b.to_string(),
            _ => false,
        };
        if !same {
            fail(
                c,
                "the reader's fast paths and its general paths read this differently",
            );
        }
    }
    let m = match (read, &c.expect) {
        (Ok(m), Expect::Valid | Expect::Either) => m,
        (Ok(_), Expect::Refused(what)) => fail(
            c,
            &format!("the reader accepts text it must refuse (with `{what}`)"),
        ),
        (Err(e), Expect::Valid) => fail(c, &format!("the reader refuses valid text: {e}")),
        (Err(e), Expect::Refused(what)) => {
            let msg = e.to_string();
            if !msg.contains(what) {
                fail(c, &format!("refused with `{msg}`, not `{what}`"));
            }
            if let Some(line) = expected_error_line(c) {
                if e.line != line {
                    fail(c, &format!("error on line {}, not {line}: {msg}", e.line));
                }
            }
            return;
        }
        (Err(e), Expect::Either) => {
            let _ = e.to_string();
            return;
        }
    };
    if let Err(e) = crate::roundtrip::check(&m) {
        fail(c, &e);
    }
    let _ = ptx_ir_core::verify::verify(&m);
    if let Some(r) = &c.run {
        launch(c, &m, r);
    }
}

/// The `long/lines` cases put their error on a known line, the last.
fn expected_error_line(c: &Case) -> Option<usize> {
    (c.shape == "long/lines").then(|| c.text.bytes().filter(|&b| b == b'\n').count())
}

fn launch(c: &Case, m: &ptx_ir_core::Module, r: &Run) {
    let prog = match Program::load(m) {
        Ok(p) => p,
        Err(e) => {
            if r.want == Want::Clean {
                let _ = e.to_string();
                return;
            }
            fail(c, &format!("the interpreter does not load it: {e}"));
        }
    };
    let mut l = prog
        .launch("k")
        .grid([1, 1, 1])
        .block([1, 1, 1])
        .fuel(r.fuel)
        .mem_limit(MEM_LIMIT)
        .arg(Arg::Buffer(vec![0; 8]));
    if let Some(s) = r.stack {
        l = l.stack(s);
    }
    let got = l.run();
    match (&got, &r.want) {
        (_, Want::Clean) => {}
        (Ok(o), Want::Out(want)) if o.buffers.first() == Some(want) => {}
        (Ok(o), Want::Out(want)) => fail(
            c,
            &format!(
                "the launch stores {:02x?}, not {want:02x?}",
                o.buffers.first()
            ),
        ),
        (Err(f), Want::StackOverflow) if matches!(f.error, RunError::StackOverflow { .. }) => {}
        (Ok(_), Want::StackOverflow) => fail(c, "the launch does not overflow its stack"),
        (Err(f), _) => fail(c, &format!("the launch fails: {}", f.error)),
    }
}

/// Panics with the case: as a regression file where the text is small enough to keep, else
/// with the head and tail of the text (a saved fuzzer input regenerates it through [`case`]).
fn fail(c: &Case, err: &str) -> ! {
    let what = format!("scale oracle ({}, size {}): {err}", c.shape, c.size);
    if c.text.len() <= 64 << 10 {
        let mut file = regress::Case::roundtrip(&what, &c.text);
        if let Expect::Refused(_) = c.expect {
            file.expect = regress::Expect::Error;
        }
        if c.run.is_some() {
            // The launch is not part of the file's expectation: the text reproduces it with
            // `ptx run --entry k --arg zeros:8`.
            file.summary.push_str(" (launch: --entry k --arg zeros:8)");
        }
        panic!(
            "{what}\n--- regression file (save as corpus/regress/NAME.ptx):\n{}",
            file.render()
        );
    }
    let mut head = 2048.min(c.text.len());
    while !c.text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = c.text.len().saturating_sub(1024).max(head);
    while !c.text.is_char_boundary(tail) {
        tail += 1;
    }
    panic!(
        "{what}\n--- {} bytes of text (regenerate from the input with \
         `ptx_ir_oracles::scale::case`); head:\n{}\n--- tail:\n{}",
        c.text.len(),
        &c.text[..head],
        &c.text[tail..]
    );
}

// ---------------------------------------------------------------------------------------------
// Expressions: flat chains with the height and value of the tree the reader builds.

/// Binary operators: spelling and C precedence.
const OPS: [(&str, u8); 10] = [
    ("*", 10),
    ("/", 10),
    ("%", 10),
    ("+", 9),
    ("-", 9),
    ("<<", 8),
    (">>", 8),
    ("&", 5),
    ("^", 4),
    ("|", 3),
];

/// `a op b` as the reader folds constant operands (64-bit, wrapping; `None` where undefined).
fn apply(op: usize, a: Option<i64>, b: Option<i64>) -> Option<i64> {
    let (a, b) = (a?, b?);
    Some(match OPS[op].0 {
        "*" => a.wrapping_mul(b),
        "/" => a.checked_div(b)?,
        "%" => a.checked_rem(b)?,
        "+" => a.wrapping_add(b),
        "-" => a.wrapping_sub(b),
        "<<" => a.wrapping_shl(u32::try_from(b).ok()?),
        ">>" => a.wrapping_shr(u32::try_from(b).ok()?),
        "&" => a & b,
        "^" => a ^ b,
        _ => a | b,
    })
}

/// A term: its height (operator levels) and value.
type Term = (usize, Option<i64>);

/// A left-associative chain of terms and operators, folded as it is written (shunting-yard),
/// giving the height and value of the tree that precedence climbing builds.
#[derive(Default)]
struct Fold {
    terms: Vec<Term>,
    ops: Vec<usize>,
}

impl Fold {
    fn term(&mut self, t: Term) {
        self.terms.push(t);
    }

    fn op(&mut self, op: usize) {
        while let Some(&top) = self.ops.last() {
            if OPS[top].1 < OPS[op].1 {
                break;
            }
            self.reduce();
        }
        self.ops.push(op);
    }

    fn reduce(&mut self) {
        let op = self.ops.pop().expect("an operator");
        let b = self.terms.pop().expect("a right operand");
        let a = self.terms.pop().expect("a left operand");
        self.terms.push((a.0.max(b.0) + 1, apply(op, a.1, b.1)));
    }

    fn finish(mut self) -> Term {
        while !self.ops.is_empty() {
            self.reduce();
        }
        self.terms.pop().expect("a term")
    }
}

/// Writes a short term of a flat chain to `s`: a literal (decimal, hex, negative), a unary
/// operator on a literal, a parenthesised pair, or (with `sym`) a symbol.
fn term(r: &mut crate::Bytes, s: &mut String, sym: Option<&str>) -> Term {
    let d = 1 + below(r, 9) as i64;
    match below(r, 16) {
        0 => {
            let v = below(r, 1 << 20) as i64 + 10;
            let _ = write!(s, "{v}");
            (0, Some(v))
        }
        1 => {
            let _ = write!(s, "0x{d:X}");
            (0, Some(d))
        }
        2 => {
            let _ = write!(s, "-{d}");
            (0, Some(-d))
        }
        3 => {
            let _ = write!(s, "~{d}");
            (1, Some(!d))
        }
        4 => {
            let _ = write!(s, "- {d}");
            (1, Some(-d))
        }
        5 => {
            let e = 1 + below(r, 9) as i64;
            let op = below(r, OPS.len() as u64) as usize;
            let _ = write!(s, "({d}{}{e})", OPS[op].0);
            (2, apply(op, Some(d), Some(e)))
        }
        6 if sym.is_some() => {
            s.push_str(sym.unwrap_or_default());
            (0, None)
        }
        _ => {
            let _ = write!(s, "{d}");
            (0, Some(d))
        }
    }
}

/// Writes a chain of `n` terms joined by operators from `ops` (indices into [`OPS`]) to `s`;
/// returns its height and value. `first` is written as the first term, if given.
fn flat_chain(
    r: &mut crate::Bytes,
    s: &mut String,
    n: usize,
    ops: &[usize],
    sym: Option<&str>,
    spaced: bool,
) -> Term {
    let mut f = Fold::default();
    for k in 0..n {
        if k > 0 {
            let op = ops[below(r, ops.len() as u64) as usize];
            if spaced {
                let _ = write!(s, " {} ", OPS[op].0);
            } else {
                s.push_str(OPS[op].0);
            }
            f.op(op);
        }
        f.term(term(r, s, if k == 0 { sym } else { None }));
    }
    f.finish()
}

const ALL_OPS: [usize; 10] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
/// Operators whose value is always defined on the generated terms (no division, no shifts by
/// a negative amount).
const SAFE_OPS: [usize; 6] = [0, 3, 4, 7, 8, 9];

/// The expectation for an expression of `height` levels that must also fold to a constant
/// where `constant`.
fn expr_expect(t: Term, constant: bool) -> Expect {
    if t.0 > EXPR {
        Expect::Refused("expression nests deeper than")
    } else if constant && t.1.is_none() {
        Expect::Refused("constant")
    } else {
        Expect::Valid
    }
}

/// A kernel `k(.param .u64 out)` with `body` between loading `out` into `%rd1` and `ret`.
fn kernel(s: &mut String, decls: &str, body: &str) {
    let _ = write!(
        s,
        ".visible .entry k(.param .u64 out)\n{{\n\t.reg .b64 %rd<8>;\n\t.reg .b32 %r<8>;\n\
         \t.reg .pred %p<4>;\n{decls}\tld.param.u64 %rd1, [out];\n{body}\tret;\n}}\n"
    );
}

// ---------------------------------------------------------------------------------------------
// Shape 1: long flat expressions.

fn flat(u: &mut Unstructured, max: usize) -> arbitrary::Result<Case> {
    let variant = u.int_in_range(0..=7u8)?;
    let n = size(u, max.min(FLAT_CAPS[variant as usize]))?;
    let mut r = rng(u);
    let spaced = u.arbitrary()?;
    let mut s = String::from(HEADER);
    let (name, expect, run) = match variant {
        // A scalar initialiser, loaded by the kernel.
        0 | 1 => {
            let ty = *u.choose(&["u32", "s64", "b64", "u64"])?;
            s += &format!(".global .{ty} a = ");
            let t = flat_chain(&mut r, &mut s, n, &ALL_OPS, None, spaced);
            s += ";\n";
            let wide = ty != "u32";
            let (ld, v) = if wide {
                (
                    "ld.global.u64 %rd2, [a];\n\tst.global.u64 [%rd1], %rd2;\n",
                    t.1.map(|v| v as u64),
                )
            } else {
                (
                    "ld.global.u32 %r1, [a];\n\tst.global.u32 [%rd1], %r1;\n",
                    t.1.map(|v| v as u32 as u64),
                )
            };
            kernel(&mut s, "", ld);
            let expect = expr_expect(t, false);
            let run = match v {
                Some(v) => out(v, 100),
                None => clean(100),
            };
            ("flat/scalar", expect, run)
        }
        // `.global .u64 p = x + 4 - 2 + ...`: an address plus a long offset.
        2 => {
            let first = *u.choose(&["x", "generic(x)"])?;
            s += ".global .align 8 .u32 x[4];\n.global .u64 p = ";
            let t = flat_chain(&mut r, &mut s, n, &[3, 4], Some(first), spaced);
            s += ";\n";
            kernel(
                &mut s,
                "",
                "\tld.global.u64 %rd2, [p];\n\tst.global.u64 [%rd1], %rd2;\n",
            );
            ("flat/symbol", expr_expect(t, false), clean(100))
        }
        // One initialiser of an array, inside `{ }`.
        3 => {
            s += ".global .u32 a[1] = {";
            let t = flat_chain(&mut r, &mut s, n, &ALL_OPS, None, spaced);
            s += "};\n";
            kernel(
                &mut s,
                "",
                "\tld.global.u32 %r1, [a];\n\tst.global.u32 [%rd1], %r1;\n",
            );
            let run = match t.1 {
                Some(v) if t.0 <= EXPR => out(v as u32 as u64, 100),
                _ => clean(100),
            };
            ("flat/element", expr_expect(t, false), run)
        }
        // A long list of short elements: plain literals (the packed fast path) or expressions.
        4 => {
            let ty = *u.choose(&["u32", "b8", "s16", "u64"])?;
            let plain: bool = u.arbitrary()?;
            let sized: bool = u.arbitrary()?;
            let dim = if sized { n.to_string() } else { String::new() };
            s += &format!(".global .{ty} a[{dim}] = {{");
            let bits = match ty {
                "b8" => 8,
                "s16" => 16,
                "u32" => 32,
                _ => 64,
            };
            let mut first = 0u64;
            for k in 0..n {
                if k > 0 {
                    s += if spaced { ", " } else { "," };
                }
                // The first element is a literal: its value is checked through the kernel.
                let v = if plain || k == 0 || below(&mut r, 4) != 0 {
                    let v = below(&mut r, 1 << (bits - 1).min(20));
                    let _ = write!(s, "{v}");
                    v
                } else {
                    let terms = 1 + below(&mut r, 4) as usize;
                    let t = flat_chain(&mut r, &mut s, terms, &SAFE_OPS, None, spaced);
                    t.1.unwrap_or(0) as u64
                };
                if k == 0 {
                    first = v & (u64::MAX >> (64 - bits));
                }
            }
            s += "};\n";
            let (ld, mask) = match bits {
                8 => (
                    "ld.global.u8 %r1, [a];\n\tst.global.u32 [%rd1], %r1;\n",
                    0xff,
                ),
                16 => (
                    "ld.global.u16 %r1, [a];\n\tst.global.u32 [%rd1], %r1;\n",
                    0xffff,
                ),
                32 => (
                    "ld.global.u32 %r1, [a];\n\tst.global.u32 [%rd1], %r1;\n",
                    u32::MAX as u64,
                ),
                _ => (
                    "ld.global.u64 %rd2, [a];\n\tst.global.u64 [%rd1], %rd2;\n",
                    u64::MAX,
                ),
            };
            kernel(&mut s, "", ld);
            // The loads are unsigned: `first` was drawn below the sign bit.
            ("flat/list", Expect::Valid, out(first & mask, 100))
        }
        // Section data: one long expression, or a long list of values.
        5 => {
            let one: bool = u.arbitrary()?;
            s += ".section .debug_scale\n{\n\t.b32 ";
            let expect = if one {
                let t = flat_chain(&mut r, &mut s, n, &ALL_OPS, None, spaced);
                expr_expect(t, false)
            } else {
                for k in 0..n {
                    if k > 0 {
                        s += ", ";
                    }
                    let _ = write!(s, "{}", below(&mut r, 1 << 31));
                }
                Expect::Valid
            };
            s += "\n}\n";
            ("flat/section", expect, None)
        }
        // Expression operands: `add.s64 %rd2, %rd2, (E)` and an address `[%rd3+E]` that must
        // land on `out`.
        6 => {
            let mut body = String::from("\tmov.u64 %rd2, 0;\n");
            body += "\tadd.s64 %rd2, %rd2, (";
            let t = flat_chain(&mut r, &mut body, n, &ALL_OPS, None, spaced);
            body += ");\n";
            let mut expect = expr_expect(t, true);
            let k = 1 + below(&mut r, 8) as usize;
            let mut off = String::new();
            let o = flat_chain(&mut r, &mut off, k, &SAFE_OPS, None, false);
            let sign = if off.starts_with('-') { "" } else { "+" };
            if expect == Expect::Valid {
                expect = expr_expect(o, true);
            }
            let ov = o.1.unwrap_or(0);
            let _ = write!(
                body,
                "\tsub.s64 %rd3, %rd1, {ov};\n\tst.global.u64 [%rd3{sign}{off}], %rd2;\n"
            );
            kernel(&mut s, "", &body);
            let run = (expect == Expect::Valid)
                .then(|| out(t.1.unwrap_or(0) as u64, 100))
                .flatten();
            ("flat/operand", expect, run)
        }
        // An array size written as an expression (the reader takes integer literals only).
        _ => {
            s += ".global .u32 a[";
            let _ = flat_chain(&mut r, &mut s, n, &SAFE_OPS, None, spaced);
            s += "];\n";
            ("flat/dims", Expect::Either, None)
        }
    };
    Ok(case_of(name, n, s, expect, run))
}

// ---------------------------------------------------------------------------------------------
// Shape 2: deep nesting around the bounds of `ptx_ir_core::limits`.

/// An expression `height` levels deep around a literal, nested by random wrappers (`( )`,
/// unary operators, `d op ( )`, `( ) op d`); returns the text and its value.
fn nested_expr(r: &mut crate::Bytes, height: usize) -> (String, Option<i64>) {
    let mut pre: Vec<String> = Vec::new();
    let mut post = String::new();
    let d = 1 + below(r, 9) as i64;
    let core = d.to_string();
    let mut v = Some(d);
    let mut h = 0;
    // Whether the text so far is one operand (a unary operator may apply to it as is).
    let mut atomic = true;
    while h < height {
        let left = height - h;
        let pick = below(r, 8);
        match pick {
            // `d op (cur)` / `(cur) op d`: two levels.
            0 | 1 if left >= 2 => {
                let e = 1 + below(r, 9) as i64;
                let op = SAFE_OPS[below(r, SAFE_OPS.len() as u64) as usize];
                if pick == 0 {
                    pre.push(format!("{e}{}(", OPS[op].0));
                    post.push(')');
                    v = apply(op, Some(e), v);
                } else {
                    pre.push("(".into());
                    let _ = write!(post, "){}{e}", OPS[op].0);
                    v = apply(op, v, Some(e));
                }
                h += 2;
                atomic = false;
            }
            2..=5 if atomic => {
                let (t, f): (&str, fn(i64) -> i64) = match pick {
                    2 => ("- ", i64::wrapping_neg),
                    3 => ("~", |x| !x),
                    4 => ("!", |x| (x == 0) as i64),
                    _ => ("+", |x| x),
                };
                pre.push(t.into());
                v = v.map(f);
                h += 1;
            }
            _ => {
                pre.push("(".into());
                post.push(')');
                h += 1;
                atomic = true;
            }
        }
    }
    let mut s = String::with_capacity(2 * height + 4);
    for p in pre.iter().rev() {
        s += p;
    }
    s += &core;
    s += &post;
    (s, v)
}

fn deep(u: &mut Unstructured, max: usize) -> arbitrary::Result<Case> {
    let mut r = rng(u);
    let mut s = String::from(HEADER);
    let variant = u.int_in_range(0..=7u8)?;
    let (name, d, expect, run) = match variant {
        // An expression `d` levels deep in an initialiser.
        0 | 1 => {
            let d = depth(u, EXPR, max)?;
            let (e, v) = nested_expr(&mut r, d);
            let _ = writeln!(s, ".global .u64 a = {e};");
            kernel(
                &mut s,
                "",
                "\tld.global.u64 %rd2, [a];\n\tst.global.u64 [%rd1], %rd2;\n",
            );
            let run = match v {
                Some(v) if d <= EXPR => out(v as u64, 100),
                _ => clean(100),
            };
            ("deep/expr", d, expr_expect((d, v), false), run)
        }
        // The same as an operand (the outer parentheses count).
        2 => {
            let d = depth(u, EXPR, max)?;
            let (e, v) = nested_expr(&mut r, d.saturating_sub(1));
            let body = format!("\tmov.u64 %rd2, ({e});\n\tst.global.u64 [%rd1], %rd2;\n");
            kernel(&mut s, "", &body);
            let expect = expr_expect((d.max(1), v), true);
            let run = (expect == Expect::Valid)
                .then(|| out(v.unwrap_or(0) as u64, 100))
                .flatten();
            ("deep/operand", d, expect, run)
        }
        // The same in a section.
        3 => {
            let d = depth(u, EXPR, max)?;
            let (e, v) = nested_expr(&mut r, d);
            let _ = write!(s, ".section .debug_scale\n{{\n\t.b64 {e}\n}}\n");
            ("deep/section", d, expr_expect((d, v), false), None)
        }
        // Initialiser lists `d` levels deep, for an array of as many dimensions (where that is
        // a small number), around a literal or an expression.
        4 => {
            let d = depth(u, INIT, max)?;
            let dims = if d <= INIT + 2 { d } else { 1 };
            let inner_depth = if u.arbitrary()? {
                below(&mut r, EXPR as u64 + 1) as usize
            } else {
                0
            };
            let (e, v) = nested_expr(&mut r, inner_depth);
            s += ".global .u32 a";
            for _ in 0..dims {
                s += "[1]";
            }
            s += " = ";
            s.extend(std::iter::repeat_n('{', d));
            s += &e;
            s.extend(std::iter::repeat_n('}', d));
            s += ";\n";
            kernel(
                &mut s,
                "",
                "\tld.global.u32 %r1, [a];\n\tst.global.u32 [%rd1], %r1;\n",
            );
            let (expect, run) = if d > INIT {
                (Expect::Refused("nested too deeply"), None)
            } else {
                (Expect::Valid, out(v.unwrap_or(0) as u32 as u64, 100))
            };
            ("deep/init", d, expect, run)
        }
        // Scopes `d` levels deep in a body, some with declarations that shadow.
        5 => {
            let d = depth(u, SCOPE, max)?;
            let mut body = String::from("\tmov.u32 %r1, 0;\n");
            let mut v = 0u32;
            for k in 0..d {
                body += "{\n";
                if below(&mut r, 4) == 0 {
                    body += ".reg .b32 %r1;\nmov.u32 %r1, 5;\n";
                }
                if k + 1 == d || below(&mut r, 8) == 0 {
                    let c = below(&mut r, 100) as u32;
                    let _ = writeln!(body, "add.u32 %r2, %r2, {c};");
                    v = v.wrapping_add(c);
                }
            }
            for _ in 0..d {
                body += "}\n";
            }
            let body = format!("\tmov.u32 %r2, 0;\n{body}\tst.global.u32 [%rd1], %r2;\n");
            kernel(&mut s, "", &body);
            let (expect, run) = if d > SCOPE {
                (Expect::Refused("scopes nested too deeply"), None)
            } else {
                (Expect::Valid, out(v as u64, 100 + 4 * d as u64))
            };
            ("deep/scope", d, expect, run)
        }
        // Operand lists `d` levels deep: vectors only (which `mov` reads), or mixed with
        // negations, tuples and pairs.
        _ => {
            let d = depth(u, OPERAND, max)?;
            let mixed: bool = u.arbitrary()?;
            let mut pre: Vec<&str> = Vec::new();
            let mut post = String::new();
            for _ in 0..d {
                match if mixed { below(&mut r, 4) } else { 0 } {
                    0 => {
                        pre.push("{");
                        post.push('}');
                    }
                    1 => pre.push("- "),
                    2 => {
                        pre.push("[%r2, ");
                        post.push(']');
                    }
                    _ => {
                        pre.push("{%r2, ");
                        post.push('}');
                    }
                }
            }
            let mut o = String::new();
            for p in pre.iter().rev() {
                o += p;
            }
            let body = format!("\tmov.b32 %r1, {o}%r1{post};\n");
            kernel(&mut s, "", &body);
            let expect = if d > OPERAND {
                Expect::Refused("operand nests deeper than")
            } else if mixed {
                Expect::Either
            } else {
                Expect::Valid
            };
            ("deep/operand_list", d, expect, None)
        }
    };
    Ok(case_of(name, d, s, expect, run))
}

// ---------------------------------------------------------------------------------------------
// Shape 3: many functions, kernels, declarations and parameters.

fn many(u: &mut Unstructured, max: usize) -> arbitrary::Result<Case> {
    let variant = u.int_in_range(0..=5u8)?;
    let n = size(u, max.min(MANY_CAPS[variant as usize]))?;
    let mut r = rng(u);
    let mut s = String::from(HEADER);
    let (name, run) = match variant {
        // Functions and kernels (with forward declarations in variant 1), all called from `k`
        // (a sample of them: the call sites are a body too).
        0 | 1 => {
            let declare = variant == 1;
            let mut want = 0u32;
            let mut calls = String::new();
            if declare {
                for i in 0..n {
                    let _ = writeln!(s, ".func (.reg .u32 r) f{i}(.reg .u32 a);");
                }
            }
            for i in 0..n {
                if below(&mut r, 4) == 0 {
                    let _ = writeln!(s, ".visible .entry e{i}(.param .u32 p)\n{{\n\tret;\n}}");
                }
                let c = below(&mut r, 1000) as u32;
                let _ = writeln!(
                    s,
                    ".func (.reg .u32 r) f{i}(.reg .u32 a)\n{{\n\tadd.u32 r, a, {c};\n\tret;\n}}"
                );
                if i % 64 == 0 || i + 1 == n {
                    let _ = writeln!(calls, "\tcall (%r1), f{i}, (%r1);");
                    want = want.wrapping_add(c);
                }
            }
            let body = format!("\tmov.u32 %r1, 0;\n{calls}\tst.global.u32 [%rd1], %r1;\n");
            kernel(&mut s, "", &body);
            ("many/functions", out(want as u64, 100 + 2 * n as u64))
        }
        // Module variables in every space, with initialisers, read back by `k` (the last one).
        // Shared and constant variables stop at 16 KiB each (a CTA's shared memory and the
        // constant bank are small).
        2 => {
            let mut last = 0u64;
            let (mut shared, mut constant) = (0, 0);
            for i in 0..n {
                let v = below(&mut r, 1 << 30);
                match below(&mut r, 6) {
                    0 => {
                        let _ = writeln!(s, ".global .align 4 .b8 g{i}[{}];", 1 + v % 64);
                    }
                    1 if shared < 16 << 10 => {
                        let _ = writeln!(s, ".shared .u32 g{i};");
                        shared += 4;
                    }
                    2 if constant < 16 << 10 => {
                        let _ = writeln!(s, ".const .u32 g{i}[2] = {{{v}, {}}};", v + 1);
                        constant += 8;
                    }
                    _ => {
                        let _ = writeln!(s, ".global .u32 g{i} = {v};");
                    }
                }
                last = v;
            }
            let _ = writeln!(s, ".global .u32 glast = {last};");
            kernel(
                &mut s,
                "",
                "\tld.global.u32 %r1, [glast];\n\tst.global.u32 [%rd1], %r1;\n",
            );
            ("many/variables", out(last, 100))
        }
        // Declarations in a body: register ranges, single registers, locals, and one
        // declaration naming many registers; the kernel uses the last of each.
        3 => {
            let mut decls = String::new();
            for i in 0..n {
                match below(&mut r, 4) {
                    0 => {
                        let _ = writeln!(decls, "\t.reg .b32 %q{i}_<{}>;", 1 + below(&mut r, 100));
                    }
                    1 => {
                        let _ = writeln!(decls, "\t.reg .u64 x{i};");
                    }
                    2 => {
                        let _ = writeln!(
                            decls,
                            "\t.local .align 4 .b8 l{i}[{}];",
                            4 + 4 * below(&mut r, 8)
                        );
                    }
                    _ => {
                        let _ = writeln!(decls, "\t.reg .pred %p{i}_;");
                    }
                }
            }
            decls += "\t.reg .b32 m0";
            let k = (n / 4).max(1);
            for i in 1..k {
                let _ = write!(decls, ", m{i}");
            }
            decls += ";\n";
            let body = format!(
                "\tmov.u32 m{}, 77;\n\tst.global.u32 [%rd1], m{};\n",
                k - 1,
                k - 1
            );
            kernel(&mut s, &decls, &body);
            ("many/declarations", out(77, 100))
        }
        // Parameters: a kernel with `n`, and a function with `n` parameters and `n / 8`
        // return parameters, which `k` calls with the first of each.
        4 => {
            s += ".visible .entry wide(";
            for i in 0..n {
                if i > 0 {
                    s += ", ";
                }
                let _ = write!(s, ".param .u32 p{i}");
            }
            s += ")\n{\n\tret;\n}\n";
            let params = n.min(1 << 14);
            let rets = (params / 8).max(1);
            s += ".func (";
            for i in 0..rets {
                if i > 0 {
                    s += ", ";
                }
                let _ = write!(s, ".reg .u32 r{i}");
            }
            s += ") f(";
            for i in 0..params {
                if i > 0 {
                    s += ", ";
                }
                let _ = write!(s, ".reg .u32 a{i}");
            }
            s += ")\n{\n\tadd.u32 r0, a0, 1;\n\tret;\n}\n";
            let mut call = String::from("\tmov.u32 %r1, 41;\n\tcall (%r2");
            for _ in 1..rets {
                call += ", %r2";
            }
            call += "), f, (%r1";
            for _ in 1..params {
                call += ", %r1";
            }
            call += ");\n\tst.global.u32 [%rd1], %r2;\n";
            kernel(&mut s, "", &call);
            ("many/parameters", clean(100))
        }
        // Debug files, and a body with a `.loc` for each.
        _ => {
            let mut body = String::new();
            for i in 0..n {
                let _ = writeln!(s, ".file {} \"dir/file{i}.cu\"", i + 1);
                let _ = writeln!(
                    body,
                    "\t.loc {} {} {}",
                    i + 1,
                    below(&mut r, 1 << 20),
                    below(&mut r, 200)
                );
                if i % 16 == 0 {
                    body += "\tadd.u32 %r1, %r1, 1;\n";
                }
            }
            let w = n.div_ceil(16) as u64;
            let body = format!("\tmov.u32 %r1, 0;\n{body}\tst.global.u32 [%rd1], %r1;\n");
            kernel(&mut s, "", &body);
            ("many/files", out(w, 100 + n as u64))
        }
    };
    Ok(case_of(name, n, s, Expect::Valid, run))
}

// ---------------------------------------------------------------------------------------------
// Shape 4: call chains, recursion, long straight-line bodies, branches and target lists.

/// One straight-line operation on `%r1`: its text and its effect.
fn op32(r: &mut crate::Bytes, s: &mut String, v: u32) -> u32 {
    let c = below(r, 1 << 16) as u32;
    match below(r, 9) {
        0 => {
            let _ = writeln!(s, "\tsub.u32 %r1, %r1, {c};");
            v.wrapping_sub(c)
        }
        1 => {
            let _ = writeln!(s, "\txor.b32 %r1, %r1, {c};");
            v ^ c
        }
        2 => {
            let _ = writeln!(s, "\tmul.lo.u32 %r1, %r1, {};", c | 1);
            v.wrapping_mul(c | 1)
        }
        3 => {
            let _ = writeln!(s, "\tor.b32 %r1, %r1, {};", c & 0x0101);
            v | (c & 0x0101)
        }
        4 => {
            let _ = writeln!(s, "\tshl.b32 %r1, %r1, {};", c % 3);
            v << (c % 3)
        }
        5 => {
            s.push_str("\tnot.b32 %r1, %r1;\n");
            !v
        }
        6 => {
            // A predicated instruction: `%p1` is true, `%p2` false.
            let (p, taken) = if c & 1 == 0 {
                ("%p1", true)
            } else {
                ("!%p1", false)
            };
            let _ = writeln!(s, "\t@{p} add.u32 %r1, %r1, {c};");
            if taken {
                v.wrapping_add(c)
            } else {
                v
            }
        }
        _ => {
            let _ = writeln!(s, "\tadd.u32 %r1, %r1, {c};");
            v.wrapping_add(c)
        }
    }
}

const PRELUDE: &str = "\tmov.u32 %r3, 0;\n\tsetp.eq.u32 %p1, %r3, 0;\n\tmov.u32 %r1, 1;\n";
const STORE: &str = "\tst.global.u32 [%rd1], %r1;\n";

fn chain(u: &mut Unstructured, max: usize) -> arbitrary::Result<Case> {
    let variant = u.int_in_range(0..=7u8)?;
    let n = size(u, max.min(CHAIN_CAPS[variant as usize]))?;
    let mut r = rng(u);
    let mut s = String::from(HEADER);
    let (name, run) = match variant {
        // f0 -> f1 -> ... -> f(n-1), through `.reg` parameters (variant 0) or `.param` ones
        // (variant 1), the callee defined first or declared first.
        0 | 1 => {
            let by_param = variant == 1;
            let callee_first: bool = u.arbitrary()?;
            let sig = |s: &mut String, i: usize| {
                if by_param {
                    let _ = write!(s, ".func (.param .b32 r) f{i}(.param .b32 a)");
                } else {
                    let _ = write!(s, ".func (.reg .u32 r) f{i}(.reg .u32 a)");
                }
            };
            if !callee_first {
                for i in 0..n {
                    sig(&mut s, i);
                    s += ";\n";
                }
            }
            let cs: Vec<u32> = (0..n).map(|_| below(&mut r, 1000) as u32).collect();
            let want = cs.iter().fold(0u32, |a, &c| a.wrapping_add(c));
            let order: Box<dyn Iterator<Item = usize>> = if callee_first {
                Box::new((0..n).rev())
            } else {
                Box::new(0..n)
            };
            for i in order {
                sig(&mut s, i);
                let c = cs[i];
                let last = i + 1 == n;
                if by_param {
                    s += "\n{\n\t.reg .b32 %x<3>;\n\tld.param.b32 %x1, [a];\n";
                    let _ = writeln!(s, "\tadd.u32 %x1, %x1, {c};");
                    if last {
                        s += "\tmov.u32 %x2, %x1;\n";
                    } else {
                        let _ = write!(
                            s,
                            "\t{{\n\t.param .b32 a0;\n\t.param .b32 r0;\n\tst.param.b32 [a0], %x1;\n\
                             \tcall (r0), f{}, (a0);\n\tld.param.b32 %x2, [r0];\n\t}}\n",
                            i + 1
                        );
                    }
                    s += "\tst.param.b32 [r], %x2;\n\tret;\n}\n";
                } else {
                    let _ = write!(s, "\n{{\n\t.reg .u32 %t;\n\tadd.u32 %t, a, {c};\n");
                    if !last {
                        let _ = writeln!(s, "\tcall (%t), f{}, (%t);", i + 1);
                    }
                    s += "\tmov.u32 r, %t;\n\tret;\n}\n";
                }
            }
            let body = if by_param {
                "\t{\n\t.param .b32 a0;\n\t.param .b32 r0;\n\tst.param.b32 [a0], %r3;\n\
                 \tcall (r0), f0, (a0);\n\tld.param.b32 %r1, [r0];\n\t}\n"
            } else {
                "\tcall (%r1), f0, (%r3);\n"
            };
            kernel(&mut s, "", &format!("\tmov.u32 %r3, 0;\n{body}{STORE}"));
            let name = if by_param {
                "chain/calls_param"
            } else {
                "chain/calls"
            };
            (name, out(want as u64, 100 + 10 * n as u64))
        }
        // Recursion `n` calls deep against the stack limit: the default (1,024 bytes), one
        // near what the calls need, or plenty.
        2 => {
            s += ".func (.reg .u32 r) rec(.reg .u32 n)\n{\n\t.reg .pred %q;\n\t.reg .u32 %t;\n\
                  \tsetp.eq.u32 %q, n, 0;\n\t@%q bra Lbase;\n\tsub.u32 %t, n, 1;\n\
                  \tcall (%t), rec, (%t);\n\tadd.u32 r, %t, 3;\n\tret;\nLbase:\n\
                  \tmov.u32 r, 0;\n\tret;\n}\n";
            let body = format!("\tmov.u32 %r3, {n};\n\tcall (%r1), rec, (%r3);\n{STORE}");
            kernel(&mut s, "", &body);
            // `rec(n)` ... `rec(0)`: n + 1 frames below the kernel.
            let need = (n as u64 + 1) * ptx_ir_interp::mem::CALL_FRAME_COST as u64;
            let stack = match u.int_in_range(0..=3u8)? {
                0 => None,
                1 => Some(need),
                2 => Some(need - ptx_ir_interp::mem::CALL_FRAME_COST as u64),
                _ => Some(need + below(&mut r, 1 << 20)),
            }
            .map(|b| b.min(ptx_ir_interp::mem::STACK_MAX as u64) as u32);
            let limit = stack.unwrap_or(ptx_ir_interp::mem::DEFAULT_STACK) as u64;
            let want = if need <= limit {
                Want::Out((3 * n as u64 as u32 as u64).to_le_bytes().to_vec())
            } else {
                Want::StackOverflow
            };
            let run = Run {
                stack,
                fuel: 100 + 10 * n as u64,
                want,
            };
            ("chain/recursion", Some(run))
        }
        // A straight-line body, with labels, `.loc`s and scopes in places.
        3 | 4 => {
            s += ".file 1 \"scale.cu\"\n";
            let mut body = String::from(PRELUDE);
            let mut v = 1u32;
            let mut open = 0;
            for i in 0..n {
                match below(&mut r, 32) {
                    0 => {
                        let _ = writeln!(body, "L{i}:");
                    }
                    1 => {
                        let _ = writeln!(body, "\t.loc 1 {} 1", i + 1);
                    }
                    2 if open < 8 => {
                        body += "\t{\n";
                        open += 1;
                    }
                    3 if open > 0 => {
                        body += "\t}\n";
                        open -= 1;
                    }
                    _ => {}
                }
                v = op32(&mut r, &mut body, v);
            }
            for _ in 0..open {
                body += "\t}\n";
            }
            body += STORE;
            kernel(&mut s, "", &body);
            ("chain/straight", out(v as u64, 100 + 2 * n as u64))
        }
        // Blocks in a random order joined by branches: L0 -> L1 -> ... -> Ldone.
        5 => {
            let mut order: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                order.swap(i, below(&mut r, i as u64 + 1) as usize);
            }
            let mut ops = Vec::with_capacity(n);
            let mut v = 1u32;
            for _ in 0..n {
                let mut t = String::new();
                v = op32(&mut r, &mut t, v);
                ops.push(t);
            }
            let mut body = String::from(PRELUDE);
            body += "\tbra.uni L0;\n";
            for &i in &order {
                let _ = write!(body, "L{i}:\n{}", ops[i]);
                if i + 1 == n {
                    body += "\tbra.uni Ldone;\n";
                } else {
                    let _ = writeln!(body, "\tbra.uni L{};", i + 1);
                }
            }
            let _ = write!(body, "Ldone:\n{STORE}");
            kernel(&mut s, "", &body);
            ("chain/branches", out(v as u64, 100 + 4 * n as u64))
        }
        // `brx.idx` over `n` labels.
        6 => {
            let k = below(&mut r, n as u64) as usize;
            let mut body = String::from(PRELUDE);
            let _ = write!(body, "\tmov.u32 %r2, {k};\n\tts: .branchtargets L0");
            for i in 1..n {
                let _ = write!(body, ", L{i}");
            }
            body += ";\n\tbrx.idx %r2, ts;\n";
            for i in 0..n {
                let _ = write!(
                    body,
                    "L{i}:\n\tmov.u32 %r1, {};\n\tbra.uni Ldone;\n",
                    mix(i)
                );
            }
            let _ = write!(body, "Ldone:\n{STORE}");
            kernel(&mut s, "", &body);
            ("chain/brx", out(mix(k) as u64, 100))
        }
        // An indirect call over a `.calltargets` list of `n` functions.
        _ => {
            let k = below(&mut r, n as u64) as usize;
            for i in 0..n {
                let _ = write!(
                    s,
                    ".func (.reg .u32 r) g{i}(.reg .u32 a)\n{{\n\tadd.u32 r, a, {};\n\tret;\n}}\n",
                    mix(i)
                );
            }
            let mut body = String::from(PRELUDE);
            body += "\tFt: .calltargets g0";
            for i in 1..n {
                let _ = write!(body, ", g{i}");
            }
            let _ = write!(
                body,
                ";\n\tmov.u64 %rd2, g{k};\n\tcall (%r1), %rd2, (%r3), Ft;\n{STORE}"
            );
            kernel(&mut s, "", &body);
            ("chain/calltargets", out(mix(k) as u64, 100))
        }
    };
    Ok(case_of(name, n, s, Expect::Valid, run))
}

/// A value for target `i`, distinct for distinct `i`.
fn mix(i: usize) -> u32 {
    (i as u32).wrapping_mul(0x9E37_79B9) ^ 0x5bd1_e995
}

// ---------------------------------------------------------------------------------------------
// Shape 5: huge counts and values.

/// A number for a count or value: near a power of two or ten, or a long run of digits, as
/// text (decimal or hex) with its value where it fits 128 bits.
fn big(
    u: &mut Unstructured,
    r: &mut crate::Bytes,
    max: usize,
) -> arbitrary::Result<(String, Option<u128>)> {
    let v: u128 = match u.int_in_range(0..=9u8)? {
        0 => u128::from(u.int_in_range(0..=70u8)?),
        1 => 1u128 << u.int_in_range(0..=127u8)?,
        2 => (1u128 << u.int_in_range(1..=127u8)?) - 1,
        3 => (1u128 << u.int_in_range(0..=126u8)?) + 1,
        4 => 10u128.pow(u.int_in_range(0..=38u32)?),
        5 => [
            u32::MAX as u128,
            u64::MAX as u128,
            1 << 32,
            1 << 64,
            1 << 96,
            999_999_999,
            1_000_000_000,
        ][u.choose_index(7)?],
        6 => {
            // A long run of digits (past any integer type).
            let n = size(u, max)?;
            let mut t = String::from("1");
            for _ in 1..n {
                t.push(char::from(b'0' + below(r, 10) as u8));
            }
            let v = t.parse::<u128>().ok();
            return Ok((t, v));
        }
        _ => r.next_u64() as u128 >> below(r, 64),
    };
    Ok(if u.arbitrary::<u8>()? < 40 {
        (format!("0x{v:X}"), Some(v))
    } else {
        (v.to_string(), Some(v))
    })
}

fn fits(v: Option<u128>, max: u128) -> bool {
    v.is_some_and(|v| v <= max)
}

/// Valid where `ok`, else refused (with a message that depends on how the number was too big,
/// so no particular one).
fn valid_if(ok: bool) -> Expect {
    if ok {
        Expect::Valid
    } else {
        Expect::Refused("error")
    }
}

fn huge(u: &mut Unstructured, max: usize) -> arbitrary::Result<Case> {
    let mut r = rng(u);
    let (t, v) = big(u, &mut r, max)?;
    let mut s = String::from(HEADER);
    let u32m = u32::MAX as u128;
    let u64m = u64::MAX as u128;
    let variant = u.int_in_range(0..=10u8)?;
    let (name, expect, run) = match variant {
        // A register range.
        0 => {
            let decls = format!("\t.reg .b32 %h<{t}>;\n");
            kernel(&mut s, &decls, "\tmov.u32 %h0, 1;\n");
            let e = match v {
                Some(0) => Expect::Either,
                _ => valid_if(fits(v, u32m)),
            };
            ("huge/reg_range", e, clean(100))
        }
        // Array sizes in every space, one or two dimensions.
        1 => {
            let space = *u.choose(&["global", "shared", "const", "local"])?;
            let two: bool = u.arbitrary()?;
            let dims = if two {
                format!("[{t}][{t}]")
            } else {
                format!("[{t}]")
            };
            let decl = format!(".{space} .align 4 .b8 big{dims};\n");
            let load = format!("\tld.{space}.u8 %r1, [big];\n\tst.global.u32 [%rd1], %r1;\n");
            if space == "local" {
                kernel(&mut s, &format!("\t{decl}"), &load);
            } else {
                s += &decl;
                kernel(&mut s, "", &load);
            }
            let e = match v {
                Some(0) => Expect::Either,
                _ => valid_if(fits(v, u64m)),
            };
            ("huge/array", e, clean(100))
        }
        // An initialised array whose declared size is huge.
        2 => {
            let _ = writeln!(s, ".global .u32 big[{t}] = {{1, 2, 3}};");
            kernel(
                &mut s,
                "",
                "\tld.global.u32 %r1, [big+4];\n\tst.global.u32 [%rd1], %r1;\n",
            );
            let e = match v {
                // Fewer elements than the initialiser has.
                Some(0..=2) => Expect::Either,
                _ => valid_if(fits(v, u64m)),
            };
            ("huge/array_init", e, clean(100))
        }
        // An alignment.
        3 => {
            let _ = writeln!(s, ".global .align {t} .b8 x[4];");
            kernel(
                &mut s,
                "",
                "\tld.global.u8 %r1, [x];\n\tst.global.u32 [%rd1], %r1;\n",
            );
            let ok = v.is_some_and(|v| v.is_power_of_two() && v <= u32m);
            ("huge/align", valid_if(ok), clean(100))
        }
        // An immediate, positive or negated.
        4 => {
            let neg: bool = u.arbitrary()?;
            let body = format!(
                "\tmov.u64 %rd2, {}{t};\n\tst.global.u64 [%rd1], %rd2;\n",
                if neg { "-" } else { "" }
            );
            kernel(&mut s, "", &body);
            let (ok, val) = match (v, neg) {
                (Some(v), false) if v <= u64m => (true, v as u64),
                (Some(v), true) if v <= 1 << 63 => (true, (v as u64).wrapping_neg()),
                _ => (false, 0),
            };
            // Hex literals are unsigned: their negation is accepted as the reader decides.
            let e = if neg && t.starts_with("0x") {
                Expect::Either
            } else {
                valid_if(ok)
            };
            let run = if e == Expect::Valid {
                out(val, 100)
            } else {
                clean(100)
            };
            ("huge/immediate", e, run)
        }
        // `.loc` file, line and column.
        5 => {
            let which = u.int_in_range(0..=2u8)?;
            let mut f = ["1".to_string(), "1".to_string(), "1".to_string()];
            f[which as usize] = t.clone();
            let _ = writeln!(s, ".file 1 \"a.cu\"");
            let body = format!(
                "\t.loc {} {} {}\n\tmov.u32 %r1, 9;\n{STORE}",
                f[0], f[1], f[2]
            );
            kernel(&mut s, "", &body);
            ("huge/loc", valid_if(fits(v, u32m)), out(9, 100))
        }
        // Kernel directives.
        6 => {
            let d = *u.choose(&[
                ".maxntid",
                ".reqntid",
                ".maxnreg",
                ".minnctapersm",
                ".maxclusterrank",
                ".reqnctapercluster",
            ])?;
            let three =
                matches!(d, ".maxntid" | ".reqntid" | ".reqnctapercluster") && u.arbitrary()?;
            let args = if three {
                format!("{t}, {t}, {t}")
            } else {
                t.clone()
            };
            let _ = write!(
                s,
                ".visible .entry k(.param .u64 out)\n{d} {args}\n{{\n\t.reg .b64 %rd<2>;\n\
                 \tld.param.u64 %rd1, [out];\n\tret;\n}}\n"
            );
            ("huge/directive", valid_if(fits(v, u32m)), clean(100))
        }
        // A `.file` index, with a timestamp and size.
        7 => {
            let meta: bool = u.arbitrary()?;
            if meta {
                let _ = writeln!(s, ".file 1 \"a.cu\", {t}, {t}");
                kernel(&mut s, "", "");
                ("huge/file_meta", valid_if(fits(v, u64m)), clean(100))
            } else {
                let _ = writeln!(s, ".file {t} \"a.cu\"");
                kernel(&mut s, "", "");
                ("huge/file", valid_if(fits(v, u32m)), clean(100))
            }
        }
        // A version.
        8 => {
            let s2 = format!(".version {t}.{t}\n.target sm_90\n.address_size 64\n");
            s = s2;
            kernel(&mut s, "", "");
            let ok = !t.starts_with("0x") && fits(v, 255);
            ("huge/version", valid_if(ok), clean(100))
        }
        // A vector width.
        9 => {
            let _ = writeln!(s, ".global .v{t} .u32 vec;");
            kernel(&mut s, "", "");
            ("huge/vector", Expect::Either, clean(100))
        }
        // A section value.
        _ => {
            let _ = write!(s, ".section .debug_scale\n{{\n\t.b64 {t}\n}}\n");
            ("huge/section", valid_if(fits(v, u64m)), None)
        }
    };
    Ok(case_of(name, t.len(), s, expect, run))
}

// ---------------------------------------------------------------------------------------------
// Shape 6: long identifiers, strings, comments, lines and blank space.

/// `n` identifier characters after `first`.
fn ident(r: &mut crate::Bytes, first: char, n: usize) -> String {
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$";
    let mut s = String::with_capacity(n + 1);
    s.push(first);
    for _ in 0..n {
        s.push(char::from(CHARS[below(r, CHARS.len() as u64) as usize]));
    }
    s
}

fn long(u: &mut Unstructured, max: usize) -> arbitrary::Result<Case> {
    let variant = u.int_in_range(0..=6u8)?;
    // Bytes, not elements: up to 16 times the element size.
    let n = size(u, max.saturating_mul(16).min(LONG_CAPS[variant as usize]))?;
    let mut r = rng(u);
    let mut s = String::from(HEADER);
    let (name, expect, run) = match variant {
        // Long names: a function, a register, a variable, a label, a parameter.
        0 => {
            let f = ident(&mut r, 'f', n);
            let reg = ident(&mut r, '%', n);
            let var = ident(&mut r, 'v', n);
            let label = ident(&mut r, 'L', n);
            let param = ident(&mut r, 'p', n);
            let _ = writeln!(s, ".global .u32 {var} = 17;");
            let _ = writeln!(
                s,
                ".func (.reg .u32 r) {f}(.reg .u32 {param})\n{{\n\tadd.u32 r, {param}, 1;\n\tret;\n}}"
            );
            let decls = format!("\t.reg .b32 {reg};\n");
            let body = format!(
                "\tld.global.u32 {reg}, [{var}];\n\tbra.uni {label};\n\tmov.u32 {reg}, 0;\n\
                 {label}:\n\tcall (%r1), {f}, ({reg});\n{STORE}"
            );
            kernel(&mut s, &decls, &body);
            ("long/names", Expect::Valid, out(18, 100))
        }
        // Long strings: a pragma, a file name (with escapes).
        1 => {
            let mut text = String::with_capacity(n);
            while text.len() < n {
                match below(&mut r, 64) {
                    0 => text += "\\\\",
                    1 => text += "\\\"",
                    2 => text += "\\n",
                    _ => text.push(char::from(b' ' + 1 + below(&mut r, 90) as u8)),
                }
                if text.ends_with('"') && !text.ends_with("\\\"")
                    || text.ends_with('\\') && !text.ends_with("\\\\")
                {
                    text.pop();
                }
            }
            // A plain `\` or `"` may have been drawn: keep the string one string.
            let text = text.replace(['"', '\\'], "_");
            let _ = writeln!(s, ".file 1 \"{text}\"\n.pragma \"{text}\";");
            let body = format!("\t.pragma \"{text}\";\n\tmov.u32 %r1, 3;\n{STORE}");
            kernel(&mut s, "", &body);
            ("long/strings", Expect::Valid, out(3, 100))
        }
        // Long comments, line and block (spanning lines), between items and tokens.
        2 => {
            let mut c = String::with_capacity(n);
            while c.len() < n {
                c.push(match below(&mut r, 40) {
                    0 => '\n',
                    1 => '*',
                    2 => '/',
                    _ => char::from(b' ' + below(&mut r, 95) as u8),
                });
            }
            let block = c.replace("*/", "* /");
            let line = c.replace('\n', " ");
            let _ = write!(s, "//{line}\n/*{block}*/\n");
            let body = format!("\tmov.u32 /*{block}*/ %r1, 4; //{line}\n{STORE}");
            kernel(&mut s, "", &body);
            ("long/comments", Expect::Valid, out(4, 100))
        }
        // One line of `n / 20` instructions.
        3 => {
            let k = (n / 20).max(1);
            let mut line = String::from("\tmov.u32 %r1, 0;");
            for _ in 0..k {
                line += " add.u32 %r1, %r1, 1;";
            }
            let body = format!("{line}\n{STORE}");
            kernel(&mut s, "", &body);
            ("long/line", Expect::Valid, out(k as u64, 100 + k as u64))
        }
        // Runs of blank space between tokens.
        4 => {
            let mut b = String::with_capacity(n);
            while b.len() < n {
                b.push(match below(&mut r, 8) {
                    0 => '\t',
                    1 => '\n',
                    2 => '\r',
                    _ => ' ',
                });
            }
            let body = format!("\tmov.u32{b}%r1{b},{b}6{b};{b}\n{STORE}");
            kernel(&mut s, &b, &body);
            ("long/space", Expect::Valid, out(6, 100))
        }
        // `n / 8` lines (blank, comments, `.loc`s), then an error on the last line.
        5 => {
            let k = (n / 8).max(1);
            s += ".file 1 \"a.cu\"\n.visible .entry k(.param .u64 out)\n{\n";
            for i in 0..k {
                match below(&mut r, 4) {
                    0 => s += "// a comment\n",
                    1 => {
                        let _ = writeln!(s, "\t.loc 1 {} 1", i + 1);
                    }
                    _ => s += "\n",
                }
            }
            s += "\tnot_an_instruction %r1;\n";
            ("long/lines", Expect::Refused("error"), None)
        }
        // `n / 16` lines of a body with `\r\n` ends.
        _ => {
            let k = (n / 16).max(1);
            let mut body = String::from("\tmov.u32 %r1, 0;\r\n");
            for _ in 0..k {
                body += "\tadd.u32 %r1, %r1, 2;\r\n";
            }
            body += STORE;
            kernel(&mut s, "", &body);
            (
                "long/crlf",
                Expect::Valid,
                out(2 * k as u64, 100 + k as u64),
            )
        }
    };
    Ok(case_of(name, n, s, expect, run))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes up to 4,096 elements.
    fn small(u: &mut Unstructured) -> arbitrary::Result<()> {
        run_with(u, 1 << 12)
    }

    #[test]
    fn smoke() {
        let done = crate::smoke(small, 0x5eed_0005, 400, 64);
        assert!(done >= 200, "only {done} of 400 inputs completed");
    }

    /// The input bytes of a case of shape `shape` at the largest size: `arbitrary` reads a
    /// choice of fewer than 256 values from one byte (modulo the count), a `u32` or `u64`
    /// from four or eight. `pre` are the bytes the shape reads before its size (`deep` and
    /// `huge` draw their sizes later, from `post`), `post` those after it.
    fn input(shape: u8, exp: u8, pre: &[u8], post: &[u8]) -> Vec<u8> {
        let exp = match (shape, pre) {
            (0, [v]) => log2(FLAT_CAPS[*v as usize]),
            (2, [v]) => log2(MANY_CAPS[*v as usize]),
            (3, [v]) => log2(CHAIN_CAPS[*v as usize]),
            (5, [v]) => log2(LONG_CAPS[*v as usize].min(MAX_SIZE * 16)),
            _ => exp,
        };
        let mut b = vec![shape];
        b.extend_from_slice(pre);
        if exp > 0 {
            b.push(exp);
            b.extend_from_slice(&[0xff; 4]);
        }
        b.extend_from_slice(post);
        b
    }

    /// Checks the case of `input` and returns its shape and size.
    fn check_input(b: &[u8]) -> (String, usize) {
        let c = case(&mut Unstructured::new(b), MAX_SIZE).unwrap();
        check(&c);
        (c.shape, c.size)
    }

    /// The largest `flat` cases: a list of 2^20 elements (valid), a chain of 2^20 terms
    /// (refused past the expression bound).
    #[test]
    fn largest_flat() {
        let (shape, n) = check_input(&input(0, 0, &[4], &[1, 0, 0, 1]));
        assert_eq!((shape.as_str(), n), ("flat/list", 1 << 20));
        let (shape, n) = check_input(&input(0, 0, &[0], &[0, 0]));
        assert_eq!((shape.as_str(), n), ("flat/scalar", 1 << 20));
    }

    /// The deepest `deep` cases: each bound at its limit (valid), and an expression 2^20 deep
    /// (refused).
    #[test]
    fn largest_deep() {
        for (v, limit) in [
            (0, EXPR),
            (2, EXPR),
            (3, EXPR),
            (4, INIT),
            (5, SCOPE),
            (6, OPERAND),
        ] {
            let (_, d) = check_input(&input(1, 0, &[], &[v, 1, 1]));
            assert_eq!(d, limit);
            let (_, d) = check_input(&input(1, 0, &[], &[v, 3, 1]));
            assert_eq!(d, limit + 1);
        }
        let (shape, d) = check_input(&input(1, 0, &[], &[0, 8, 20, 0xff, 0xff, 0xff, 0xff]));
        assert_eq!((shape.as_str(), d), ("deep/expr", 1 << 20));
    }

    /// The largest `many` case: functions and kernels.
    #[test]
    fn largest_many() {
        let (shape, n) = check_input(&input(2, 0, &[0], &[]));
        assert_eq!((shape.as_str(), n), ("many/functions", MANY_CAPS[0]));
    }

    /// The largest `chain` cases: a call chain, recursion with the stack it needs (and one
    /// frame less), a straight-line body.
    #[test]
    fn largest_chain() {
        let (shape, n) = check_input(&input(3, 0, &[0], &[1]));
        assert_eq!((shape.as_str(), n), ("chain/calls", CHAIN_CAPS[0]));
        for stack in [1, 2] {
            let (shape, n) = check_input(&input(3, 0, &[2], &[stack]));
            assert_eq!((shape.as_str(), n), ("chain/recursion", CHAIN_CAPS[2]));
        }
        let (shape, n) = check_input(&input(3, 0, &[3], &[]));
        assert_eq!((shape.as_str(), n), ("chain/straight", CHAIN_CAPS[3]));
    }

    /// Every `huge` variant with each of the values at the edges of the integer types, in
    /// decimal and hex, and a million-digit number.
    #[test]
    fn huge_values() {
        for v in 0..=10u8 {
            for k in 0..7u8 {
                for hex in [0, 255] {
                    for extra in [[0, 0], [1, 1], [2, 0], [3, 1]] {
                        check_input(&input(4, 0, &[], &[5, k, hex, v, extra[0], extra[1]]));
                    }
                }
            }
            check_input(&input(4, 0, &[], &[6, 20, 0xff, 0xff, 0xff, 0xff, v, 0, 0]));
        }
    }

    /// The largest `long` case: names of 2 million characters.
    #[test]
    fn largest_long() {
        let (shape, n) = check_input(&input(5, 0, &[0], &[]));
        assert_eq!((shape.as_str(), n), ("long/names", LONG_CAPS[0]));
    }

    fn log2(n: usize) -> u8 {
        (usize::BITS - 1 - n.min(MAX_SIZE * 16).leading_zeros()) as u8
    }

    /// Every shape and variant at its largest size: prints the size, the text's length and
    /// the time to generate and to check it. `cargo test --release -p ptx-ir-oracles --lib
    /// scale::tests::timings -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn timings() {
        let far = [8u8, 20, 0xff, 0xff, 0xff, 0xff];
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for v in 0..8u8 {
            inputs.push(input(0, 20, &[v], &[0, 0, 1, 1, 1]));
        }
        for v in 0..8u8 {
            let mut post = vec![v];
            post.extend_from_slice(&far);
            post.push(1);
            inputs.push(input(1, 0, &[], &post));
        }
        for v in 0..6u8 {
            inputs.push(input(2, 20, &[v], &[1]));
        }
        for v in 0..8u8 {
            inputs.push(input(3, 20, &[v], &[1, 0, 3]));
            if v < 2 {
                inputs.push(input(3, 20, &[v], &[0, 1, 3]));
            }
        }
        for v in 0..11u8 {
            let mut post = vec![6, 20, 0xff, 0xff, 0xff, 0xff, v];
            post.extend_from_slice(&[0; 4]);
            inputs.push(input(4, 0, &[], &post));
        }
        for v in 0..7u8 {
            inputs.push(input(5, 24, &[v], &[]));
        }
        // `SCALE_INPUTS=DIR` writes the inputs there (to time them in the fuzz target, which
        // has debug assertions on) instead of running them.
        if let Some(dir) = std::env::var_os("SCALE_INPUTS") {
            for b in &inputs {
                let c = case(&mut Unstructured::new(b), MAX_SIZE).unwrap();
                let name = format!("{}-{}", c.shape.replace('/', "-"), crate::regress::hex(b));
                std::fs::write(std::path::Path::new(&dir).join(name), b).unwrap();
            }
            return;
        }
        for b in inputs {
            let t0 = std::time::Instant::now();
            let c = case(&mut Unstructured::new(&b), MAX_SIZE).unwrap();
            let t1 = std::time::Instant::now();
            check(&c);
            let t2 = std::time::Instant::now();
            println!(
                "{:24} size {:>9} text {:>9} B  generate {:>7.3} s  check {:>7.3} s  ({:?})",
                c.shape,
                c.size,
                c.text.len(),
                (t1 - t0).as_secs_f64(),
                (t2 - t1).as_secs_f64(),
                c.expect,
            );
        }
    }
}
