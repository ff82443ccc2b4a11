//! The compression stage applied to each section (see `FORMAT.md`, "Compression").

/// How the sections of a file are stored.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Codec {
    /// Uncompressed: the sections are the bincode bytes.
    Stored,
    /// Each section is one zstd frame (level 3, no dictionary).
    Zstd,
}

/// The zstd level the encoder uses: zstd's default, the best size/speed point measured on the
/// corpus (levels 1, 3, 6 and 19 are compared in `FORMAT.md`).
pub(crate) const ZSTD_LEVEL: i32 = 3;

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

/// Decompresses `src`, which must come out exactly `raw_len` bytes long. Allocates `raw_len`
/// bytes (which the caller has bounded) and nothing proportional to anything else.
pub(crate) fn decompress(codec: Codec, src: &[u8], raw_len: usize) -> Result<Vec<u8>, String> {
    let out = match codec {
        Codec::Stored => src.to_vec(),
        Codec::Zstd => zstd::bulk::decompress(src, raw_len).map_err(|e| e.to_string())?,
    };
    if out.len() != raw_len {
        return Err(format!(
            "decompressed to {} bytes, the header says {raw_len}",
            out.len()
        ));
    }
    Ok(out)
}
