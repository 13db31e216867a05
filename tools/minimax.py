#!/usr/bin/env python3
"""Minimax polynomial coefficients for dianran's precise f32 math library.

Writes `ptx/src/math/coeffs.rs` (the only input of the library's polynomials), so every
constant there can be regenerated and checked:

    python3 -m pip install mpmath==1.3.0
    python3 tools/minimax.py > ptx/src/math/coeffs.rs

Each kernel approximates a function F on [lo, hi] as `fixed(x) + sum_i c_i * x^(e_i)` and
minimizes the largest *relative* error |approx - F| / |F| with the Remez exchange algorithm
(60 significant digits). The coefficients are then rounded to f32 one at a time, lowest power
first, re-optimizing the remaining ones after each rounding, so the f32 polynomial stays close to
the best one. The printed error is that of the rounded coefficients in exact arithmetic; the f32
evaluation adds its own rounding, which the accuracy tests measure (`docs/math.md`).
"""

import struct
import sys

from mpmath import mp, mpf, matrix, lu_solve, sin, cos, exp, log, log1p, atan, asin, sinh, tanh
from mpmath import atanh, pi, ln2, sqrt

mp.dps = 60


def to_f32(x):
    return struct.unpack("<f", struct.pack("<f", float(x)))[0]


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", float(x)))[0]


