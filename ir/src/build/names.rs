//! Spelling rules for built names: PTX identifiers, and the register classes whose fresh names
//! (`%r7`, `%rd2`) the builder reserves.

use super::types::BuildError;
use crate::special::SpecialReg;
use crate::vocab::Type;

/// A register class: the prefix of its fresh names and the type of its declaration. One class
/// per width and kind, as nvcc does, so declarations stay few and every value has a register of
/// a type `ptxas` accepts for it (bit types match any type of their width).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct RegClass {
    pub prefix: &'static str,
    pub decl: Type,
}

pub(crate) const CLASSES: &[RegClass] = &[
    RegClass {
        prefix: "%p",
        decl: Type::Pred,
    },
    RegClass {
        prefix: "%rs",
        decl: Type::B16,
    },
    RegClass {
        prefix: "%r",
        decl: Type::B32,
    },
    RegClass {
        prefix: "%rd",
        decl: Type::B64,
    },
    RegClass {
        prefix: "%rq",
        decl: Type::B128,
    },
    RegClass {
        prefix: "%f",
        decl: Type::F32,
    },
    RegClass {
        prefix: "%fd",
        decl: Type::F64,
    },
];

/// The class holding values of `ty`.
pub(crate) fn class_of(ty: Type) -> Result<RegClass, BuildError> {
    let i = match ty {
        Type::Pred => 0,
        Type::F32 => 5,
        Type::F64 => 6,
        Type::B1024 | Type::Texref | Type::Samplerref | Type::Surfref => {
            return Err(BuildError::NoRegisterClass(ty))
        }
        _ => match ty.bits() {
            // Sub-word values (`.u8` loads, `.e4m3`) live in 16-bit registers.
            0..=16 => 1,
            17..=32 => 2,
            33..=64 => 3,
            65..=128 => 4,
            _ => return Err(BuildError::NoRegisterClass(ty)),
        },
    };
    Ok(CLASSES[i])
}

fn is_follow(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// Checks that `s` is a PTX identifier the reader reads back as the same name: a letter then
/// letters, digits, `_` and `$`; or `_`, `$` or `%` then at least one of those. Special register
/// spellings are refused (the reader would read `%tid` as the special register).
pub(crate) fn check_identifier(s: &str) -> Result<(), BuildError> {
    let bad = |reason| {
        Err(BuildError::BadName {
            name: s.to_string(),
            reason,
        })
    };
    let b = s.as_bytes();
    let Some((&first, rest)) = b.split_first() else {
        return bad("empty name");
    };
    let ok = if first.is_ascii_alphabetic() {
        rest.iter().all(|&c| is_follow(c))
    } else if matches!(first, b'_' | b'$' | b'%') {
        !rest.is_empty() && rest.iter().all(|&c| is_follow(c))
    } else {
        false
    };
    if !ok {
        return bad("not a PTX identifier");
    }
    if SpecialReg::lookup(s).is_some() {
        return bad("the spelling of a special register");
    }
    Ok(())
}

/// Refuses names of the form `<class prefix><digits>`, which fresh allocation hands out, and the
/// prefixes themselves, which the range declarations (`%r<N>`) use.
pub(crate) fn check_not_fresh(s: &str) -> Result<(), BuildError> {
    let stem = s.trim_end_matches(|c: char| c.is_ascii_digit());
    if CLASSES.iter().any(|c| c.prefix == stem) {
        return Err(BuildError::BadName {
            name: s.to_string(),
            reason: "reserved for registers allocated by `reg`",
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        for ok in ["a", "out", "_x", "$L__BB0_1", "%acc", "%r_sum", "k$1"] {
            assert!(check_identifier(ok).is_ok(), "{ok}");
        }
        for bad in [
            "", "_", "%", "1a", "a-b", "a.b", "%tid", "%laneid", "%clock64",
        ] {
            assert!(check_identifier(bad).is_err(), "{bad}");
        }
        assert!(check_not_fresh("%r12").is_err());
        assert!(check_not_fresh("%rd0").is_err());
        assert!(check_not_fresh("%acc").is_ok());
        assert!(check_not_fresh("%r").is_err());
        assert!(check_not_fresh("%rx1").is_ok());
    }

    #[test]
    fn classes() {
        assert_eq!(class_of(Type::U32).unwrap().prefix, "%r");
        assert_eq!(class_of(Type::S64).unwrap().prefix, "%rd");
        assert_eq!(class_of(Type::U8).unwrap().prefix, "%rs");
        assert_eq!(class_of(Type::F16x2).unwrap().prefix, "%r");
        assert_eq!(class_of(Type::F32).unwrap().prefix, "%f");
        assert_eq!(class_of(Type::Pred).unwrap().prefix, "%p");
        assert!(class_of(Type::B1024).is_err());
    }
}
