//! The bytecode form of a section's entries: two byte columns and a list.
//!
//! Debug sections are long runs of `.b8` lines (25,000 in one nvcc file), which serde would
//! decode entry by entry through its visitors, more slowly than the reader reads their text.
//! `Section::entries` is instead serialized as the struct of
//!
//! - `records`: one LEB128 value per entry, in order: 0 is a label, followed by its name
//!   (LEB128); 1 stands for the next element of `data`; 2 is a data line of plain values (the
//!   stable number of its type as a modifier ([`Modifier::code`]), the count, then each value as a tag byte and LEB128:
//!   0 integer (zig-zag), 1 unsigned, 2 symbol (name)); `n + 3` is a `.b8` line of `n` bytes,
//!   the next `n` of `bytes` (a [`SectionEntry::ByteColumn`] is a record of one byte per
//!   line, and runs of such records decode into one).
//! - `bytes`: the bytes of every `.b8` line, end to end.
//! - `data`: the other entries (`.b32 label+4`, ...) through their ordinary serde form, and
//!   one-byte lines not in the reader's form (see `serialize`).
//!
//! Names are checked against the string table as they are read (see
//! [`super::with_decode_bounds`](crate::columns::with_decode_bounds)).

use super::state::{fault, Blob, Bounds, Fault};
use crate::leb;
use ptx_ir_core::module::{SectionBuilder, SectionEntry};
use ptx_ir_core::{Expr, Modifier, Name, Type};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;

#[derive(Serialize, Deserialize)]
struct Columns<'a> {
    #[serde(borrow)]
    records: Blob<'a>,
    #[serde(borrow)]
    bytes: Blob<'a>,
    data: Vec<SectionEntry>,
}

const LABEL: u64 = 0;
const DATA: u64 = 1;
const PLAIN: u64 = 2;
const LINE: u64 = 3;

// Value tags of a plain data line.
const INT: u8 = 0;
const UINT: u8 = 1;
const SYM: u8 = 2;

/// Whether a data line's values all have a tag.
fn plain(values: &[Expr]) -> bool {
    values
        .iter()
        .all(|v| matches!(v, Expr::Int(_) | Expr::Uint(_) | Expr::Sym(_)))
}

/// Whether a data line's values are one integer or name (a [`SectionEntry::Value`]'s).
fn one_value(values: &[Expr]) -> bool {
    matches!(values, [Expr::Int(_) | Expr::Sym(_)])
}

/// The record of a data line of plain values (see [`plain`]).
fn put_plain(records: &mut Vec<u8>, ty: Type, values: &[Expr]) {
    leb::put(records, PLAIN);
    leb::put(records, Modifier::Type(ty).code().into());
    leb::put(records, values.len() as u64);
    for v in values {
        match *v {
            Expr::Int(i) => {
                records.push(INT);
                leb::put_signed(records, i);
            }
            Expr::Uint(u) => {
                records.push(UINT);
                leb::put(records, u);
            }
            Expr::Sym(n) => {
                records.push(SYM);
                leb::put(records, n.index() as u64);
            }
            _ => {}
        }
    }
}

/// Serializes a section's entries as [`Columns`].
pub(crate) fn serialize<S: Serializer>(entries: &[SectionEntry], s: S) -> Result<S::Ok, S::Error> {
    let mut records = Vec::with_capacity(entries.len() + 8);
    let mut bytes = Vec::new();
    let mut data = Vec::new();
    for (k, e) in entries.iter().enumerate() {
        match e {
            SectionEntry::Label(n) => {
                leb::put(&mut records, LABEL);
                leb::put(&mut records, n.index() as u64);
            }
            // A line each, as the text has them, where the decoder gathers them into the same
            // column again: not empty, and no column on either side.
            SectionEntry::ByteColumn(c)
                if !c.is_empty()
                    && !matches!(
                        (k.checked_sub(1).map(|j| &entries[j]), entries.get(k + 1)),
                        (Some(SectionEntry::ByteColumn(_)), _)
                            | (_, Some(SectionEntry::ByteColumn(_)))
                    ) =>
            {
                records.resize(records.len() + c.len(), (LINE + 1) as u8);
                bytes.extend_from_slice(c);
            }
            // One-byte lines not in the reader's form (a `Bytes` of one byte, an empty column,
            // columns side by side): in the data list, so that they decode as they were.
            SectionEntry::ByteColumn(_) => {
                leb::put(&mut records, DATA);
                data.push(e.clone());
            }
            SectionEntry::Bytes(b) if b.len() == 1 => {
                leb::put(&mut records, DATA);
                data.push(e.clone());
            }
            SectionEntry::Bytes(b) => {
                leb::put(&mut records, LINE + b.len() as u64);
                bytes.extend_from_slice(b);
            }
            SectionEntry::Value { ty, value } => {
                put_plain(&mut records, *ty, &[value.to_expr()]);
            }
            // One integer or name in a `Data` (not the reader's form): in the data list, so
            // that it decodes as it was (a plain record of one such value is a `Value`).
            SectionEntry::Data { ty, values } if plain(values) && !one_value(values) => {
                put_plain(&mut records, *ty, values);
            }
            SectionEntry::Data { .. } => {
                leb::put(&mut records, DATA);
                data.push(e.clone());
            }
        }
    }
    Columns {
        records: Blob(Cow::Owned(records)),
        bytes: Blob(Cow::Owned(bytes)),
        data,
    }
    .serialize(s)
}