def remez(target, weight, basis, lo, hi, iters=40, grid=3000):
    """Minimizes max |weight(x) * (target(x) - sum c_i basis_i(x))| over [lo, hi]."""
    n = len(basis)
    # Chebyshev extrema as the first reference.
    ref = [(lo + hi) / 2 - (hi - lo) / 2 * mp.cos(mp.pi * j / n) for j in range(n + 1)]
    xs = [lo + (hi - lo) * mpf(k) / (grid - 1) for k in range(grid)]
    # Denser near the ends, where extrema of relative errors crowd.
    xs += [lo + (hi - lo) * mpf(k) / (grid * 40) for k in range(1, 60)]
    xs += [hi - (hi - lo) * mpf(k) / (grid * 40) for k in range(1, 60)]
    xs = sorted(set(xs))
    fx = [target(x) for x in xs]
    wx = [weight(x) for x in xs]
    bx = [[b(x) for b in basis] for x in xs]
    best = None
    for _ in range(iters):
        a = matrix(n + 1, n + 1)
        rhs = matrix(n + 1, 1)
        for j, x in enumerate(ref):
            for i, b in enumerate(basis):
                a[j, i] = b(x)
            a[j, n] = (-1) ** j / weight(x)
            rhs[j] = target(x)
        sol = lu_solve(a, rhs)
        c = [sol[i] for i in range(n)]
        err = [wx[k] * (fx[k] - sum(ci * bi for ci, bi in zip(c, bx[k]))) for k in range(len(xs))]
        m = max(abs(e) for e in err)
        if best is None or m < best[1]:
            best = (c, m)
        # New reference: the extremum of each run of one sign, then the n+1 consecutive
        # extrema holding the largest one.
        runs = []
        k = 0
        while k < len(xs):
            s = err[k] >= 0
            j = k
            top = k
            while j < len(xs) and (err[j] >= 0) == s:
                if abs(err[j]) > abs(err[top]):
                    top = j
                j += 1
            runs.append(top)
            k = j
        if len(runs) < n + 1:
            break
        big = max(range(len(runs)), key=lambda r: abs(err[runs[r]]))
        start = min(max(0, big - n // 2), len(runs) - (n + 1))
        # Prefer the window with the largest smallest extremum.
        cands = range(0, len(runs) - n)
        start = max(cands, key=lambda s0: min(abs(err[runs[s0 + t]]) for t in range(n + 1)))
        new_ref = [xs[runs[start + t]] for t in range(n + 1)]
        if all(abs(p - q) < mpf(10) ** -40 for p, q in zip(new_ref, ref)):
            break
        ref = new_ref
    return best


def kernel(name, func, fixed, powers, lo, hi, doc):
    """Remez with f32 rounding of the coefficients, lowest power first."""
    fixed_terms = []  # (coefficient, power) already rounded
    coeffs = []
    weight = lambda x: 1 / abs(func(x))
    for k in range(len(powers)):
        rest = powers[k:]

        def target(x, ft=tuple(fixed_terms)):
            return func(x) - fixed(x) - sum(c * x ** p for c, p in ft)

        basis = [(lambda p: (lambda x: x ** p))(p) for p in rest]
        c, _ = remez(target, weight, basis, lo, hi)
        r = to_f32(c[0])
        fixed_terms.append((mpf(r), rest[0]))
        coeffs.append(r)
    # Error of the rounded polynomial, exactly evaluated.
    xs = [lo + (hi - lo) * mpf(k) / 4000 for k in range(4001)]
    worst = max(
        abs((fixed(x) + sum(mpf(c) * x ** p for c, p in zip(coeffs, powers)) - func(x)) / func(x))
        for x in xs
    )
    return name, coeffs, powers, worst, doc


def round_bits(x, bits):
    """x rounded to `bits` significant bits (nearest)."""
    m, e = mp.frexp(x)
    return mp.nint(m * 2 ** bits) * mpf(2) ** (e - bits)


def constants(out):
    """Split constants of the argument reductions and the bits of 2/pi."""
    f = []

    def f32c(name, v, doc):
        f.append((name, to_f32(v), doc))

    pio2 = pi / 2
    c1 = round_bits(pio2, 20)
    f32c("PIO2_1", c1, "pi/2 to 20 bits: j * PIO2_1 is exact in the reduction's first fma")
    c2 = mpf(to_f32(pio2 - c1))
    f32c("PIO2_2", c2, "f32(pi/2 - PIO2_1)")
    f32c("PIO2_3", pio2 - c1 - c2, "f32(pi/2 - PIO2_1 - PIO2_2)")
    f32c("TWO_OVER_PI", 2 / pi, "f32(2/pi), to pick the quadrant")
    h = mpf(to_f32(pio2))
    f32c("PIO2_HI", h, "f32(pi/2)")
    f32c("PIO2_LO", pio2 - h, "f32(pi/2 - PIO2_HI)")
    h = mpf(to_f32(pi))
    f32c("PI_HI", h, "f32(pi)")
    f32c("PI_LO", pi - h, "f32(pi - PI_HI)")
    h = mpf(to_f32(ln2))
    f32c("LN2_HI", h, "f32(ln 2)")
    f32c("LN2_LO", ln2 - h, "f32(ln 2 - LN2_HI)")
    l2e = 1 / ln2
    h = mpf(to_f32(l2e))
    f32c("LOG2E_HI", h, "f32(log2 e)")
    f32c("LOG2E_LO", l2e - h, "f32(log2 e - LOG2E_HI)")
    for name, v, doc in f:
        out.write(f"/// {doc}.\n")
        out.write(f"pub(crate) const {name}: f32 = f32::from_bits(0x{f32_bits(v):08X}); // {v:.9e}\n")
    # 2/pi = 0.a2f9836e... : the first 192 bits of the fraction as six big-endian words.
    words = []
    frac = 2 / pi
    for _ in range(6):
        frac *= 2 ** 32
        w = int(mp.floor(frac))
        words.append(w)
        frac -= w
    out.write("/// The first 192 bits of the binary fraction of 2/pi, most significant word first\n")
    out.write("/// (Payne-Hanek reduction of large arguments).\n")
    out.write("pub(crate) const TWO_OVER_PI_BITS: [u32; 6] = [\n")
    out.write("    " + ", ".join(f"0x{w:08X}" for w in words) + ",\n];\n")
    pio2_2_64 = float(pio2 * mpf(2) ** -64)
    out.write("/// pi/2 * 2^-64 as f64 (scales the reduced 64-bit fixed-point fraction).\n")
    out.write(f"pub(crate) const PIO2_2POW_M64: f64 = f64::from_bits(0x{struct.unpack('<Q', struct.pack('<d', pio2_2_64))[0]:016X}); // {pio2_2_64!r}\n\n")


def main():
    tiny = mpf(10) ** -12
    kernels = [
        kernel(
            "EXP2",
            lambda x: 2 ** x,
            lambda x: mpf(1),
            [1, 2, 3, 4, 5, 6],
            -mpf(1) / 2,
            mpf(1) / 2,
            "2^f ~ 1 + sum c_i f^i on [-1/2, 1/2]",
        ),
        kernel(
            "EXP",
            exp,
            lambda x: 1 + x,
            [2, 3, 4, 5, 6],
            -ln2 / 2,
            ln2 / 2,
            "e^r ~ 1 + r + sum c_i r^i on [-ln2/2, ln2/2]",
        ),
        kernel(
            "ATANH",
            lambda q: atanh(q),
            lambda q: q,
            [3, 5, 7, 9],
            tiny,
            (sqrt(mpf(2)) - 1) / (sqrt(mpf(2)) + 1),
            "atanh(q) ~ q + sum c_i q^i on [0, (sqrt2-1)/(sqrt2+1)] (log(m) = 2 atanh((m-1)/(m+1)))",
        ),
        kernel(
            "SIN",
            sin,
            lambda r: r,
            [3, 5, 7, 9],
            tiny,
            pi / 4,
            "sin(r) ~ r + sum c_i r^i on [0, pi/4] (odd)",
        ),
        kernel(
            "COS",
            cos,
            lambda r: 1 - r * r / 2,
            [4, 6, 8, 10],
            mpf(0),
            pi / 4,
            "cos(r) ~ 1 - r^2/2 + sum c_i r^i on [0, pi/4] (even)",
        ),
        kernel(
            "ATAN",
            atan,
            lambda t: t,
            [3, 5, 7, 9, 11, 13, 15, 17, 19, 21],
            tiny,
            mpf(1),
            "atan(t) ~ t + sum c_i t^i on [0, 1] (odd)",
        ),
        kernel(
            "ASIN",
            asin,
            lambda x: x,
            [3, 5, 7, 9, 11, 13],
            tiny,
            mpf(1) / 2,
            "asin(x) ~ x + sum c_i x^i on [0, 1/2] (odd)",
        ),
        kernel(
            "SINH",
            sinh,
            lambda x: x,
            [3, 5, 7, 9, 11],
            tiny,
            mpf(1),
            "sinh(x) ~ x + sum c_i x^i on [0, 1] (odd)",
        ),
        kernel(
            "TANH",
            tanh,
            lambda x: x,
            [3, 5, 7, 9, 11],
            tiny,
            mpf(6) / 10,
            "tanh(x) ~ x + sum c_i x^i on [0, 0.6] (odd)",
        ),
    ]
    out = sys.stdout
    out.write("//! Polynomial coefficients of the precise math library (f32, lowest power first).\n")
    out.write("//!\n")
    out.write("//! Generated by `tools/minimax.py` (Remez exchange on the relative error, mpmath at\n")
    out.write("//! 60 digits, coefficients rounded to f32 one at a time with re-optimization); do not\n")
    out.write("//! edit by hand. Each table's doc gives the approximation, its interval and the\n")
    out.write("//! largest relative error of the rounded coefficients in exact arithmetic.\n\n")
    constants(out)
    for name, coeffs, powers, worst, doc in kernels:
        e = float(mp.log(worst, 2)) if worst > 0 else -200
        out.write(f"/// {doc}; powers {powers}; max relative error 2^{e:.1f}.\n")
        out.write(f"pub(crate) const {name}: [f32; {len(coeffs)}] = [\n")
        for c in coeffs:
            out.write(f"    f32::from_bits(0x{f32_bits(c):08X}), // {float(c):.9e}\n")
        out.write("];\n\n")


if __name__ == "__main__":
    main()
