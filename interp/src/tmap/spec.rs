//! `tmap:` descriptions: a tensor map as a launch argument (the arguments of
//! `cuTensorMapEncodeTiled`, `...Im2col` or `...Im2colWide` over another argument's buffer).

use super::{Atom, ElemType, Im2col, Im2colMode, TensorMap, TensorMapError};

/// A tensor map as a launch argument: the description with the global address given as
/// "the buffer of argument `buffer`, plus `offset` bytes".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMapArg {
    /// Index of the launch argument whose buffer holds the tensor.
    pub buffer: usize,
    /// Byte offset of element 0 in that buffer.
    pub offset: u64,
    /// The rest of the description (`addr` is filled in at launch).
    pub map: TensorMap,
}

fn list<T: std::str::FromStr>(v: &str) -> Result<Vec<T>, String> {
    v.split(['x', ':'])
        .map(|p| {
            p.trim()
                .parse::<T>()
                .map_err(|_| format!("bad number `{p}`"))
        })
        .collect()
}

fn signed_list(v: &str) -> Result<Vec<i32>, String> {
    v.split(':')
        .map(|p| {
            p.trim()
                .parse::<i32>()
                .map_err(|_| format!("bad corner `{p}`"))
        })
        .collect()
}

impl TensorMapArg {
    /// Parses `buf=ARG,type=f16,dims=D0xD1..,strides=S1x..,box=B0xB1..[,estrides=E0x..]
    /// [,swizzle=0|32|64|96|128][,atom=16|32|32flip|64][,interleave=0|16|32][,fill=zero|nan]
    /// [,offset=BYTES]` (the part after `tmap:`). `type` is an [`ElemType`] name, the sub-byte
    /// types `b4x16`, `b4x16_p64` and `b6x16_p32` counting (4- or 6-bit) elements; `atom` is the
    /// 128-byte swizzle's atomicity (16 unless given).
    /// `strides` lists the byte strides of dimensions 1..rank; omitted, the tensor is packed.
    /// An im2col map has `mode=im2col|im2col_w|im2col_w128,cpp=N,ppc=N[,lower=W:H:D]
    /// [,upper=W:H:D]` instead of `box` (corners in W, H, D order, `:`-separated, signed).
    pub fn parse(s: &str) -> Result<TensorMapArg, TensorMapError> {
        TensorMapArg::parse_fields(s).map_err(TensorMapError::Spec)
    }

