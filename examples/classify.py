#!/usr/bin/python3
"""Handwritten digits with random features: which estimator, at which
cost? Kernel ridge regression (one-vs-all ridge on random features, the
regression of Rahimi & Recht's random kitchen sinks) on the optdigits data
shipped in data/ (3823 training and 1797 test images of 8x8 counts), with
rfx's RandomFeatures for several estimators beside scikit-learn's
RBFSampler, at the same number of real features, and the exact kernel's
ridge regression as the ceiling. Prints a table: method, real features,
test accuracy (mean and standard deviation over seeds), and the time to
fit, transform and train.

    PYTHONPATH=python examples/classify.py [--features 512] [--seeds 5]
                      [--gamma G] [--alpha A] [--no-exact] [--data DIR]

From an installed rfx (make install), run it from anywhere with
--data PREFIX/share/rfx/data. Takes a few seconds per method.
"""
import argparse
import os
import sys
import time

import numpy as np
from sklearn.kernel_approximation import RBFSampler
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import RidgeClassifier
from sklearn.pipeline import make_pipeline

from rfx.sklearn import RandomFeatures


def load(path):
    a = np.loadtxt(path, delimiter=",", ndmin=2)
    return a[:, :-1] / 16.0, a[:, -1].astype(int)   # counts 0..16 to [0, 1]


def methods(n):
    """(label, transformer) pairs with n real features each: complex
    estimators get n/2 complex features (two real columns each)."""
    out = [("RBFSampler (sklearn)", lambda g, s: RBFSampler(
        gamma=g, n_components=n, random_state=s))]
    for m, proj, per in (("trig", "iid", 2), ("trig", "ort", 2),
                         ("pos", "ort", 1), ("oprf", "ort", 1),
                         ("gerf", "ort", 2), ("posh", "ort", 2)):
        out.append(("rfx %s:%s" % (m, proj), lambda g, s, m=m, proj=proj, per=per:
                    RandomFeatures(method=m, n_components=n // per,
                                   projection=proj, gamma=g, random_state=s)))
    return out


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--features", type=int, default=512,
                    help="real features per method (default 512)")
    ap.add_argument("--seeds", type=int, default=5,
                    help="random feature draws per method (default 5)")
    ap.add_argument("--gamma", type=float, default=0.02,
                    help="kernel exp(-gamma |x - y|^2) on pixels in [0, 1] "
                         "(default 0.02)")
    ap.add_argument("--alpha", type=float, default=1e-3,
                    help="ridge penalty (default 1e-3)")
    ap.add_argument("--no-exact", action="store_true",
                    help="skip the exact kernel's row (seconds of CPU)")
    ap.add_argument("--data", default=os.path.join(here, "..", "data"),
                    help="directory with optdigits.tra and optdigits.tes")
    a = ap.parse_args(argv)
    Xtr, ytr = load(os.path.join(a.data, "optdigits.tra"))
    Xte, yte = load(os.path.join(a.data, "optdigits.tes"))
    print("# optdigits: %d training, %d test images, d = %d; gamma = %g, "
          "ridge alpha = %g, %d seeds" % (len(ytr), len(yte), Xtr.shape[1],
                                          a.gamma, a.alpha, a.seeds))
    print("%-24s %9s %10s %8s %9s" % ("method", "features", "accuracy",
                                       "sd", "seconds"))
    for label, make in methods(a.features):
        acc, sec = [], []
        for s in range(a.seeds):
            t0 = time.perf_counter()
            clf = make_pipeline(make(a.gamma, s), RidgeClassifier(alpha=a.alpha))
            clf.fit(Xtr, ytr)
            acc.append(np.mean(clf.predict(Xte) == yte))
            sec.append(time.perf_counter() - t0)
        print("%-24s %9d %10.4f %8.4f %9.3f" % (label, a.features,
                                                 np.mean(acc), np.std(acc),
                                                 np.median(sec)))
        sys.stdout.flush()
    if a.no_exact:
        return
    # the ceiling: the exact kernel's ridge regression on one-hot labels
    t0 = time.perf_counter()
    kr = KernelRidge(alpha=a.alpha, kernel="rbf", gamma=a.gamma)
    kr.fit(Xtr, np.eye(10)[ytr])
    acc = np.mean(np.argmax(kr.predict(Xte), axis=1) == yte)
    print("%-24s %9s %10.4f %8s %9.3f" % ("exact kernel (KernelRidge)", "-",
                                          acc, "-", time.perf_counter() - t0))


if __name__ == "__main__":
    main(sys.argv[1:])
