"""The timing every Python bench item shares (bench/peers/featmaps.py,
bench/peers/torch_featmaps.py, bench/pyitems.py), the same protocol as
bench_featmap's: untimed warm-up runs first (at least one, and 0.25 s: an
idle core takes tens of ms to reach its full speed, the first runs take
the page faults), then the best of reps timed runs; the line printed is
"ITEM ms peak_KiB features", the peak resident set of the process
(getrusage: the interpreter and its libraries included)."""
import resource
import time

WARMUP_S = 0.25  # seconds of untimed runs first


def best_ms(run, reps):
    """The best wall time of reps calls of run(), in ms, after warm-up."""
    start = time.perf_counter()
    while True:
        run()
        if time.perf_counter() - start >= WARMUP_S:
            break
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        Z = run()
        t = time.perf_counter() - t0
        del Z
        best = min(best, t)
    return 1e3 * best


def report(item, ms, nfeat):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print("%s %.3f %d %d" % (item, ms, peak, nfeat))
