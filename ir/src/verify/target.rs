//! Target and PTX ISA version rules: each instruction, modifier, special register and directive
//! against the module's `.target` and `.version` (or the ones given in [`super::Options`]), and
//! the minimum target and version a module actually needs ([`requirements`]).

use super::diag::{Diagnostic, Location, Options, Rule};
use crate::avail::{self, Need, Sm, SmReq};
use crate::inst::Instruction;
use crate::module::{
    ArchSuffix, FuncDirective, Function, Item, Module, Statement, VarDecl, Version,
};
use crate::operand::Operand;
use crate::special::SpecialReg;
use crate::table::Opcode;
use crate::vocab::{Space, Type};

pub(crate) struct TargetCx {
    sm: Option<Sm>,
    /// The SM `.target` as written (`sm_101a` rather than its new name `sm_110a`).
    written: Option<crate::module::Target>,
    version: Version,
}

/// A `.target` as written (`sm_101a`, `compute_90`).
fn written_name(t: crate::module::Target) -> String {
    let mut s = String::new();
    t.write_text(&mut s);
    s
}

fn ver(v: Version) -> String {
    format!("{}.{}", v.major, v.minor)
}

/// A feature and what it needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Feature {
    /// The feature, e.g. "`ld` with `L2::cache_hint`".
    pub what: String,
    /// Minimum PTX ISA version.
    pub ptx: Version,
    /// Targets.
    pub sm: SmReq,
}

fn inst_feature(inst: &Instruction, need: &Need) -> Feature {
    let what = if need.when.is_empty() {
        format!("`{}`", inst.opcode.name())
    } else if let Some(p) = need.when.strip_prefix('@') {
        format!(
            "`{}` with {}",
            inst.opcode.name(),
            avail::describe_predicate(p)
        )
    } else {
        format!("`{}` with `{}`", inst.opcode.name(), need.when)
    };
    Feature {
        what,
        ptx: need.ptx,
        sm: need.sm,
    }
}

fn specials(o: &Operand, f: &mut impl FnMut(SpecialReg)) {
    match o {
        Operand::Special { reg, .. } => f(*reg),
        Operand::Vector(v) | Operand::Tuple(v) | Operand::Args(v) => {
            v.iter().for_each(|x| specials(x, f))
        }
        Operand::Pair(p) => p.iter().for_each(|x| specials(x, f)),
        Operand::Neg(x) => specials(x, f),
        _ => {}
    }
}

/// Every feature an instruction uses.
pub fn instruction_features(inst: &Instruction) -> Vec<Feature> {
    let mut out: Vec<Feature> = avail::needs(inst)
        .iter()
        .map(|n| inst_feature(inst, n))
        .collect();
    for o in &inst.operands {
        specials(o, &mut |r| {
            let (ptx, sm) = avail::special_need(r);
            out.push(Feature {
                what: format!("special register `{r}`"),
                ptx,
                sm,
            });
        });
    }
    out
}

fn decl_features(v: &VarDecl) -> Vec<Feature> {
    let mut out = Vec::new();
    let feat = |what: &str, major, minor, sm| Feature {
        what: what.to_string(),
        ptx: Version { major, minor },
        sm,
    };
    if v.linkage == Some(crate::module::Linkage::Common) {
        out.push(feat("`.common` variables", 5, 0, SmReq::Min(20)));
    }
    for a in &v.attributes {
        out.push(match a {
            crate::module::Attribute::Managed => {
                feat("`.attribute(.managed)`", 4, 0, SmReq::Min(30))
            }
            crate::module::Attribute::Unified(..) => {
                feat("`.attribute(.unified)`", 8, 0, SmReq::Min(90))
            }
        });
    }
    if v.space == Space::Reg && v.ty == Type::B128 {
        out.push(Feature {
            what: "`.b128` registers".into(),
            ptx: Version { major: 8, minor: 3 },
            sm: SmReq::Min(70),
        });
    }
    out
}

