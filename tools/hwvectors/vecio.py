"""Writing recorded vector files: shared by the generators (gen.py, hopper.py)."""
import lzma
import os
import shutil


def compress_out(out):
    """`--out NAME.xz`: the cases were written to NAME as they ran (a crash or a restarted
    process keeps them); compress NAME into NAME.xz (xz -9, as `ptx vectors` and the tests
    read it) and remove it."""
    with open(out[:-3], "rb") as src, lzma.open(out, "wb", preset=9) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(out[:-3])
