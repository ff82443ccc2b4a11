"""Minimal CUDA driver API through ctypes: load PTX, allocate, build tensor maps, launch.

Used by `hopper.py` and `triton_run.py` on the GPU machine. Only the driver library
(`libcuda.so.1`) is needed; kernels are JIT-compiled from PTX by the driver. Parameters are
passed as raw bytes, so 128-byte `__grid_constant__` tensor maps (`.param .align 64 .b8 p[128]`)
are passed by value like any other parameter.
"""

import ctypes
import struct

# Errors after which the context is unusable (the kernel trapped or faulted).
STICKY = {700, 701, 702, 710, 714, 715, 716, 717, 718, 719, 720}

DTYPES = {"u8": 0, "u16": 1, "u32": 2, "s32": 3, "u64": 4, "s64": 5, "f16": 6, "f32": 7,
          "f64": 8, "bf16": 9, "f32ftz": 10, "tf32": 11, "tf32ftz": 12}
SWIZZLE = {0: 0, 32: 1, 64: 2, 128: 3}
INTERLEAVE = {0: 0, 16: 1, 32: 2}
ELEM_BYTES = {"u8": 1, "u16": 2, "u32": 4, "s32": 4, "u64": 8, "s64": 8, "f16": 2, "f32": 4,
              "f64": 8, "bf16": 2, "f32ftz": 4, "tf32": 4, "tf32ftz": 4}


class CudaError(Exception):
    def __init__(self, code, name, what, log=""):
        super().__init__("%s: %s (%d)%s" % (what, name, code, ("\n" + log) if log else ""))
        self.code = code
        self.sticky = code in STICKY


class LaunchAttribute(ctypes.Structure):
    """CUlaunchAttribute: an id and a 64-byte value."""
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4),
                ("val", ctypes.c_uint32 * 16)]


class LaunchConfig(ctypes.Structure):
    """CUlaunchConfig."""
    _fields_ = [("gx", ctypes.c_uint), ("gy", ctypes.c_uint), ("gz", ctypes.c_uint),
                ("bx", ctypes.c_uint), ("by", ctypes.c_uint), ("bz", ctypes.c_uint),
                ("shared", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(LaunchAttribute)), ("n", ctypes.c_uint)]