fn function_features(f: &Function) -> Vec<Feature> {
    let mut out = Vec::new();
    for d in &f.directives {
        let (what, ptx, sm) = match d {
            FuncDirective::ReqNctaPerCluster(_) => (".reqnctapercluster", (7, 8), SmReq::Min(90)),
            FuncDirective::ExplicitCluster => (".explicitcluster", (7, 8), SmReq::Min(90)),
            FuncDirective::MaxClusterRank(_) => (".maxclusterrank", (7, 8), SmReq::Min(90)),
            FuncDirective::BlocksAreClusters => (".blocksareclusters", (9, 0), SmReq::Min(90)),
            FuncDirective::AbiPreserve(_) => (".abi_preserve", (9, 0), SmReq::Any),
            FuncDirective::AbiPreserveControl(_) => (".abi_preserve_control", (9, 0), SmReq::Any),
            FuncDirective::NoReturn => (".noreturn", (6, 4), SmReq::Min(30)),
            _ => continue,
        };
        out.push(Feature {
            what: format!("`{what}`"),
            ptx: Version {
                major: ptx.0,
                minor: ptx.1,
            },
            sm,
        });
    }
    out
}

impl TargetCx {
    pub(crate) fn new(m: &Module, opts: &Options) -> TargetCx {
        let written = opts
            .target
            .filter(|&t| Sm::of(t).is_some())
            .or_else(|| m.target.iter().copied().find(|&t| Sm::of(t).is_some()));
        TargetCx {
            sm: written.and_then(Sm::of),
            written,
            version: opts.version.unwrap_or(m.version),
        }
    }

    /// The header of module `m`: its `.version` (and the version checked against, when the
    /// options name another) and its `.target`.
    pub(crate) fn check_header(&self, m: &Module, out: &mut Vec<Diagnostic>) {
        let loc = Location::default();
        let mut versions = vec![m.version];
        if self.version != m.version {
            versions.push(self.version);
        }
        for v in versions {
            if v > crate::avail::LATEST {
                out.push(Diagnostic {
                    rule: Rule::UnknownVersion,
                    location: loc.clone(),
                    inst: None,
                    message: format!(
                        "unsupported `.version {}`: the newest PTX ISA version is {}",
                        ver(v),
                        ver(crate::avail::LATEST)
                    ),
                });
            }
        }
        if m.address_size.is_some() && self.version < avail::ADDRESS_SIZE {
            out.push(Diagnostic {
                rule: Rule::PtxTooOld,
                location: loc.clone(),
                inst: None,
                message: format!(
                    "`.address_size` needs PTX ISA {}; the module declares {}",
                    ver(avail::ADDRESS_SIZE),
                    ver(self.version)
                ),
            });
        }
        let Some(sm) = self.sm else { return };
        if !sm.exists() {
            out.push(Diagnostic {
                rule: Rule::UnknownTarget,
                location: loc,
                inst: None,
                message: format!("`{sm}` is not a target of the PTX ISA"),
            });
        } else {
            let (name, introduced) = match self.written.and_then(Sm::introduced_as_written) {
                Some(v) => (self.written.map_or(sm.to_string(), written_name), v),
                None => (sm.to_string(), sm.introduced()),
            };
            if introduced > self.version {
                out.push(Diagnostic {
                    rule: Rule::TargetNeedsNewerPtx,
                    location: loc,
                    inst: None,
                    message: format!(
                        "`.target {name}` needs PTX ISA {}; the module declares {}",
                        ver(introduced),
                        ver(self.version)
                    ),
                });
            }
        }
    }

    fn feature(&self, f: &Feature, out: &mut Vec<Diagnostic>, loc: &Location) {
        if f.ptx > self.version {
            out.push(Diagnostic {
                rule: Rule::PtxTooOld,
                location: loc.clone(),
                inst: None,
                message: format!(
                    "{} needs PTX ISA {}; the module declares {}",
                    f.what,
                    ver(f.ptx),
                    ver(self.version)
                ),
            });
        }
        if let Some(sm) = self.sm {
            if !sm.satisfies(f.sm) {
                let rule = match f.sm {
                    SmReq::Min(_) => Rule::TargetTooOld,
                    _ => Rule::TargetUnsupported,
                };
                out.push(Diagnostic {
                    rule,
                    location: loc.clone(),
                    inst: None,
                    message: format!("{} needs {}; the target is `{sm}`", f.what, f.sm),
                });
            }
        }
    }

