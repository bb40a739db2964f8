#!/usr/bin/python3
"""rfx's feature maps called from Python, as a scikit-learn user calls
them: rfx.sklearn.RandomFeatures(method=M, n_components=256, projection=
"iid").transform(X) after a fit, ctypes and the output included: the
memory of the previous call's output, which the caller has dropped
(rfx.Model's reuse_output), or for the -fresh items a fresh NumPy array
per call (reuse_output=False), whose pages the kernel zeroes as they are
first written. bench/python.sh runs one item per process, in rounds with
the peers (bench/peers/featmaps.py, bench/peers/torch_featmaps.py).

    pyitems.py ITEM [L [d [M [reps]]]]     defaults: 65536 64 256 5

ITEM is py-trig (2M real features [cos, sin]), py-pos (M), py-oprf (M),
py-trig-f32 (py-trig with float32 input, hence float32 output), or
py-trig-fresh (py-trig with a fresh output array every call). Prints
"ITEM ms peak_KiB features" as the peers do: the best of reps runs after
0.25 s of warm-up runs. Needs PYTHONPATH=python and librfx.so built.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers"))
from besttime import best_ms, report  # noqa: E402


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: pyitems.py py-trig|py-pos|py-oprf|py-trig-f32|"
                 "py-trig-fresh [L [d [M [reps]]]]")
    from rfx.sklearn import RandomFeatures
    item = argv[1]
    L, d, M, reps = (list(map(int, argv[2:])) + [65536, 64, 256, 5][len(argv) - 2:])[:4]
    method = {"py-trig": "trig", "py-pos": "pos", "py-oprf": "oprf",
              "py-trig-f32": "trig", "py-trig-fresh": "trig"}.get(item)
    if method is None:
        sys.exit("pyitems.py: unknown item '%s'" % item)
    rng = np.random.default_rng(20221121)
    X = rng.standard_normal((L, d)) / np.sqrt(d)
    if item.endswith("-f32"):
        X = X.astype(np.float32)
    rf = RandomFeatures(method=method, n_components=M, projection="iid",
                        random_state=0,
                        reuse_output=not item.endswith("-fresh")).fit(X)
    report(item, best_ms(lambda: rf.transform(X), reps), rf.n_features_out_)

if __name__ == "__main__":
    main(sys.argv)
