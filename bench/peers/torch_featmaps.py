#!/usr/bin/python3
"""The feature maps written in PyTorch on the CPU, as a researcher would
write them for a model: the trigonometric map (cos and sin of X @ W,
stacked, / sqrt(M): 2M real features, rfx's "trig" in its real form) and
the positive map exp(X @ W - |x|^2) / sqrt(M) (rfx's "pos"), in float64
like rfx's. bench/python.sh runs one item per process, in rounds with
rfx's Python items (bench/pyitems.py), and compares the times.

    torch_featmaps.py ITEM [L [d [M [reps]]]]     defaults: 65536 64 256 5

ITEM is torch-trig or torch-pos. Prints "ITEM ms peak_KiB features" as
bench/peers/featmaps.py does: the best of reps runs after 0.25 s of
warm-up runs. torch runs the product and the element-wise functions on
as many threads as rfx's OpenMP ($OMP_NUM_THREADS, else every online
core; Debian's torch would take one per physical core, which may be
fewer); the inputs and W are torch tensors made before timing, and the
result stays a tensor (no conversion to NumPy is timed).
"""
import os
import sys

from besttime import best_ms, report


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: torch_featmaps.py torch-trig|torch-pos [L [d [M [reps]]]]")
    try:
        import torch
    except ImportError:
        sys.exit("torch_featmaps.py: no PyTorch (Debian's python3-torch)")
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS") or
                              len(os.sched_getaffinity(0))))
    item = argv[1]
    L, d, M, reps = (list(map(int, argv[2:])) + [65536, 64, 256, 5][len(argv) - 2:])[:4]
    g = torch.Generator().manual_seed(20221121)
    X = torch.randn(L, d, generator=g, dtype=torch.float64) / d ** 0.5
    W = torch.randn(d, M, generator=g, dtype=torch.float64)
    s = 1.0 / M ** 0.5
    if item == "torch-trig":
        def run():
            P = X @ W
            return torch.cat((torch.cos(P), torch.sin(P)), dim=1).mul_(s)
        nfeat = 2 * M
    elif item == "torch-pos":
        def run():
            sq = (X * X).sum(dim=1, keepdim=True)
            return torch.exp((X @ W).sub_(sq)).mul_(s)
        nfeat = M
    else:
        sys.exit("torch_featmaps.py: unknown item '%s'" % item)
    with torch.no_grad():
        ms = best_ms(run, reps)
    report(item, ms, nfeat)

if __name__ == "__main__":
    main(sys.argv)
