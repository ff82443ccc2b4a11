//! Shrinking a failing program: narrower stores, fewer nodes and regions, a smaller launch, as
//! long as the program still fails the same way.

use super::check::check;
use crate::run::Failure;
use ptx_ir_smith::model::{Node, Program};

/// Whether `p` fails the same way as `f` did (same kind of failure).
fn fails_like(p: &Program, f: &Failure) -> Option<Failure> {
    match check(p) {
        Err(g) if g.kind() == f.kind() => Some(g),
        _ => None,
    }
}

/// Every way of removing one node (or unwrapping one region) from `ns`.
fn variants(ns: &[Node]) -> Vec<Vec<Node>> {
    let mut out = Vec::new();
    for k in 0..ns.len() {
        let mut v = ns.to_vec();
        v.remove(k);
        out.push(v);
        match &ns[k] {
            Node::If { cond, then, els } => {
                for (arm, other) in [(then, false), (els, true)] {
                    let mut v = ns.to_vec();
                    v.splice(k..=k, arm.iter().cloned());
                    out.push(v);
                    let _ = other;
                }
                for sub in variants(then) {
                    let mut v = ns.to_vec();
                    v[k] = Node::If {
                        cond: *cond,
                        then: sub,
                        els: els.clone(),
                    };
                    out.push(v);
                }
                for sub in variants(els) {
                    let mut v = ns.to_vec();
                    v[k] = Node::If {
                        cond: *cond,
                        then: then.clone(),
                        els: sub,
                    };
                    out.push(v);
                }
            }
            Node::Loop { trips, body } => {
                let mut v = ns.to_vec();
                v.splice(k..=k, body.iter().cloned());
                out.push(v);
                for sub in variants(body) {
                    let mut v = ns.to_vec();
                    v[k] = Node::Loop {
                        trips: *trips,
                        body: sub,
                    };
                    out.push(v);
                }
            }
            Node::Switch { sel, arms } => {
                for (a, arm) in arms.iter().enumerate() {
                    let mut v = ns.to_vec();
                    v.splice(k..=k, arm.iter().cloned());
                    out.push(v);
                    for sub in variants(arm) {
                        let mut v = ns.to_vec();
                        let mut arms2 = arms.clone();
                        arms2[a] = sub;
                        v[k] = Node::Switch {
                            sel: *sel,
                            arms: arms2,
                        };
                        out.push(v);
                    }
                }
            }
            Node::Inst(_) | Node::Barrier(_) => {}
        }
    }
    out
}

/// Shrinks a failing program: narrower stores, fewer nodes, a smaller launch.
pub fn shrink(p: &Program, f: &Failure) -> (Program, Failure) {
    let mut best = p.clone();
    let mut fail = f.clone();
    let mut budget = 400;
    if let Failure::Reference { regs, .. } = &fail {
        let mut q = best.clone();
        q.outputs = regs.clone();
        if let Some(g) = fails_like(&q, &fail) {
            best = q;
            fail = g;
        }
    }
    if best.exit.is_some() {
        let mut q = best.clone();
        q.exit = None;
        if let Some(g) = fails_like(&q, &fail) {
            best = q;
            fail = g;
        }
    }
    for (grid, block) in [(1, best.block), (1, 32)] {
        let mut q = best.clone();
        q.grid = grid;
        q.block = block.min(best.block);
        if q != best {
            if let Some(g) = fails_like(&q, &fail) {
                best = q;
                fail = g;
            }
        }
    }
    let mut progress = true;
    while progress && budget > 0 {
        progress = false;
        for body in variants(&best.body) {
            budget -= 1;
            if budget == 0 {
                break;
            }
            let mut q = best.clone();
            q.body = body;
            if let Some(g) = fails_like(&q, &fail) {
                best = q;
                fail = g;
                progress = true;
                break;
            }
        }
    }
    if let Failure::Reference { regs, .. } = &fail {
        let mut q = best.clone();
        q.outputs = regs.clone();
        if let Some(g) = fails_like(&q, &fail) {
            best = q;
            fail = g;
        }
    }
    (best, fail)
}
