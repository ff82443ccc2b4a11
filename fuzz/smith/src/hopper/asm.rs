//! [`Asm`]: the PTX text of a protocol kernel under construction — the common prologue for
//! `sm_90a` (buffer addresses, thread and CTA indices), numbered labels, and the epilogues that
//! store per-thread result slots and dump shared memory to the output buffer.

use std::fmt::Write;

/// PTX text under construction: the common prologue, numbered labels, and the epilogue that
/// copies a shared array to the output buffer.
pub struct Asm {
    out: String,
    label: u32,
}

/// Registers every kernel has: `%rin`/`%rout` (buffer addresses), `%tx`, `%cta` (`%ctaid.x`),
/// `%nt` (`%ntid.x`), `%gtid` (global thread index).
impl Asm {
    /// Starts a kernel for `sm_90a`: `directives` go between the parameter list and the body
    /// (`.reqnctapercluster`), `decls` are the body's declarations besides the scratch
    /// registers `%p<16>`, `%h<16>`, `%r<128>`, `%rd<64>`.
    pub fn new(directives: &str, decls: &[String]) -> Asm {
        let mut a = Asm {
            out: String::new(),
            label: 0,
        };
        a.raw(".version 8.7\n.target sm_90a\n.address_size 64\n\n");
        a.raw(".visible .entry k(.param .u64 pin, .param .u64 pout)\n");
        if !directives.is_empty() {
            a.raw(directives);
            a.raw("\n");
        }
        a.raw("{\n");
        for d in [
            ".reg .pred %p<16>;",
            ".reg .b16 %h<16>;",
            ".reg .b32 %r<128>;",
            ".reg .b64 %rd<64>;",
            ".reg .b32 %tx, %cta, %nt, %gtid;",
            ".reg .b64 %rin, %rout;",
        ] {
            a.i(d);
        }
        for d in decls {
            a.i(d);
        }
        for s in [
            "ld.param.u64 %rin, [pin];",
            "ld.param.u64 %rout, [pout];",
            "cvta.to.global.u64 %rin, %rin;",
            "cvta.to.global.u64 %rout, %rout;",
            "mov.u32 %tx, %tid.x;",
            "mov.u32 %cta, %ctaid.x;",
            "mov.u32 %nt, %ntid.x;",
            "mad.lo.u32 %gtid, %cta, %nt, %tx;",
        ] {
            a.i(s);
        }
        a
    }

    fn raw(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// One instruction or declaration.
    pub fn i(&mut self, s: impl AsRef<str>) {
        let _ = writeln!(self.out, "\t{}", s.as_ref());
    }

    /// A fresh label name.
    pub fn label(&mut self) -> String {
        self.label += 1;
        format!("$L{}", self.label)
    }

    /// Places a label.
    pub fn place(&mut self, l: &str) {
        let _ = writeln!(self.out, "{l}:");
    }

    /// Spins until the mbarrier at the shared address in `%r7` completes the phase of parity
    /// `phase & 1` (`try_wait.parity` in a loop, result in `%p2`).
    pub fn wait_phase(&mut self, phase: u32) {
        let l = self.label();
        self.place(&l);
        self.i(format!(
            "mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r7], {};",
            phase & 1
        ));
        self.i(format!("@!%p2 bra {l};"));
    }

    /// Copies `bytes` (a multiple of `16 * block`) from the global address in `%rd22` (plus
    /// `16 * %tx`, which the caller has added) to the shared address in `%r8` (likewise), 16
    /// bytes per thread and round.
    pub fn fill_shared(&mut self, bytes: u32, block: u32) {
        for w in (0..bytes).step_by(16 * block as usize) {
            self.i(format!(
                "ld.global.v4.u32 {{%r10, %r11, %r12, %r13}}, [%rd22+{w}];"
            ));
            self.i(format!(
                "st.shared.v4.u32 [%r8+{w}], {{%r10, %r11, %r12, %r13}};"
            ));
        }
    }

    /// Stores the u32 register `reg` to output byte offset `%gtid * per + at` (a per-thread
    /// result slot); `per` and `at` are multiples of 4.
    pub fn slot(&mut self, reg: &str, per: u32, at: u32) {
        self.i(format!("mul.wide.u32 %rd60, %gtid, {per};"));
        self.i("add.s64 %rd60, %rout, %rd60;");
        self.i(format!("st.global.u32 [%rd60+{at}], {reg};"));
    }

    /// As [`Asm::slot`], for the threads where predicate `pred` holds.
    pub fn slot_if(&mut self, pred: &str, reg: &str, per: u32, at: u32) {
        self.i(format!("mul.wide.u32 %rd60, %gtid, {per};"));
        self.i("add.s64 %rd60, %rout, %rd60;");
        self.i(format!("@{pred} st.global.u32 [%rd60+{at}], {reg};"));
    }

    /// Copies `bytes` (a multiple of 4) of shared memory from the shared address in `base` to
    /// the output at byte `at + %cta * bytes`, word `i` by thread `i % ntid`. The caller makes
    /// the shared memory complete and visible first (a barrier).
    pub fn dump_shared(&mut self, base: &str, bytes: u32, block: u32, at: u64) {
        self.i(format!("mul.wide.u32 %rd61, %cta, {bytes};"));
        self.i(format!("add.s64 %rd61, %rd61, {at};"));
        self.i("add.s64 %rd61, %rout, %rd61;");
        self.i("shl.b32 %r120, %tx, 2;");
        self.i(format!("add.u32 %r121, {base}, %r120;"));
        self.i("mul.wide.u32 %rd62, %tx, 4;");
        self.i("add.s64 %rd62, %rd61, %rd62;");
        for w in (0..bytes / 4).step_by(block as usize) {
            let k = bytes / 4 - w;
            if k < block {
                self.i(format!("setp.lt.u32 %p15, %tx, {k};"));
                self.i(format!("@%p15 ld.shared.u32 %r122, [%r121+{}];", w * 4));
                self.i(format!("@%p15 st.global.u32 [%rd62+{}], %r122;", w * 4));
            } else {
                self.i(format!("ld.shared.u32 %r122, [%r121+{}];", w * 4));
                self.i(format!("st.global.u32 [%rd62+{}], %r122;", w * 4));
            }
        }
    }

    /// Closes the kernel and returns the module text.
    pub fn finish(mut self) -> String {
        self.i("ret;");
        self.raw("}\n");
        self.out
    }
}
