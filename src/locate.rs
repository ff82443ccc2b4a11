//! Where the interpreter's instructions are in the source text: `FILE:LINE:COL` for a finding
//! or an error that names a function and an instruction index.

use ptx_ir::ir::{Item, Module, Statement};
use ptx_ir::text::{self, Spans};

/// A PTX text file read with statement positions, to point into.
pub struct Located {
    src: String,
    module: Module,
    spans: Spans,
}

impl Located {
    /// Reads `path` again with statement positions; `None` for a bytecode file or text that
    /// does not parse (the run itself read it, so only a file changed since would not).
    pub fn read(path: &std::path::Path, max: u64) -> Option<Located> {
        let name = path.display().to_string();
        let bytes = ptx_ir::load::read_input(path, max).ok()?;
        if ptx_ir::binary::is_bytecode(&bytes) {
            return None;
        }
        Located::parse(&bytes, &name)
    }

    /// PTX text `src` (named `name` in errors) with statement positions; `None` if it does not
    /// parse (a vectors case's kernel, which the run itself parsed).
    pub fn parse(src: &[u8], name: &str) -> Option<Located> {
        let (src, module, spans) = text::parse_bytes_with_spans(src, name).ok()?;
        Some(Located {
            src: src.to_string(),
            module,
            spans,
        })
    }

    /// 1-based line and column of instruction `index` of function `function`, counted as the
    /// interpreter counts them: the instructions of the body in pre-order.
    pub fn inst(&self, function: &str, index: u32) -> Option<(usize, usize)> {
        let (item, f) = self
            .module
            .items
            .iter()
            .enumerate()
            .find_map(|(k, it)| match it {
                Item::Function(f)
                    if f.body.is_some() && self.module.names.get(f.name) == function =>
                {
                    Some((k, f))
                }
                _ => None,
            })?;
        // Pre-order without recursion (block depth is the input's): a stack of slices.
        let mut stack: Vec<&[Statement]> = vec![f.statements()?];
        let (mut stmt, mut insts) = (0usize, 0u32);
        while let Some(top) = stack.last_mut() {
            let Some((s, rest)) = top.split_first() else {
                stack.pop();
                continue;
            };
            *top = rest;
            match s {
                Statement::Inst(_) => {
                    if insts == index {
                        let off = self.spans.statement(item, stmt)?;
                        return Some(text::line_col(&self.src, off));
                    }
                    insts += 1;
                }
                Statement::Block(b) => {
                    stmt += 1;
                    stack.push(b);
                    continue;
                }
                _ => {}
            }
            stmt += 1;
        }
        None
    }
}