    fn parse_fields(s: &str) -> Result<TensorMapArg, String> {
        let mut buffer = None;
        let mut elem = None;
        let mut dims: Vec<u32> = Vec::new();
        let mut strides: Option<Vec<u64>> = None;
        let mut boxd: Vec<u32> = Vec::new();
        let mut es: Option<Vec<u32>> = None;
        let mut swizzle = 0;
        let mut atom = Atom::B16;
        let mut nan = false;
        let mut interleave = 0;
        let mut offset = 0;
        let mut mode = None;
        let (mut lower, mut upper): (Vec<i32>, Vec<i32>) = (Vec::new(), Vec::new());
        let (mut cpp, mut ppc) = (None, None);
        for kv in s.split(',') {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("bad tensor-map field `{kv}` (expected KEY=VALUE)"))?;
            match k.trim() {
                "buf" => buffer = Some(v.parse::<usize>().map_err(|_| format!("bad buf `{v}`"))?),
                "type" => {
                    elem = Some(
                        ElemType::parse(v.trim())
                            .ok_or_else(|| format!("unknown tensor-map type `{v}`"))?,
                    )
                }
                "dims" => dims = list(v)?,
                "strides" => strides = Some(list(v)?),
                "box" => boxd = list(v)?,
                "estrides" => es = Some(list(v)?),
                "swizzle" => {
                    swizzle = v
                        .trim_end_matches('B')
                        .parse()
                        .map_err(|_| format!("bad swizzle `{v}`"))?
                }
                "atom" => {
                    atom = Atom::parse(v.trim_end_matches('B'))
                        .ok_or_else(|| format!("bad atom `{v}` (16, 32, 32flip or 64)"))?
                }
                "fill" => {
                    nan = match v {
                        "zero" => false,
                        "nan" => true,
                        _ => return Err(format!("bad fill `{v}` (zero or nan)")),
                    }
                }
                "offset" => offset = v.parse().map_err(|_| format!("bad offset `{v}`"))?,
                "interleave" => {
                    interleave = v
                        .trim_end_matches('B')
                        .parse()
                        .map_err(|_| format!("bad interleave `{v}`"))?
                }
                "mode" => {
                    mode = match v {
                        "tile" => None,
                        "im2col" => Some(Im2colMode::Box),
                        "im2col_w" => Some(Im2colMode::Wide),
                        "im2col_w128" => Some(Im2colMode::Wide128),
                        _ => {
                            return Err(format!(
                                "bad mode `{v}` (tile, im2col, im2col_w or im2col_w128)"
                            ))
                        }
                    }
                }
                "lower" => lower = signed_list(v)?,
                "upper" => upper = signed_list(v)?,
                "cpp" => cpp = Some(v.parse().map_err(|_| format!("bad cpp `{v}`"))?),
                "ppc" => ppc = Some(v.parse().map_err(|_| format!("bad ppc `{v}`"))?),
                _ => return Err(format!("unknown tensor-map field `{k}`")),
            }
        }
        let elem = elem.ok_or("tensor map without `type=`")?;
        let rank = dims.len();
        let im2col = match mode {
            None => {
                if !(1..=5).contains(&rank) || boxd.len() != rank {
                    return Err("tensor map needs 1 to 5 `dims` and as many `box` sizes".into());
                }
                None
            }
            Some(mode) => {
                if !boxd.is_empty() {
                    return Err("an im2col tensor map has `cpp` and `ppc`, not `box`".into());
                }
                let corners = if mode == Im2colMode::Box {
                    rank.saturating_sub(2)
                } else {
                    1
                };
                let corner = |v: &[i32], what: &str| -> Result<[i32; 3], String> {
                    if v.len() > corners {
                        return Err(format!("`{what}` takes {corners} corners for this map"));
                    }
                    let mut c = [0; 3];
                    c[..v.len()].copy_from_slice(v);
                    Ok(c)
                };
                Some(Im2col {
                    mode,
                    lower: corner(&lower, "lower")?,
                    upper: corner(&upper, "upper")?,
                    cpp: cpp.ok_or("an im2col tensor map needs `cpp=`")?,
                    ppc: ppc.ok_or("an im2col tensor map needs `ppc=`")?,
                })
            }
        };
        if !(1..=5).contains(&rank) {
            return Err("tensor map needs 1 to 5 `dims`".into());
        }
        let mut map = TensorMap {
            elem,
            rank: rank as u32,
            addr: 0,
            dims: [1; 5],
            strides: [0; 4],
            boxdim: [1; 5],
            estrides: [1; 5],
            swizzle,
            atom,
            nan_fill: nan,
            im2col,
            interleave,
        };
        map.dims[..rank].copy_from_slice(&dims);
        if map.im2col.is_some() {
            map.boxdim = [0; 5];
        } else {
            map.boxdim[..rank].copy_from_slice(&boxd);
        }
        match strides {
            Some(st) => {
                if st.len() != rank - 1 {
                    return Err(format!(
                        "a rank-{rank} tensor map takes {} strides",
                        rank - 1
                    ));
                }
                map.strides[..rank - 1].copy_from_slice(&st);
            }
            None => {
                let mut s = elem.span(dims[0] as u64);
                for i in 1..rank {
                    if i > 1 {
                        s = s
                            .checked_mul(dims[i - 1] as u64)
                            .ok_or("the packed tensor's strides pass 2^64 bytes")?;
                    }
                    map.strides[i - 1] = s;
                }
            }
        }
        if let Some(e) = es {
            if e.len() != rank {
                return Err("`estrides` needs one entry per dimension".into());
            }
            map.estrides[..rank].copy_from_slice(&e);
        }
        Ok(TensorMapArg {
            buffer: buffer.ok_or("tensor map without `buf=`")?,
            offset,
            map,
        })
    }
}