class Driver:
    def __init__(self, device=0):
        self.lib = ctypes.CDLL("libcuda.so.1")
        self.device = device
        self._check(self.lib.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self._check(self.lib.cuDeviceGet(ctypes.byref(dev), device), "cuDeviceGet")
        self.dev = dev.value
        self.ctx = None
        self._retain()

    def _retain(self):
        ctx = ctypes.c_void_p()
        self._check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), self.dev),
                    "cuDevicePrimaryCtxRetain")
        self.ctx = ctx
        self._check(self.lib.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")

    def reset(self):
        """Recovers from a sticky error: destroys and recreates the primary context."""
        release = getattr(self.lib, "cuDevicePrimaryCtxRelease_v2", None)
        (release or self.lib.cuDevicePrimaryCtxRelease)(self.dev)
        reset = getattr(self.lib, "cuDevicePrimaryCtxReset_v2", None)
        (reset or self.lib.cuDevicePrimaryCtxReset)(self.dev)
        self._retain()

    def _name(self, code):
        s = ctypes.c_char_p()
        self.lib.cuGetErrorName(code, ctypes.byref(s))
        return s.value.decode() if s.value else "?"

    def _check(self, code, what, log=""):
        if code != 0:
            raise CudaError(code, self._name(code), what, log)

    def name(self):
        """The device's name (cuDeviceGetName)."""
        buf = ctypes.create_string_buffer(256)
        self._check(self.lib.cuDeviceGetName(buf, 256, self.dev), "cuDeviceGetName")
        return buf.value.decode(errors="replace")

    def driver_version(self):
        """cuDriverGetVersion: 13000 for CUDA 13.0."""
        v = ctypes.c_int()
        self._check(self.lib.cuDriverGetVersion(ctypes.byref(v)), "cuDriverGetVersion")
        return v.value

    def attribute(self, attr):
        v = ctypes.c_int()
        self._check(self.lib.cuDeviceGetAttribute(ctypes.byref(v), attr, self.dev),
                    "cuDeviceGetAttribute")
        return v.value

    # ------------------------------------------------------------------ modules

    def load(self, ptx):
        """JIT-compiles a PTX module; returns the CUmodule (errors carry the JIT log)."""
        mod = ctypes.c_void_p()
        logsz = 1 << 14
        log = ctypes.create_string_buffer(logsz)
        opts = (ctypes.c_int * 2)(5, 6)  # CU_JIT_ERROR_LOG_BUFFER, ..._SIZE_BYTES
        vals = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p), ctypes.c_void_p(logsz))
        src = ptx.encode() + b"\0"
        code = self.lib.cuModuleLoadDataEx(ctypes.byref(mod), src, 2, opts, vals)
        self._check(code, "cuModuleLoadDataEx", log.value.decode(errors="replace"))
        return mod

    def unload(self, mod):
        self.lib.cuModuleUnload(mod)

    def function(self, mod, name, shared=0):
        f = ctypes.c_void_p()
        self._check(self.lib.cuModuleGetFunction(ctypes.byref(f), mod, name.encode()),
                    "cuModuleGetFunction")
        if shared > 48 * 1024:
            # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            self._check(self.lib.cuFuncSetAttribute(f, 8, shared), "cuFuncSetAttribute")
        return f

    # ------------------------------------------------------------------ memory

    def alloc(self, data):
        p = ctypes.c_uint64()
        n = max(len(data), 1)
        self._check(self.lib.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(n)), "cuMemAlloc")
        if data:
            self._check(self.lib.cuMemcpyHtoD_v2(p, bytes(data), ctypes.c_size_t(len(data))),
                        "cuMemcpyHtoD")
        else:
            self._check(self.lib.cuMemsetD8_v2(p, 0, ctypes.c_size_t(n)), "cuMemsetD8")
        return p.value

    def read(self, ptr, n):
        buf = ctypes.create_string_buffer(n)
        self._check(self.lib.cuMemcpyDtoH_v2(buf, ctypes.c_uint64(ptr), ctypes.c_size_t(n)),
                    "cuMemcpyDtoH")
        return buf.raw

    def free(self, ptr):
        self.lib.cuMemFree_v2(ctypes.c_uint64(ptr))

    # ------------------------------------------------------------------ tensor maps

    @staticmethod
    def _map_common(desc):
        """The parts of a description both encoders take: rank, element type, a 64-byte
        aligned 128-byte buffer (and its address), globalDim and globalStrides."""
        rank = len(desc["dims"])
        et = desc["type"]
        strides = desc.get("strides")
        if not strides:
            strides, s = [], ELEM_BYTES[et]
            for i in range(1, rank):
                s *= desc["dims"][i - 1]
                strides.append(s)
        raw = ctypes.create_string_buffer(128 + 64)
        base = (ctypes.addressof(raw) + 63) & ~63
        dims = (ctypes.c_uint64 * 5)(*desc["dims"])
        st = (ctypes.c_uint64 * 4)(*(strides + [0] * (4 - len(strides))))
        return rank, et, raw, base, dims, st

    def tensor_map(self, addr, desc):
        """cuTensorMapEncodeTiled from a description (the `tmaps` entries of the vectors
        format); returns the 128 bytes."""
        rank, et, raw, base, dims, st = self._map_common(desc)
        box = (ctypes.c_uint32 * 5)(*desc["box"])
        es = (ctypes.c_uint32 * 5)(*(desc.get("estrides") or [1] * rank))
        fill = 1 if desc.get("fill") == "nan" else 0
        code = self.lib.cuTensorMapEncodeTiled(
            ctypes.c_void_p(base), DTYPES[et], rank, ctypes.c_void_p(addr), dims, st, box, es,
            INTERLEAVE[desc.get("interleave", 0)], SWIZZLE[desc.get("swizzle", 0)], 0, fill)
        self._check(code, "cuTensorMapEncodeTiled")
        return ctypes.string_at(base, 128)

    def tensor_map_im2col(self, addr, desc):
        """cuTensorMapEncodeIm2col from a description with `"mode": "im2col"`: `dims`
        innermost first (C, W[, H[, D]], N), `lower`/`upper` corners in W, H, D order, `cpp`,
        `ppc`, optional `strides`, `estrides`, `swizzle`, `fill`; returns the 128 bytes."""
        rank, et, raw, base, dims, st = self._map_common(desc)
        lower = (ctypes.c_int * 3)(*(list(desc.get("lower", [])) + [0] * 3)[:3])
        upper = (ctypes.c_int * 3)(*(list(desc.get("upper", [])) + [0] * 3)[:3])
        es = (ctypes.c_uint32 * 5)(*(desc.get("estrides") or [1] * rank))
        fill = 1 if desc.get("fill") == "nan" else 0
        code = self.lib.cuTensorMapEncodeIm2col(
            ctypes.c_void_p(base), DTYPES[et], rank, ctypes.c_void_p(addr), dims, st, lower,
            upper, desc["cpp"], desc["ppc"], es, INTERLEAVE[desc.get("interleave", 0)],
            SWIZZLE[desc.get("swizzle", 0)], 0, fill)
        self._check(code, "cuTensorMapEncodeIm2col")
        return ctypes.string_at(base, 128)

    # ------------------------------------------------------------------ launch

    def launch(self, f, grid, block, params, shared=0, cluster=None):
        """params: a list of bytes objects, one per kernel parameter, in order; `cluster`, the
        cluster dimensions, launches through cuLaunchKernelEx."""
        bufs = [ctypes.create_string_buffer(p, len(p)) for p in params]
        arr = (ctypes.c_void_p * max(len(bufs), 1))(
            *[ctypes.cast(b, ctypes.c_void_p) for b in bufs])
        if cluster:
            cfg = LaunchConfig(*grid, *block, shared, None, None, 1)
            attr = LaunchAttribute()
            attr.id = 4  # CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            for i in range(3):
                attr.val[i] = cluster[i]
            cfg.attrs = ctypes.pointer(attr)
            code = self.lib.cuLaunchKernelEx(ctypes.byref(cfg), f, arr, None)
            self._check(code, "cuLaunchKernelEx")
        else:
            code = self.lib.cuLaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1],
                                           block[2], shared, None, arr, None)
            self._check(code, "cuLaunchKernel")
        self._check(self.lib.cuCtxSynchronize(), "cuCtxSynchronize")


