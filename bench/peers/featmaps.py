#!/usr/bin/python3
"""The feature maps as a researcher would write them without rfx: NumPy
for the trigonometric (Rahimi & Recht) and positive (FAVOR+, PosRF) maps of
the Gaussian kernel exp(-|x - y|^2 / 2), and scikit-learn's RBFSampler.
bench/featmaps.sh runs one item per process, in rounds with rfx's
bench_featmap, and compares the times.

    featmaps.py ITEM [L [d [M [reps]]]]     defaults: 65536 64 256 5

ITEM is numpy-trig, numpy-pos, sklearn-rbf (RBFSampler.transform after a
fit) or sklearn-rbf-fit (fit_transform). Prints "ITEM ms peak_KiB
features": the best of reps runs after warm-up runs (at least one, and
0.25 s, as bench_featmap's: an idle core takes tens of ms to reach its
full speed), and the process's
peak resident set (getrusage; the interpreter and its libraries are
included). The inputs have norm about 1 (standard normal / sqrt(d)), as
bench_featmap's. NumPy's matrix product runs on its BLAS's threads
(OpenBLAS on Debian: OPENBLAS_NUM_THREADS, all cores by default); its
element-wise functions on one thread.
"""
import sys

import numpy as np

from besttime import best_ms, report


def trig_map(X, W):
    """cos and sin of the projections, 1/sqrt(M) each: 2M real features."""
    P = X @ W
    return np.hstack([np.cos(P), np.sin(P)]) / np.sqrt(W.shape[1])


def pos_map(X, W):
    """exp(w.x - |x|^2) / sqrt(M): the PosRF map of the Gaussian kernel."""
    sq = np.sum(X ** 2, axis=1, keepdims=True)
    return np.exp(X @ W - sq) / np.sqrt(W.shape[1])


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: featmaps.py numpy-trig|numpy-pos|sklearn-rbf|"
                 "sklearn-rbf-fit [L [d [M [reps]]]]")
    item = argv[1]
    L, d, M, reps = (list(map(int, argv[2:])) + [65536, 64, 256, 5][len(argv) - 2:])[:4]
    rng = np.random.default_rng(20221121)
    X = rng.standard_normal((L, d)) / np.sqrt(d)
    if item in ("numpy-trig", "numpy-pos"):
        W = rng.standard_normal((d, M))
        fn = trig_map if item == "numpy-trig" else pos_map
        run = lambda: fn(X, W)
        nfeat = 2 * M if item == "numpy-trig" else M
    elif item in ("sklearn-rbf", "sklearn-rbf-fit"):
        from sklearn.kernel_approximation import RBFSampler
        # gamma = 1/2: exp(-gamma |x - y|^2) is the kernel above
        rbf = RBFSampler(gamma=0.5, n_components=M, random_state=0)
        if item == "sklearn-rbf":
            rbf.fit(X)
            run = lambda: rbf.transform(X)
        else:
            run = lambda: rbf.fit_transform(X)
        nfeat = M
    else:
        sys.exit("featmaps.py: unknown item '%s'" % item)
    report(item, best_ms(run, reps), nfeat)

if __name__ == "__main__":
    main(sys.argv)
