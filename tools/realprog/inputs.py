"""Input generation of the real-program suite, shared by suite.py, record.py and triton_suite.py.

Every input buffer is generated from a 64-bit seed with splitmix64, one step per element, so
the inputs never need to be stored: tests/realprog.rs implements the same generators (keep the
two in step; corpus/realprog/README.md describes them; the test `input_generators_are_stable`
pins the first values of each generator for one seed). The seed of a buffer is the FNV-1a 64
hash of `SOURCE/KERNEL#LAUNCH/ARG` (the same for every compile variant of a kernel, so all the
variants of a launch get the same inputs), written into launches.json by suite.py.

Standard library only: this runs on the GPU machine and here.
"""

import struct

MASK = (1 << 64) - 1
FILL = 0xAB  # the byte every output buffer starts with


def fnv1a64(text):
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) & MASK
    return h


class SplitMix64:
    def __init__(self, seed):
        self.s = seed & MASK

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)


def _rne(m, shift):
    q = m >> shift
    rem = m & ((1 << shift) - 1)
    half = 1 << (shift - 1)
    if rem > half or (rem == half and q & 1):
        q += 1
    return q


def f32_to_f16_bits(b):
    """IEEE binary32 bits to binary16 bits, round to nearest even (NaN stays a quiet NaN)."""
    sign = (b >> 16) & 0x8000
    exp = (b >> 23) & 0xFF
    mant = b & 0x7FFFFF
    if exp == 0xFF:
        return sign | 0x7C00 | (0x200 if mant else 0)
    e = exp - 112
    if e >= 31:
        return sign | 0x7C00
    if e <= 0:
        if e < -10:
            return sign
        return sign | _rne(mant | 0x800000, 14 - e)
    return sign | _rne((e << 23) | mant, 13)


def f32_to_bf16_bits(b):
    """binary32 bits to bfloat16 bits, round to nearest even (NaN stays a quiet NaN)."""
    if (b & 0x7FFFFFFF) > 0x7F800000:
        return ((b >> 16) | 0x40) & 0xFFFF
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


# `f32s`, `f16s`: one element in eight is one of these binary32 values.
SPECIALS32 = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFFFFFFF,
              0x00000001, 0x7F7FFFFF]

ELEM = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "f32e": 4, "f16e": 2, "f32s": 4, "f16s": 2,
        "e4m3": 1, "e5m2": 1,
        "u8": 1, "u32": 4, "i32": 4, "u64": 8, "iota32": 4, "const32": 4}


def nbytes(spec):
    g = spec["gen"]
    if g in ("fill", "zeros"):
        return spec["bytes"]
    if g == "hex":
        return len(spec["hex"]) // 2
    return spec["n"] * ELEM[g]


def generate(spec):
    """The initial bytes of a buffer argument (a launches.json `buf` entry)."""
    g = spec["gen"]
    if g == "fill":
        return bytes([FILL]) * spec["bytes"]
    if g == "zeros":
        return bytes(spec["bytes"])
    if g == "hex":
        return bytes.fromhex(spec["hex"])
    n = spec["n"]
    if g == "iota32":
        start, step = int(spec["start"]), int(spec["step"])
        return b"".join(struct.pack("<I", (start + i * step) & 0xFFFFFFFF) for i in range(n))
    if g == "const32":
        return struct.pack("<I", int(spec["value"], 0)) * n
    r = SplitMix64(int(spec["seed"], 16))
    out = bytearray()
    if g in ("f32", "f16", "bf16", "f64"):
        lo, hi = float(spec["lo"]), float(spec["hi"])
        for _ in range(n):
            z = r.next()
            if g == "f64":
                out += struct.pack("<d", lo + (hi - lo) * ((z >> 11) * (1.0 / (1 << 53))))
                continue
            b = f32_bits(lo + (hi - lo) * ((z >> 40) * (1.0 / (1 << 24))))
            if g == "f32":
                out += struct.pack("<I", b)
            elif g == "f16":
                out += struct.pack("<H", f32_to_f16_bits(b))
            else:
                out += struct.pack("<H", f32_to_bf16_bits(b))
    elif g in ("f32e", "f16e", "f32s", "f16s"):
        lo, hi, signed = int(spec["lo"]), int(spec["hi"]), spec.get("signed", True)
        for _ in range(n):
            z = r.next()
            e = lo + (z >> 32) % (hi - lo + 1)
            biased = min(max(e + 127, 0), 254)
            b = (biased << 23) | ((z >> 1) & 0x7FFFFF)
            if signed and z & 1:
                b |= 0x80000000
            if g in ("f32s", "f16s") and (z >> 20) & 7 == 0:
                b = SPECIALS32[(z >> 24) & 7]
            if g in ("f32e", "f32s"):
                out += struct.pack("<I", b)
            else:
                out += struct.pack("<H", f32_to_f16_bits(b))
    elif g in ("e4m3", "e5m2"):
        lo, hi = int(spec["lo"]), int(spec["hi"])
        for _ in range(n):
            z = r.next()
            e = lo + (z >> 32) % (hi - lo + 1)
            if g == "e4m3":
                m = (z >> 1) & 7
                if e == 15 and m == 7:
                    m = 6
                out.append(((z & 1) << 7) | (e << 3) | m)
            else:
                out.append(((z & 1) << 7) | (min(e, 30) << 2) | ((z >> 1) & 3))
    elif g in ("u8", "u32", "i32"):
        lo, hi = int(spec["lo"]), int(spec["hi"])
        size, mask = (1, 0xFF) if g == "u8" else (4, 0xFFFFFFFF)
        for _ in range(n):
            v = (lo + (r.next() >> 32) % (hi - lo)) & mask
            out += v.to_bytes(size, "little")
    elif g == "u64":
        for _ in range(n):
            out += struct.pack("<Q", r.next())
    else:
        raise ValueError("unknown generator %r" % g)
    return bytes(out)


def scalar_bytes(a):
    """The parameter bytes of a scalar argument (a launches.json scalar entry)."""
    t, v = a["type"], a["value"]
    if t == "f32":
        return struct.pack("<f", float(v))
    if t == "f64":
        return struct.pack("<d", float(v))
    size = {"u16": 2, "u32": 4, "i32": 4, "u64": 8, "i64": 8}[t]
    return (int(v, 0) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
