//! `ptx-ir`: a toolkit for NVIDIA PTX — a compact typed IR ([`ir`]), a reader and printer for
//! PTX text ([`text`]), a versioned bytecode ([`binary`]), a reference interpreter
//! ([`interp`]), and the `ptx` command-line tool. [`load::load_path`] reads a module from a
//! file in either form.
//!
//! For compiler writers, the IR crate ([`ir`]) has, beside the data types:
//!
//! * [`ir::build`]: a builder for modules, functions, registers, labels and typed instructions,
//!   every instruction checked against the instruction table, so what it builds always prints
//!   to PTX the reader accepts;
//! * [`ir::walk`]: visitors ([`ir::walk::Visit`], [`ir::walk::VisitMut`]), iteration in source
//!   order with statement [paths](ir::walk::Path), and rewriting ([`ir::walk::rewrite`]);
//! * [`ir::defuse`]: which registers an instruction defines and uses, and a def-use index;
//! * [`ir::cfg`]: basic blocks with successors and predecessors.
//!
//! # Parse, rewrite, print
//!
//! Strength reduction: `mul.lo` by a power of two becomes a shift.
//!
//! ```
//! use ptx_ir::ir::walk::for_each_instruction_mut;
//! use ptx_ir::ir::{Flag, Modifier, Opcode, Operand, Type};
//! use ptx_ir::text;
//!
//! let src = ".version 8.0\n.target sm_80\n.address_size 64\n\
//!            .visible .entry k(.param .u32 p)\n{\n\t.reg .b32 %r<3>;\n\
//!            \tld.param.u32 %r1, [p];\n\tmul.lo.u32 %r2, %r1, 8;\n\tret;\n}\n";
//! let mut m = text::parse(src).unwrap();
//! for f in m.functions_mut() {
//!     let Some(body) = f.statements_mut() else { continue };
//!     for_each_instruction_mut(body, &mut |_path, i| {
//!         let pow2 = i.operands.get(2).and_then(Operand::as_int).filter(|v| *v > 0 && v.count_ones() == 1);
//!         if let (Opcode::Mul, [Modifier::Flag(Flag::Lo), Modifier::Type(t)], Some(v)) =
//!             (i.opcode, &i.mods[..], pow2)
//!         {
//!             let bits = if t.bits() == 64 { Type::B64 } else { Type::B32 };
//!             i.opcode = Opcode::Shl;
//!             i.mods = [Modifier::Type(bits)].into_iter().collect();
//!             i.operands[2] = Operand::Int(v.trailing_zeros() as i64);
//!         }
//!     });
//!     // Edits go through the statement tree; back to the compact form, half the memory.
//!     f.body.as_mut().unwrap().compact().unwrap();
//! }
//! let printed = text::print(&m);
//! assert!(printed.contains("shl.b32 %r2, %r1, 3;"));
//! assert_eq!(text::parse(&printed).unwrap(), m);
//! ```
//!
//! A rewrite that removes or reorders the first mention of a name leaves the interner in an
//! order the printer no longer follows; [`ir::visit::renumber_names`] restores it, after which
//! `parse(print(m)) == m` holds again.
//!
//! # Build a kernel and run it
//!
//! ```
//! use ptx_ir::interp::{Arg, Program};
//! use ptx_ir::ir::build::{ModuleBuilder, Sreg};
//! use ptx_ir::ir::{Flag, Space, SpecialReg, Target, Type, Version};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // out[tid] = tid * tid + k
//! let mut mb = ModuleBuilder::new(Version::new(8, 0), Target::sm(80));
//! let mut f = mb.entry("squares")?;
//! let (out, k) = (f.param(Type::U64, "out")?, f.param(Type::U32, "k")?);
//! let [tid, kv, v] = f.regs(Type::U32)?;
//! let [addr, off] = f.regs(Type::U64)?;
//! f.special(tid, Sreg::axis(SpecialReg::Tid, 0))?;
//! f.ld((Space::Param, Type::U32), (kv, k.at(0)))?;
//! f.mad((Flag::Lo, Type::U32), (v, tid, tid, kv))?;
//! f.ld((Space::Param, Type::U64), (addr, out.at(0)))?;
//! f.cvta((Flag::To, Space::Global, Type::U64), (addr, addr))?;
//! f.mul((Flag::Wide, Type::U32), (off, tid, 4))?;
//! f.add(Type::U64, (addr, addr, off))?;
//! f.st((Space::Global, Type::U32), (addr.at(0), v))?;
//! f.ret((), ())?;
//! f.finish()?;
//! let module = mb.finish();
//!
//! // What was built is what the reader reads back.
//! let text = ptx_ir::text::print(&module);
//! assert_eq!(ptx_ir::text::parse(&text)?, module);
//!
//! let run = Program::load(&module)?
//!     .launch("squares")
//!     .block([8, 1, 1])
//!     .args([Arg::Buffer(vec![0; 32]), Arg::u32(100)])
//!     .run()?;
//! let got: Vec<u32> = run.buffers[0]
//!     .chunks(4)
//!     .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
//!     .collect();
//! assert_eq!(got, [100, 101, 104, 109, 116, 125, 136, 149]);
//! # Ok(()) }
//! ```
//!
//! Misuse is an error, not a bad module: `f.mul(Type::U32, (d, a, b))` (an integer `mul` needs
//! `.lo`, `.hi` or `.wide`) returns [`ir::build::BuildError::Invalid`] with the message the
//! reader would give for the same text.
//!
//! # Analyse: def-use and control flow
//!
//! ```
//! use ptx_ir::ir::{cfg::Cfg, defuse::DefUse, walk};
//!
//! let src = ".version 8.0\n.target sm_80\n.address_size 64\n\
//!            .visible .entry k(.param .u32 p)\n{\n\t.reg .b32 %r<3>;\n\t.reg .pred %q;\n\
//!            \tld.param.u32 %r1, [p];\n\tsetp.eq.u32 %q, %r1, 0;\n\t@%q bra END;\n\
//!            \tadd.u32 %r2, %r1, 1;\nEND:\n\tret;\n}\n";
//! let m = ptx_ir::text::parse(src).unwrap();
//! let f = m.function("k").unwrap();
//! let body = f.statements().unwrap();
//!
//! let du = DefUse::of_function(f);
//! let r1 = m.names.find("%r1").unwrap();
//! let def = du.single_def(r1).unwrap();
//! assert_eq!(walk::instruction(body, def).unwrap().opcode, ptx_ir::ir::Opcode::Ld);
//! assert_eq!(du.uses(r1).len(), 2); // setp and add
//!
//! let cfg = Cfg::of_function(f).unwrap();
//! assert_eq!(cfg.blocks().len(), 3);
//! assert_eq!(cfg.block(0).succs, [2, 1]); // branch taken, then fall-through
//! ```
//!
//! # Encode and decode
//!
//! The bytecode ([`binary`]) stores the same IR compactly; decoding checks it and gives back an
//! equal module.
//!
//! ```
//! let src = ".version 8.0\n.target sm_80\n.address_size 64\n\
//!            .visible .entry k()\n{\n\tret;\n}\n";
//! let m = ptx_ir::text::parse(src).unwrap();
//! let bytes = ptx_ir::binary::encode(&m).unwrap();
//! assert!(ptx_ir::binary::is_bytecode(&bytes));
//! assert_eq!(ptx_ir::binary::decode(&bytes).unwrap(), m);
//! // `load` tells the two forms apart by the magic number.
//! let loaded = ptx_ir::load::load_bytes(&bytes, "k.ptxb").unwrap();
//! assert_eq!(loaded.module, m);
//! ```
//!
//! # Stability
//!
//! The public API and the bytecode format follow semantic versioning as described in
//! `docs/VERSIONING.md`; changes are listed in `CHANGELOG.md`.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod load;
pub mod roundtrip;
pub mod vectors;

/// The bytecode encoder and decoder (re-export of `ptx-ir-binary`).
pub use ptx_ir_binary as binary;

/// The reference interpreter (re-export of `ptx-ir-interp`).
pub use ptx_ir_interp as interp;

/// The typed IR (re-export of `ptx-ir-core`).
pub use ptx_ir_core as ir;
/// The reader and printer (re-export of `ptx-ir-text`).
pub use ptx_ir_text as text;
