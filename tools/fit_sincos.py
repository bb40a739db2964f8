#!/usr/bin/env python3
"""Coefficients of lib/num/vmath.c's sin and cos polynomials.

sin r = r + r^3 S(r^2) and cos r = 1 - r^2/2 + r^4 C(r^2) for |r| <= pi/4
(plus rounding slop: r^2 up to 0.62). S and C are Chebyshev fits
(mpmath.chebyfit, 50 digits) of degree 6 and 5 in w = r^2; the script
prints them as C hex floats, each with the worst relative error of the
whole sin or cos on a grid of r when the coefficients are rounded to
double, in units of 2^-53.

Needs python3-mpmath (Debian). Run: python3 tools/fit_sincos.py
"""
import mpmath as mp

mp.mp.dps = 50
WMAX = 0.62


def s_part(w):
    r = mp.sqrt(w)
    return (mp.sin(r) - r) / r**3


def c_part(w):
    return (mp.cos(mp.sqrt(w)) - 1 + w / 2) / w**2


def fit(f, n):
    coef, _ = mp.chebyfit(f, [0, WMAX], n, error=True)
    return [float(c) for c in coef[::-1]]  # lowest degree first


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
    return float(err / mp.mpf(2) ** -53)


for name, f, n, is_sin in (("sq", s_part, 7, True), ("cq", c_part, 6, False)):
    cd = fit(f, n)
    print("/* %s: worst %.3f ulp */" % (name, worst(cd, is_sin)))
    print("static const double %s[%d] = {" % (name, n))
    print("\t" + ", ".join(c.hex() for c in cd) + ",")
    print("};")