def u64(v):
    return struct.pack("<Q", v & (2 ** 64 - 1))


def u32(v):
    return struct.pack("<I", v & 0xFFFFFFFF)


# ---------------------------------------------------------------------- mipmapped textures

ARRAY_FORMAT = {"u8": 0x01, "u16": 0x02, "u32": 0x03, "s8": 0x08, "s16": 0x09, "s32": 0x0A,
                "f16": 0x10, "f32": 0x20}
TEXEL_BYTES = {"u8": 1, "s8": 1, "u16": 2, "s16": 2, "f16": 2, "u32": 4, "s32": 4, "f32": 4}
ADDRESS_MODE = {"wrap": 0, "clamp": 1, "mirror": 2, "border": 3}


class Array3dDesc(ctypes.Structure):
    """CUDA_ARRAY3D_DESCRIPTOR."""
    _fields_ = [("w", ctypes.c_size_t), ("h", ctypes.c_size_t), ("d", ctypes.c_size_t),
                ("fmt", ctypes.c_int), ("ch", ctypes.c_uint), ("flags", ctypes.c_uint)]


class Memcpy3d(ctypes.Structure):
    """CUDA_MEMCPY3D."""
    _fields_ = [("srcX", ctypes.c_size_t), ("srcY", ctypes.c_size_t), ("srcZ", ctypes.c_size_t),
                ("srcLOD", ctypes.c_size_t), ("srcType", ctypes.c_int),
                ("srcHost", ctypes.c_void_p), ("srcDevice", ctypes.c_uint64),
                ("srcArray", ctypes.c_void_p), ("r0", ctypes.c_void_p),
                ("srcPitch", ctypes.c_size_t), ("srcHeight", ctypes.c_size_t),
                ("dstX", ctypes.c_size_t), ("dstY", ctypes.c_size_t), ("dstZ", ctypes.c_size_t),
                ("dstLOD", ctypes.c_size_t), ("dstType", ctypes.c_int),
                ("dstHost", ctypes.c_void_p), ("dstDevice", ctypes.c_uint64),
                ("dstArray", ctypes.c_void_p), ("r1", ctypes.c_void_p),
                ("dstPitch", ctypes.c_size_t), ("dstHeight", ctypes.c_size_t),
                ("width", ctypes.c_size_t), ("height", ctypes.c_size_t),
                ("depth", ctypes.c_size_t)]


class ResourceDesc(ctypes.Structure):
    """CUDA_RESOURCE_DESC with the mipmapped-array member of its 128-byte union."""
    _fields_ = [("type", ctypes.c_int), ("handle", ctypes.c_void_p),
                ("rest", ctypes.c_uint8 * 120), ("flags", ctypes.c_uint)]


class TextureDesc(ctypes.Structure):
    """CUDA_TEXTURE_DESC."""
    _fields_ = [("addr", ctypes.c_int * 3), ("filter", ctypes.c_int), ("flags", ctypes.c_uint),
                ("aniso", ctypes.c_uint), ("mipfilter", ctypes.c_int),
                ("bias", ctypes.c_float), ("minlod", ctypes.c_float),
                ("maxlod", ctypes.c_float), ("border", ctypes.c_float * 4),
                ("reserved", ctypes.c_int * 12)]


