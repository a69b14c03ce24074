#!/usr/bin/env python3
"""Tiles a small uncompressed NIfTI-1 diffusion scan into a whole-brain-sized one, for timing the dMRI pipeline
(`clpk-sshopm dmri`) at realistic voxel counts with real signal. Only numpy is needed (no nibabel on the GPU host).

Usage: dmri_tile.py IN.nii OUT.nii NX NY NZ     (the output has NX x NY x NZ voxels, the input's volumes)
"""
import struct
import sys

import numpy as np

DTYPES = {2: np.uint8, 4: np.int16, 8: np.int32, 16: np.float32, 64: np.float64, 256: np.int8, 512: np.uint16}


def main():
    src, dst = sys.argv[1], sys.argv[2]
    nx, ny, nz = (int(v) for v in sys.argv[3:6])
    raw = open(src, "rb").read()
    if struct.unpack("<i", raw[:4])[0] != 348:
        sys.exit("dmri_tile.py: %s is not a little-endian NIfTI-1 file" % src)
    dim = struct.unpack("<8h", raw[40:56])
    code = struct.unpack("<h", raw[70:72])[0]
    offset = int(struct.unpack("<f", raw[108:112])[0])
    shape = dim[1:1 + dim[0]]
    data = np.frombuffer(raw, dtype=DTYPES[code], count=int(np.prod(shape)), offset=offset)
    data = data.reshape(shape, order="F")
    reps = (-(-nx // shape[0]), -(-ny // shape[1]), -(-nz // shape[2]), 1)
    big = np.tile(data, reps)[:nx, :ny, :nz, :]
    header = bytearray(raw[:348])
    header[40:56] = struct.pack("<8h", 4, nx, ny, nz, shape[3], 1, 1, 1)
    header[108:112] = struct.pack("<f", 352.0)
    with open(dst, "wb") as f:
        f.write(header)
        f.write(b"\0\0\0\0")
        f.write(np.asfortranarray(big).tobytes(order="F"))
    print("%s: %d x %d x %d voxels x %d volumes" % (dst, nx, ny, nz, shape[3]))


if __name__ == "__main__":
    main()
