//! The compression stage applied to each section (see `FORMAT.md`, "Compression").

use std::cell::RefCell;

/// How the sections of a file are stored.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Codec {
    /// Uncompressed: the sections are the bincode bytes.
    Stored,
    /// Each section is one zstd frame (level −1, no dictionary).
    Zstd,
}

/// The zstd level the encoder uses: the fastest that keeps every corpus folder's bytecode under
/// 30% of its PTX text (levels 3 to −5 and LZ4 are compared in `FORMAT.md`, "Compression").
pub(crate) const ZSTD_LEVEL: i32 = -1;

impl Codec {
    /// The codec [`crate::encode`] uses.
    pub const DEFAULT: Codec = Codec::Zstd;

    /// The header byte.
    pub fn id(self) -> u8 {
        match self {
            Codec::Stored => 0,
            Codec::Zstd => 1,
        }
    }

    /// The codec with header byte `id`.
    pub fn from_id(id: u8) -> Option<Codec> {
        match id {
            0 => Some(Codec::Stored),
            1 => Some(Codec::Zstd),
            _ => None,
        }
    }
}

/// Appends `raw`, compressed with `codec`, to `out`; returns whether it compressed. It appends
/// `raw` as is (and returns false) when the codec stores, when compression does not shrink it,
/// or when decoding would expand it by more than `max_ratio` (so that the default decoder limits
/// accept every encoder output).
pub(crate) fn compress(codec: Codec, raw: &[u8], out: &mut Vec<u8>, max_ratio: u32) -> bool {
    let packed = match codec {
        Codec::Stored => None,
        Codec::Zstd => zstd::bulk::compress(raw, ZSTD_LEVEL).ok(),
    };
    match packed {
        Some(c) if c.len() < raw.len() && raw.len() as u64 <= c.len() as u64 * max_ratio as u64 => {
            out.extend_from_slice(&c);
            true
        }
        _ => {
            out.extend_from_slice(raw);
            false
        }
    }
}

/// Decompresses `src` into `out`, which must come out exactly `raw_len` bytes long. Writes at
/// most `raw_len` bytes (which the caller has bounded) or the capacity `out` already has, and
/// allocates nothing proportional to anything else.
pub(crate) fn decompress_into(
    codec: Codec,
    src: &[u8],
    raw_len: usize,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    out.clear();
    match codec {
        Codec::Stored => out.extend_from_slice(src),
        Codec::Zstd => {
            out.reserve(raw_len);
            DCTX.with(|d| {
                let mut d = d.borrow_mut();
                if d.is_none() {
                    *d = Some(zstd::bulk::Decompressor::new().map_err(|e| e.to_string())?);
                }
                let Some(d) = d.as_mut() else {
                    return Err("no zstd context".to_string());
                };
                d.decompress_to_buffer(src, out)
                    .map(drop)
                    .map_err(|e| e.to_string())
            })?;
        }
    }
    if out.len() != raw_len {
        return Err(format!(
            "decompressed to {} bytes, the header says {raw_len}",
            out.len()
        ));
    }
    Ok(())
}

/// Largest decompression buffer kept for the next decode on the same thread.
const KEEP_SCRATCH: usize = 8 << 20;

thread_local! {
    // Creating a zstd context costs about as much as decompressing a small section, and a
    // fresh buffer is paged in and zeroed by the kernel: both are kept per thread.
    static DCTX: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The thread's decompression buffer (empty if another decode holds it).
pub(crate) fn take_scratch() -> Vec<u8> {
    SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()))
}

/// Gives the buffer back for the next decode, unless it grew past [`KEEP_SCRATCH`].
pub(crate) fn keep_scratch(v: Vec<u8>) {
    if v.capacity() <= KEEP_SCRATCH {
        SCRATCH.with(|s| *s.borrow_mut() = v);
    }
}

/// Frees the thread's decompression context and buffer (kept between decodes, at most about
/// 8 MiB and zstd's context).
pub fn release_thread_scratch() {
    DCTX.with(|d| *d.borrow_mut() = None);
    SCRATCH.with(|s| *s.borrow_mut() = Vec::new());
}
