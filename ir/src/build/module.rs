//! [`ModuleBuilder`]: the header, module-scope variables and functions.

use super::names::check_identifier;
use super::types::{BuildError, Var};
use crate::module::{Declarator, Init, Item, Module, Target, VarDecl, Version};
use crate::names::{Interner, Name};
use crate::visit::renumber_names;
use crate::vocab::{Space, Type};
use rustc_hash::FxHashSet;
use smallvec::smallvec;

/// Builds a [`Module`]: header, module-scope variables, and functions through
/// [`FunctionBuilder`](super::FunctionBuilder)s. See the [module documentation](super) for an example.
#[derive(Debug)]
pub struct ModuleBuilder {
    pub(super) module: Module,
    /// Module-scope names: functions and variables. Function-scope names may not reuse them,
    /// so that no name has two meanings in one function.
    pub(super) symbols: FxHashSet<Name>,
    /// Functions begun so far; numbers the fresh labels of each function apart.
    pub(super) begun: u32,
}

impl ModuleBuilder {
    /// A module for PTX ISA `version` and `target`, with `.address_size 64`.
    pub fn new(version: Version, target: Target) -> ModuleBuilder {
        ModuleBuilder {
            module: Module::new(version, vec![target], Some(64)),
            symbols: FxHashSet::default(),
            begun: 0,
        }
    }

    /// Appends a `.target` entry (`Target::Debug`, a second architecture).
    pub fn target(&mut self, target: Target) -> &mut Self {
        self.module.target.push(target);
        self
    }

    /// Sets `.address_size`: 32, 64, or `None` to leave the directive out.
    pub fn address_size(&mut self, bits: Option<u32>) -> Result<&mut Self, BuildError> {
        if !matches!(bits, None | Some(32 | 64)) {
            return Err(BuildError::Misuse {
                reason: "the address size is 32 or 64",
            });
        }
        self.module.address_size = bits;
        Ok(self)
    }

    /// Interns a name without declaring it (for operands and declarations built by hand).
    pub fn intern(&mut self, s: &str) -> Name {
        self.module.names.intern(s)
    }

    /// The module's names so far.
    pub fn names(&self) -> &Interner {
        &self.module.names
    }

    /// The module built so far (finished functions and variables).
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// Declares a module-scope scalar variable: `.global .f32 name;`.
    pub fn global(&mut self, space: Space, ty: Type, name: &str) -> Result<Var, BuildError> {
        self.declare(space, ty, name, smallvec![], None)
    }

    /// Declares a module-scope array `.<space> .<ty> name[len]`, optionally initialised
    /// (`.const .u32 table[4] = {1, 2, 3, 4};`).
    pub fn array(
        &mut self,
        space: Space,
        ty: Type,
        name: &str,
        len: u64,
        init: Option<Init>,
    ) -> Result<Var, BuildError> {
        self.declare(space, ty, name, smallvec![Some(len)], init)
    }

    fn declare(
        &mut self,
        space: Space,
        ty: Type,
        name: &str,
        dims: smallvec::SmallVec<[Option<u64>; 1]>,
        init: Option<Init>,
    ) -> Result<Var, BuildError> {
        let n = self.symbol(name)?;
        self.module.items.push(Item::Variable(Box::new(VarDecl {
            linkage: None,
            space,
            attributes: Vec::new(),
            align: None,
            vector: None,
            ty,
            names: smallvec::smallvec![Declarator {
                name: n,
                range: None,
                dims,
                init,
            }],
        })));
        self.symbols.insert(n);
        Ok(Var { name: n, space, ty })
    }

    /// Adds a module-scope declaration built by hand; its names must be fresh identifiers
    /// interned with [`ModuleBuilder::intern`].
    pub fn variable(&mut self, decl: VarDecl) -> Result<(), BuildError> {
        for d in &decl.names {
            let s = self.spelling(d.name)?;
            check_identifier(&s)?;
            if self.symbols.contains(&d.name) {
                return Err(BuildError::Duplicate { name: s });
            }
        }
        self.symbols.extend(decl.names.iter().map(|d| d.name));
        self.module.items.push(Item::Variable(Box::new(decl)));
        Ok(())
    }

    /// The module, with names renumbered into print order: it equals the module read back
    /// from its printed text.
    pub fn finish(mut self) -> Module {
        // Every name the builder wrote came from this interner.
        let _ = renumber_names(&mut self.module);
        self.module
    }

    /// Interns a fresh module-scope name.
    pub(super) fn symbol(&mut self, name: &str) -> Result<Name, BuildError> {
        check_identifier(name)?;
        let n = self.module.names.intern(name);
        if self.symbols.contains(&n) {
            return Err(BuildError::Duplicate {
                name: name.to_string(),
            });
        }
        Ok(n)
    }

    pub(super) fn spelling(&self, n: Name) -> Result<String, BuildError> {
        self.module
            .names
            .try_get(n)
            .map(str::to_string)
            .ok_or(BuildError::ForeignName(n.index()))
    }
}
