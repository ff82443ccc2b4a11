//! Where a generated kernel's data lives: the input buffer (five 16-entry pools, one per
//! register class) and the shared array of the memory family (two buffers of 16-byte slots per
//! thread, then four 8-byte cells). The lowering lays the kernel out this way and the reference
//! semantics reads it the same way.

use super::program::Program;

/// Byte offset of each pool (`H`, `R`, `D`, `F`, `Fd`) in the input buffer.
pub const POOL_OFFSETS: [u32; 5] = [0, 32, 96, 224, 288];
/// Bytes of one thread's slot in each shared buffer.
pub const SLOT: u32 = 16;
/// Byte offset of the second shared buffer (64 threads' slots per buffer).
pub const BUF1: u32 = 64 * SLOT;
/// Byte offset of the four shared 8-byte cells.
pub const CELLS: u32 = 2 * BUF1;
/// Size of the shared array `smem`.
pub const SHARED_LEN: u32 = CELLS + 32;
/// Size of the input buffer.
pub const INPUT_LEN: usize = 416;

/// The input buffer: the five pools, little-endian.
pub fn input(p: &Program) -> Vec<u8> {
    let mut b = vec![0u8; INPUT_LEN];
    let sizes = [2usize, 4, 8, 4, 8];
    for (k, pool) in p.pools.iter().enumerate() {
        for (i, v) in pool.iter().enumerate() {
            let at = POOL_OFFSETS[k] as usize + i * sizes[k];
            b[at..at + sizes[k]].copy_from_slice(&v.to_le_bytes()[..sizes[k]]);
        }
    }
    b
}