def mip_levels(desc):
    """(width, height, depth or planes, bytes) of each level of a mipmapped description: every
    dimension halves (rounding down, at least 1); layers and cube faces do not."""
    dims = list(desc["dims"])
    rank = len(dims)
    tb = TEXEL_BYTES[desc["type"]] * desc["channels"]
    planes = max(desc.get("layers", 0), 1) * (6 if desc.get("cube") else 1)
    out = []
    for k in range(desc["levels"]):
        w = max(dims[0] >> k, 1)
        h = max(dims[1] >> k, 1) if rank > 1 else 1
        d = max(dims[2] >> k, 1) if rank > 2 else planes
        out.append((w, h, d, w * h * d * tb))
    return out


def mipmapped_texture(drv, desc, data):
    """A texture object over a mipmapped CUDA array made from `desc` (the `textures` entries
    of the vectors format with `levels`): the levels lie one after another in `data`, each
    dense. Returns (handle, things to keep alive)."""
    lib = drv.lib
    ty, ch, dims = desc["type"], desc["channels"], list(desc["dims"])
    rank = len(dims)
    layers = desc.get("layers", 0)
    flags = 0
    w, h, d = dims[0], dims[1] if rank > 1 else 0, dims[2] if rank > 2 else 0
    if desc.get("cube"):
        flags |= 4  # CUDA_ARRAY3D_CUBEMAP
        d = 6 * max(layers, 1)
        if layers:
            flags |= 1  # CUDA_ARRAY3D_LAYERED
    elif layers:
        flags |= 1
        d = layers
    ad = Array3dDesc(w, h, d, ARRAY_FORMAT[ty], ch, flags)
    mip = ctypes.c_void_p()
    drv._check(lib.cuMipmappedArrayCreate(ctypes.byref(mip), ctypes.byref(ad), desc["levels"]),
                "cuMipmappedArrayCreate")
    off = 0
    keep = [mip]
    tb = TEXEL_BYTES[ty] * ch
    for k, (lw, lh, ld, nb) in enumerate(mip_levels(desc)):
        arr = ctypes.c_void_p()
        drv._check(lib.cuMipmappedArrayGetLevel(ctypes.byref(arr), mip, k),
                    "cuMipmappedArrayGetLevel")
        chunk = bytes(data[off:off + nb])
        chunk += b"\0" * (nb - len(chunk))
        off += nb
        host = ctypes.create_string_buffer(chunk, nb)
        keep.append(host)
        cp = Memcpy3d()
        cp.srcType, cp.srcHost, cp.srcPitch, cp.srcHeight = 1, ctypes.addressof(host), lw * tb, lh
        cp.dstType, cp.dstArray = 3, arr
        cp.width, cp.height, cp.depth = lw * tb, lh, ld
        drv._check(lib.cuMemcpy3D_v2(ctypes.byref(cp)), "cuMemcpy3D")
    res = ResourceDesc()
    res.type = 1  # CU_RESOURCE_TYPE_MIPMAPPED_ARRAY
    res.handle = mip
    td = TextureDesc()
    addr = desc.get("addr", ["clamp"] * 3)
    for i in range(3):
        td.addr[i] = ADDRESS_MODE[addr[i]]
    td.filter = 1 if desc.get("filter") == "linear" else 0
    tflags = 0
    if desc.get("read", "element") == "element" and ty[0] != "f":
        tflags |= 1  # CU_TRSF_READ_AS_INTEGER
    if desc.get("normalized"):
        tflags |= 2  # CU_TRSF_NORMALIZED_COORDINATES
    if desc.get("trilinopt") is False:
        tflags |= 0x20  # CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION
    if desc.get("seamless"):
        tflags |= 0x40  # CU_TRSF_SEAMLESS_CUBEMAP
    td.flags = tflags
    td.aniso = desc.get("aniso", 0)
    td.mipfilter = 1 if desc.get("mipfilter") == "linear" else 0
    td.bias = desc.get("lodbias", 0.0)
    td.minlod = desc.get("minlod", 0.0)
    td.maxlod = desc.get("maxlod", float(desc["levels"] - 1))
    for i, b in enumerate(desc.get("border", [0.0] * 4)):
        td.border[i] = b
    obj = ctypes.c_uint64()
    drv._check(lib.cuTexObjectCreate(ctypes.byref(obj), ctypes.byref(res), ctypes.byref(td),
                                      None), "cuTexObjectCreate")
    return obj.value, keep