/// Reads one LEB128 value at `*pos` of a section's records.
fn leb(b: &[u8], pos: &mut usize) -> Result<u64, String> {
    let at = *pos;
    leb::get(b, pos)
        .ok_or_else(|| format!("a bad LEB128 integer at byte {at} of a section's records"))
}

/// A name index, checked against the string table's size.
fn name(b: &[u8], pos: &mut usize, names: u32) -> Result<Name, String> {
    let n = leb(b, pos)?;
    if n >= u64::from(names) {
        return Err(format!(
            "name index {n} outside the string table ({names} names) in a section"
        ));
    }
    Ok(Name::from_index(n as usize))
}

fn decode(c: Columns<'_>) -> Result<Vec<SectionEntry>, String> {
    let (records, bytes) = (&c.records.0[..], &c.bytes.0[..]);
    // Every entry takes at least a byte of records (a short byte line just one).
    let mut out = SectionBuilder::new();
    let mut data = c.data.into_iter();
    let (mut pos, mut at) = (0usize, 0usize);
    let names = Bounds::current().names;
    while pos < records.len() {
        match leb(records, &mut pos)? {
            LABEL => out.push(SectionEntry::Label(name(records, &mut pos, names)?)),
            // The common one-byte line, without the general path's bounds checks.
            n if n == LINE + 1 && at < bytes.len() => {
                out.push_byte(bytes[at]);
                at += 1;
            }
            PLAIN => {
                let d = leb(records, &mut pos)?;
                let ty = match u16::try_from(d).ok().and_then(Modifier::from_code) {
                    Some(Modifier::Type(t)) => t,
                    _ => return Err(format!("data type {d} in a section")),
                };
                let n = leb(records, &mut pos)?;
                // Every value takes at least two bytes.
                if n > (records.len() - pos) as u64 / 2 {
                    return Err(format!("{n} data values in fewer bytes"));
                }
                let mut values = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    let tag = records.get(pos).copied();
                    pos += 1;
                    values.push(match tag {
                        Some(INT) => Expr::Int(leb::signed(leb(records, &mut pos)?)),
                        Some(UINT) => Expr::Uint(leb(records, &mut pos)?),
                        Some(SYM) => Expr::Sym(name(records, &mut pos, names)?),
                        _ => return Err(format!("data value tag {tag:?} in a section")),
                    });
                }
                out.push(SectionEntry::value_or_data(ty, values));
            }
            DATA => match data.next() {
                Some(
                    e @ (SectionEntry::Data { .. }
                    | SectionEntry::Bytes(_)
                    | SectionEntry::ByteColumn(_)),
                ) => out.push_as_is(e),
                Some(_) => return Err("a label or byte line among a section's data entries".into()),
                None => return Err("more section entries than the data list holds".into()),
            },
            n => {
                let len = n - LINE;
                let Some(line) = usize::try_from(len)
                    .ok()
                    .and_then(|len| bytes.get(at..at.checked_add(len)?))
                else {
                    return Err(format!(
                        "a byte line of {len} bytes past the section's bytes"
                    ));
                };
                at += line.len();
                out.push_bytes(line);
            }
        }
    }
    if data.next().is_some() {
        return Err("the section's data list is longer than its records say".into());
    }
    if at != bytes.len() {
        return Err(format!(
            "{} bytes after a section's last byte line",
            bytes.len() - at
        ));
    }
    Ok(out.finish())
}

/// Deserializes [`Columns`] into a section's entries.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<SectionEntry>, D::Error> {
    let c = Columns::deserialize(d)?;
    decode(c).map_err(|m| fault(Fault::Invalid(m)))
}
