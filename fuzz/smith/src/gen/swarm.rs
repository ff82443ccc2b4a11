//! [`Swarm`]: the swarm configuration of one test (which families and options may appear).

use crate::model::{SimtFamily, ROUNDINGS};
use arbitrary::{Result, Unstructured};
use ptx_ir_core::Rounding;

/// The swarm configuration of one test: which families and options may appear.
#[derive(Clone, Debug)]
pub struct Swarm {
    /// Enabled families.
    pub families: Vec<SimtFamily>,
    /// Floating-point roundings that may appear.
    pub rnds: Vec<Rounding>,
    /// Whether `.ftz` may appear.
    pub ftz: bool,
    /// Whether `.sat` may appear.
    pub sat: bool,
    /// Whether instructions may be guarded.
    pub guards: bool,
    /// Whether divergent branches may appear.
    pub branches: bool,
    /// Whether loops may appear.
    pub loops: bool,
    /// Whether immediates may appear as sources.
    pub imms: bool,
    /// Whether the float and half families also draw contraction chains
    /// ([`crate::gen::Gen::contract_chain`]).
    pub contract: bool,
    /// Most instructions.
    pub max_insts: usize,
}

impl Swarm {
    /// Draws a configuration: each family and option on or off.
    pub fn arbitrary(u: &mut Unstructured, families: &[SimtFamily]) -> Result<Swarm> {
        let mut fam: Vec<SimtFamily> = Vec::new();
        for &f in families {
            if u.ratio(1, 2)? {
                fam.push(f);
            }
        }
        if fam.is_empty() {
            fam.push(*u.choose(families)?);
        }
        let mut rnds = Vec::new();
        for r in ROUNDINGS {
            if u.ratio(2, 3)? {
                rnds.push(r);
            }
        }
        if rnds.is_empty() {
            rnds.push(Rounding::Rn);
        }
        Ok(Swarm {
            families: fam,
            rnds,
            ftz: u.arbitrary()?,
            sat: u.arbitrary()?,
            guards: u.arbitrary()?,
            branches: u.ratio(2, 3)?,
            loops: u.arbitrary()?,
            imms: u.ratio(2, 3)?,
            max_insts: u.int_in_range(4..=40)?,
            contract: u.arbitrary()?,
        })
    }
}
