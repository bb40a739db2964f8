#!/usr/bin/env python3
"""Coefficients of lib/num/vmath.c's sin and cos polynomials.

sin r = r + r^3 S(r^2) and cos r = 1 - r^2/2 + r^4 C(r^2) for |r| <= pi/4
(plus rounding slop: r^2 up to 0.62). S and C are Chebyshev fits
(mpmath.chebyfit, 50 digits) of degree 6 and 5 in w = r^2; the script
prints them as C hex floats, each with the worst relative error of the
whole sin or cos on a grid of r when the coefficients are rounded to
double, in units of 2^-53.

With --float: the single-precision kernel's (lib/num/vmath_avx512.c
vsincosf, vexpf): S and C of degree 2, rounded to float, and q of degree
4 with e^r = 1 + r + r^2 q(r) on |r| <= 1.01 log(2)/2, errors in units
of 2^-24.

Needs python3-mpmath (Debian). Run: python3 tools/fit_sincos.py [--float]
"""
import struct
import sys

import mpmath as mp

mp.mp.dps = 50
WMAX = 0.62


def s_part(w):
    r = mp.sqrt(w)
    return (mp.sin(r) - r) / r**3


def c_part(w):
    return (mp.cos(mp.sqrt(w)) - 1 + w / 2) / w**2


SINGLE = "--float" in sys.argv[1:]
ULP = mp.mpf(2) ** (-24 if SINGLE else -53)


def rnd(c):
    """c rounded to the kernel's precision."""
    c = float(c)
    return struct.unpack("f", struct.pack("f", c))[0] if SINGLE else c


def fit(f, n, lo=0, hi=WMAX):
    coef, _ = mp.chebyfit(f, [lo, hi], n, error=True)
    return [rnd(c) for c in coef[::-1]]  # lowest degree first


def e_part(r):
    return (mp.exp(r) - 1 - r) / r**2 if r else mp.mpf(1) / 2


def worst(cd, is_sin):
    top = mp.sqrt(WMAX)
    err = 0
    for i in range(1, 4001):
        r = top * i / 4000
        w = r * r
        p = sum(mp.mpf(c) * w**k for k, c in enumerate(cd))
        got = r + r**3 * p if is_sin else 1 - w / 2 + w * w * p
        want = mp.sin(r) if is_sin else mp.cos(r)
        err = max(err, abs(got - want) / abs(want))
    return float(err / ULP)


def worst_exp(cd, h):
    err = 0
    for i in range(-2000, 2001):
        r = h * i / 2000
        p = sum(mp.mpf(c) * r**k for k, c in enumerate(cd))
        err = max(err, abs(1 + r + r * r * p - mp.exp(r)) / mp.exp(r))
    return float(err / ULP)


def show(name, cd, err):
    print("/* %s: worst %.3f ulp */" % (name, err))
    print("static const %s %s[%d] = {" % ("float" if SINGLE else "double",
                                          name, len(cd)))
    print("\t" + ", ".join(c.hex() + ("f" if SINGLE else "") for c in cd) + ",")
    print("};")


if SINGLE:
    for name, f, n, is_sin in (("fsq", s_part, 3, True), ("fcq", c_part, 3, False)):
        cd = fit(f, n)
        show(name, cd, worst(cd, is_sin))
    h = mp.log(2) / 2 * mp.mpf("1.01")
    cd = fit(e_part, 5, -h, h)
    show("feq", cd, worst_exp(cd, h))
else:
    for name, f, n, is_sin in (("sq", s_part, 7, True), ("cq", c_part, 6, False)):
        cd = fit(f, n)
        show(name, cd, worst(cd, is_sin))
