#!/usr/bin/env python3
"""Writes the small numpy golden files that ascend-runtime/tests/golden.rs checks.

Run from anywhere:  python3 ascend-runtime/tests/data/make_golden.py
The output is deterministic (formulas only, no random numbers); tests/golden.rs hard-codes
the same formulas and checks every value bit for bit.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def out(name):
    return os.path.join(HERE, name)


def main():
    i64 = np.arange(64, dtype=np.float64)
    i48 = np.arange(48, dtype=np.float64)

    # f16: i * 0.5 - 3 for i in 0..64 (all exact in half precision)
    np.save(out("x_f16.npy"), (i64 * 0.5 - 3.0).astype(np.float16))
    # f32: i * 0.1 - 2 for i in 0..48, computed in float64 and rounded once to float32
    np.save(out("x_f32.npy"), (i48 * 0.1 - 2.0).astype(np.float32))
    # the same f16 values as a raw little-endian .bin file, as the vendor samples write them
    (i64 * 0.5 - 3.0).astype(np.float16).tofile(out("x_f16.bin"))
    # 2-D int32: a 3 x 4 matrix, element (r, c) = (r * 4 + c) * 7 - 5
    np.save(out("m_i32.npy"), (np.arange(12, dtype=np.int32) * 7 - 5).reshape(3, 4))
    # bf16 has no numpy dtype: store the raw bits as uint16. i * 0.25 - 4 for i in 0..32 is
    # exact in bf16, so its bits are the top half of the float32 bits.
    b = (np.arange(32, dtype=np.float32) * 0.25 - 4.0).view(np.uint32) >> 16
    np.save(out("x_bf16.npy"), b.astype(np.uint16))
    # big-endian float32: -1.5 * i for i in 0..8
    np.save(out("x_f32_be.npy"), (np.arange(8, dtype=np.float64) * -1.5).astype(">f4"))


if __name__ == "__main__":
    main()
