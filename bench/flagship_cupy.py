#!/usr/bin/env python3
"""The flagship's reference in CuPy (cuFFT): read a P5 PGM, fft2, the low-pass of
kernels/fft.cl (keep the coefficients whose frequencies min(u, n-u), min(v, n-v) have
fu^2 + fv^2 <= CUT^2), ifft2, the real part, rounded and clamped to 0..255, written as a P5
PGM. One warm-up call, then RUNS timed calls in the same (warm) process, each reading the
picture and writing the result; prints each call's wall time in ms, one a line.

    bench/flagship_cupy.py IMAGE OUT CUT RUNS

Exit status 3 when cupy cannot be imported (the caller skips the reference).
"""
import sys
import time

try:
    import cupy as cp
    import numpy as np
except ImportError as exc:
    print(f"flagship_cupy.py: {exc}", file=sys.stderr)
    sys.exit(3)


def read_pgm(path):
    with open(path, "rb") as f:
        data = f.read()
    fields, at = [], 0
    while len(fields) < 4:  # magic, width, height, maxval; '#' comments skipped
        while data[at:at + 1].isspace():
            at += 1
        if data[at:at + 1] == b"#":
            at = data.index(b"\n", at)
            continue
        start = at
        while not data[at:at + 1].isspace():
            at += 1
        fields.append(data[start:at])
    if fields[0] != b"P5" or int(fields[3]) > 255:
        raise SystemExit(f"{path}: not an 8-bit P5 PGM")
    w, h = int(fields[1]), int(fields[2])
    return np.frombuffer(data, np.uint8, w * h, at + 1).reshape(h, w)


def lowpass(img, cut):
    n = img.shape[0]
    spec = cp.fft.fft2(cp.asarray(img, dtype=cp.float32))
    f = cp.arange(n)
    f = cp.minimum(f, n - f)
    spec *= (f[:, None] ** 2 + f[None, :] ** 2) <= cut * cut
    real = cp.fft.ifft2(spec).real  # ifft2 scales by 1/n^2 as fft_real does
    # PGM output as carsh writes it: halves away from zero (the values are >= 0 once clamped)
    return cp.asnumpy(cp.clip(cp.floor(real + 0.5), 0, 255).astype(cp.uint8))


def call(image, out, cut):
    res = lowpass(read_pgm(image), cut)
    with open(out, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (res.shape[1], res.shape[0]))
        f.write(res.tobytes())


def main():
    image, out, cut, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    call(image, out, cut)  # warm-up: cuFFT plans, kernels
    for _ in range(runs):
        t0 = time.perf_counter()
        call(image, out, cut)
        cp.cuda.Device().synchronize()
        print(f"{(time.perf_counter() - t0) * 1e3:.3f}")


main()