    pub(crate) fn check_instruction(
        &self,
        inst: &Instruction,
        out: &mut Vec<Diagnostic>,
        loc: &Location,
    ) {
        for f in instruction_features(inst) {
            self.feature(&f, out, loc);
        }
        if matches!(inst.opcode, Opcode::Shfl | Opcode::Vote)
            && !inst.has(crate::vocab::Flag::Sync)
            && self.sm.is_some_and(|s| s.arch >= 70)
            && self.version >= (Version { major: 6, minor: 4 })
        {
            out.push(Diagnostic {
                rule: Rule::RemovedInstruction,
                location: loc.clone(),
                inst: None,
                message: format!(
                    "`{}` without `.sync` is not supported on `sm_70` and later from PTX ISA 6.4",
                    inst.opcode.name()
                ),
            });
        }
    }

    pub(crate) fn check_decl(&self, v: &VarDecl, out: &mut Vec<Diagnostic>, loc: &Location) {
        for f in decl_features(v) {
            self.feature(&f, out, loc);
        }
    }

    pub(crate) fn check_function(
        &self,
        f: &Function,
        _m: &Module,
        out: &mut Vec<Diagnostic>,
        loc: &Location,
    ) {
        for feat in function_features(f) {
            self.feature(&feat, out, loc);
        }
    }
}

/// What a module needs: the PTX ISA version, the target requirements, and the lowest target
/// that meets them all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirements {
    /// Minimum PTX ISA version: the features' and the minimum target's.
    pub ptx: Version,
    /// The lowest target (plain before `f` before `a`, older before newer) meeting every
    /// requirement; `None` if no target of the ISA does (e.g. features of two families).
    pub target: Option<Sm>,
    /// The features that set the requirements: the ones needing the highest version, the
    /// highest plain `sm_XX`, or an architecture- or family-specific target; deduplicated.
    pub features: Vec<Feature>,
}

fn walk(body: &[Statement], f: &mut impl FnMut(Feature)) {
    for s in body {
        match s {
            Statement::Inst(i) => instruction_features(i).into_iter().for_each(&mut *f),
            Statement::Decl(d) => decl_features(d).into_iter().for_each(&mut *f),
            Statement::Block(b) => walk(b, f),
            _ => {}
        }
    }
}

/// The minimum target and PTX ISA version `m` needs.
pub fn requirements(m: &Module) -> Requirements {
    let mut all: Vec<Feature> = Vec::new();
    for item in &m.items {
        match item {
            Item::Function(f) => {
                all.extend(function_features(f));
                if let Some(b) = f.statements() {
                    walk(b, &mut |x| all.push(x));
                }
            }
            Item::Variable(v) => all.extend(decl_features(v)),
            _ => {}
        }
    }
    let floor = Version { major: 1, minor: 0 };
    let ptx_needed = all.iter().map(|f| f.ptx).max().unwrap_or(floor);
    let mut candidates: Vec<Sm> = avail::KNOWN
        .iter()
        .flat_map(|&a| {
            [ArchSuffix::None, ArchSuffix::F, ArchSuffix::A]
                .into_iter()
                .map(move |s| Sm::new(a, s))
        })
        .filter(|s| s.exists())
        .collect();
    candidates.sort_by_key(|s| s.portability_key());
    let target = candidates
        .into_iter()
        .find(|s| all.iter().all(|f| s.satisfies(f.sm)));
    let ptx = target.map_or(ptx_needed, |t| ptx_needed.max(t.introduced()));
    let max_min = all
        .iter()
        .filter_map(|f| match f.sm {
            SmReq::Min(n) => Some(n),
            _ => None,
        })
        .max();
    let mut features: Vec<Feature> = Vec::new();
    for f in all {
        let drives = f.ptx == ptx_needed
            || matches!(f.sm, SmReq::Only { .. })
            || (matches!(f.sm, SmReq::Min(n) if Some(n) == max_min));
        if drives && !features.iter().any(|g| g.what == f.what) {
            features.push(f);
        }
    }
    features.sort_by(|a, b| b.ptx.cmp(&a.ptx).then_with(|| a.what.cmp(&b.what)));
    Requirements {
        ptx,
        target,
        features,
    }
}
