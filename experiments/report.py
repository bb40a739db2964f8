#!/usr/bin/env python3
"""The reproduction report: every figure and table of the seed papers that
rfx reproduces, ours beside theirs (issue 6).

Reads
  experiments/figures.tsv             the manifest: its [rows], one per
                                      figure or table, and [beyond]
  experiments/reference/claims.txt    what the papers' text says about each,
                                      as checks evaluated on our results
  experiments/reference/*.tsv         the printed tables (thesis Tables
                                      6.1-6.3, HRF Tables 1 and 3)
  RESULTS/*.h5                        our results, through `rfx dump`
  RESULTS/*.time                      each experiment's wall and CPU time
                                      (experiments/timed.sh)
  PLOTS/*.png                         our figures
and writes RESULTS/REPORT.md and RESULTS/REPORT.html (the same content,
the PNGs embedded as data URIs so that the file stands alone).

Verdicts are computed, never written by hand: each claim of claims.txt
holds or fails on our numbers; a printed table adds one claim, that every
cell is within its tolerance. A row is "reproduced" when all its claims
hold, "reproduced qualitatively" when every qualitative claim (kind shape)
holds but a number does not, and "differs" when a qualitative claim fails;
the reasons are those claims.txt gives for the failing claims. A claim
whose data is absent (a smaller SCALE) is "not evaluated".

usage: experiments/report.py [--results DIR] [--plots DIR] [--md FILE] [--html FILE]
"""

import argparse
import base64
import html
import math
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import manifest  # noqa: E402  (the one list of figures)

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
REF = os.path.join(HERE, "reference")
PAPERS = {
    "thesis": "V. Likhosherstov, *Random features for efficient attention "
              "approximation*, PhD thesis, Cambridge, 2022",
    "HRF": "K. Choromanski et al., *Hybrid random features*, ICLR 2022",
    "ORF": "F. Yu et al., *Orthogonal random features*, NIPS 2016",
}
VERDICTS = ("reproduced", "reproduced qualitatively", "differs", "not evaluated")


class Missing(Exception):
    """The data a check needs is not in the results (file, table or rows)."""


# ---------------------------------------------------------------------------
# Results, through rfx dump (the one .h5-to-text step, as the plots use).

def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


class Results:
    def __init__(self, rfx, results_dir):
        self.rfx = rfx
        self.dir = results_dir
        self.cache = {}

    def path(self, name):
        return os.path.join(self.dir, name + ".h5")

    def table(self, name, table):
        key = (name, table)
        if key not in self.cache:
            p = self.path(name)
            if not os.path.exists(p):
                raise Missing("no %s" % p)
            r = subprocess.run([self.rfx, "dump", p, table], capture_output=True,
                               text=True)
            if r.returncode != 0:
                raise Missing("%s: %s" % (p, r.stderr.strip()))
            lines = r.stdout.rstrip("\n").split("\n")
            head = lines[0].split("\t")
            rows = [dict(zip(head, l.split("\t"))) for l in lines[1:] if l]
            self.cache[key] = rows
        return self.cache[key]


def select(rows, where):
    """Rows matching where: strings compare exactly; a number selects the
    value of that column nearest to it among the remaining rows (so that a
    check names 'theta=pi' or 'gamma=1' whatever the grid)."""
    out = rows
    for k, v in where.items():
        if not out:
            break
        if k not in out[0]:
            raise Missing("no column %s" % k)
        if isinstance(v, str):
            out = [r for r in out if r[k] == v]
        else:
            vals = sorted({num(r[k]) for r in out if num(r[k]) is not None})
            if not vals:
                out = []
                break
            best = min(vals, key=lambda x: (abs(x - v), x))
            out = [r for r in out if num(r[k]) == best]
    return out


def namespace(res):
    """The functions a check of claims.txt may call."""

    def rows(f, t, **w):
        out = select(res.table(f, t), w)
        if not out:
            raise Missing("no rows of %s %s where %s" % (f, t, w))
        return out

    def col(r, c):
        if c not in r:
            raise Missing("no column %s" % c)
        x = num(r[c])
        return r[c] if x is None else x

    def v(f, t, c, **w):
        """The value of column c in the one row of f.h5, table t, matching w."""
        out = rows(f, t, **w)
        if len(out) != 1:
            raise ValueError("%d rows of %s %s match %s, want 1" % (len(out), f, t, w))
        return col(out[0], c)

    def vs(f, t, c, **w):
        """The values of column c in the matching rows."""
        return [col(r, c) for r in rows(f, t, **w)]

    def u(f, t, c, **w):
        """The distinct values of column c in the matching rows, sorted."""
        return sorted(set(vs(f, t, c, **w)), key=lambda x: (isinstance(x, str), x))

    def means(f, t, c, by, among=None, **w):
        """{value of column by: mean of column c} over the matching rows."""
        acc = {}
        for r in rows(f, t, **w):
            acc.setdefault(r[by], []).append(col(r, c))
        if among is not None:
            among = among.split(",") if isinstance(among, str) else among
            acc = {k: x for k, x in acc.items() if k in among}
        if not acc:
            raise Missing("no %s among %s" % (by, among))
        return {k: sum(x) / len(x) for k, x in acc.items()}

    def best(f, t, c, by, among=None, **w):
        """The value of column by with the lowest mean of column c."""
        m = means(f, t, c, by, among, **w)
        return min(m, key=lambda k: (m[k], k))

    def ranked(f, t, c, by, among=None, highest=False, **w):
        """The values of column by, ordered by the mean of column c."""
        m = means(f, t, c, by, among, **w)
        return sorted(m, key=lambda k: (-m[k] if highest else m[k], k))

    def series(f, t, c, axis, **w):
        """Column c of the matching rows ordered by column axis, one row per
        value of axis."""
        rs = sorted(rows(f, t, **w), key=lambda r: num(r[axis]))
        xs = [num(r[axis]) for r in rs]
        if len(set(xs)) != len(xs):
            raise ValueError("%s %s where %s: several rows per %s" % (f, t, w, axis))
        return [col(r, c) for r in rs]

    def toward(f, t, c, axis, end, span=0.0, **w):
        """Column c decreases toward the smallest (end 'min') or largest
        ('max') value of column axis: strictly, step by step, over the last
        span (a fraction) of the grid at that end, and at least over its
        last step."""
        ys = series(f, t, c, axis, **w)
        if len(ys) < 2:
            raise Missing("fewer than 2 points of %s" % axis)
        k = max(1, int(round(span * (len(ys) - 1))))
        ys = ys if end == "max" else ys[::-1]
        tail = ys[-k - 1:]
        return all(b < a for a, b in zip(tail, tail[1:]))

    def increasing(f, t, c, axis, **w):
        """Column c does not decrease as column axis grows."""
        ys = series(f, t, c, axis, **w)
        return all(b >= a for a, b in zip(ys, ys[1:]))

    def decreasing(f, t, c, axis, **w):
        """Column c does not increase as column axis grows."""
        ys = series(f, t, c, axis, **w)
        return all(b <= a for a, b in zip(ys, ys[1:]))

    def mean(xs):
        xs = list(xs)
        if not xs:
            raise Missing("mean of nothing")
        return sum(xs) / len(xs)

    def frac(xs):
        xs = list(xs)
        return sum(1 for x in xs if x) / len(xs) if xs else float("nan")

    ns = dict(rows=rows, v=v, vs=vs, u=u, means=means, best=best, ranked=ranked,
              series=series, toward=toward, increasing=increasing, decreasing=decreasing,
              mean=mean, frac=frac, all=all, any=any, min=min, max=max, abs=abs,
              len=len, sum=sum, sorted=sorted, zip=zip, range=range,
              pi=math.pi, log=math.log, exp=math.exp, sqrt=math.sqrt)
    return ns


# ---------------------------------------------------------------------------
# Reference files.

def read_tsv(path):
    """A TSV with '#' comment lines and a header line: list of dicts."""
    with open(path) as fh:
        lines = [l.rstrip("\n") for l in fh if l.strip() and not l.startswith("#")]
    head = lines[0].split("\t")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:]]


def read_claims(path):
    """claims.txt: blocks of 'key: value' lines (continuations indented),
    separated by blank lines; '#' lines are comments. 'define:' blocks add
    names to the checks' namespace."""
    blocks, cur, key = [], {}, None
    with open(path) as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.startswith("#"):
                continue
            if not line.strip():
                if cur:
                    blocks.append(cur)
                cur, key = {}, None
                continue
            if line[0] in " \t" and key:
                cur[key] += " " + line.strip()
                continue
            m = re.match(r"^([a-z_]+):\s*(.*)$", line)
            if not m:
                raise SystemExit("%s: cannot read line: %s" % (path, line))
            key = m.group(1)
            if key == "define" and key in cur:
                cur[key] += "\n" + m.group(2)
            else:
                cur[key] = m.group(2)
    if cur:
        blocks.append(cur)
    return blocks


def parse_expect(expect):
    """'expect' as (operator, right-hand side); ValueError if malformed."""
    e = expect.strip()
    if e in ("true", "false"):
        return e, ""
    m = re.match(r"^(>=|<=|>|<|==|!=|in|each in)\s+(.*)$", e)
    if not m:
        raise ValueError("bad expect '%s'" % expect)
    op, rhs = m.groups()
    if op in ("<", ">", "<=", ">=") and num(rhs) is None:
        raise ValueError("'%s' needs a number" % expect)
    return op, rhs


def expect_holds(value, expect):
    """Compares a check's value with 'expect': '> 80', '< -60', '== gerf',
    'in oprf, geom+' (one of), 'each in oprf, geom+' (a list, every item one
    of), '== 1, 2' (a list, item by item), 'true', 'false'."""
    op, rhs = parse_expect(expect)
    if op in ("true", "false"):
        return bool(value) == (op == "true")
    items = [x.strip() for x in rhs.split(",")]
    if op == "in":
        return fmt_value(value) in items
    if op == "each in":
        return all(fmt_value(x) in items for x in value)
    if isinstance(value, (list, tuple)):
        if op not in ("==", "!="):
            raise ValueError("a list compares with == or != only")
        return ([fmt_value(x) for x in value] == items) == (op == "==")
    x = num(rhs)
    if x is None:
        a, b = str(value), rhs
    else:
        a, b = float(value), x
    return {">": a > b, "<": a < b, ">=": a >= b, "<=": a <= b, "==": a == b,
            "!=": a != b}[op]


def difference(val, c):
    """Ours minus the published value: 'diff_from' if the claim gives one,
    else the number of 'expect' when the paper's words quote it (e^80);
    '-' when there is no published number to subtract."""
    if isinstance(val, bool) or not isinstance(val, (int, float)):
        return "-"
    pv = num(c.get("diff_from"))
    if pv is None:
        op = c["expect"].split()
        x = num(op[-1]) if len(op) == 2 else None
        if x is not None and re.search(r"(?<![\d.])%s(?![\d.])" % re.escape(op[-1]),
                                       c.get("paper", "")):
            pv = x
    if pv is None:
        return "-"
    s = (c.get("format") or "%.3g") % (float(val) - pv)
    return s if s.startswith(("+", "-")) or "-" in s[:3] else "+" + s


def fmt_value(value, form=None):
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if form:
            return form % value
        if value.is_integer() and abs(value) < 1e15:
            return "%d" % value
        if value != 0 and (abs(value) >= 1e4 or abs(value) < 1e-3):
            return "%.3g" % value
        return "%.4g" % value
    if isinstance(value, (list, tuple)):
        return ", ".join(fmt_value(x, form) for x in value) if value else "none"
    return str(value)


# ---------------------------------------------------------------------------
# The printed tables beside ours: each returns (blocks, claim).

def md_table(head, rows):
    return ("table", head, rows)


def cmp_table6_1(res):
    ref = {r["dataset"]: int(r["L"]) for r in read_tsv(os.path.join(REF, "thesis_table6_1.tsv"))}
    ours = {r["dataset"]: r for r in res.table("uci", "uci_data")}
    rows, n, ok = [], 0, 0
    for d, L in ref.items():
        if d not in ours:
            continue
        o = int(ours[d]["n_train"])
        n += 1
        ok += o == L
        rows.append([d, ours[d]["rows"], str(o), str(L), "%+d" % (o - L)])
    if not n:
        raise Missing("no datasets")
    blocks = [md_table(["dataset", "rows N", "L (rfx)", "L (thesis)", "rfx - thesis"], rows)]
    claim = dict(kind="number", claim="L, the training rows, equals the thesis' for every dataset (exactly)",
                 paper="Table 6.1", value="%d of %d equal" % (ok, n), holds=ok == n,
                 diff="%d of %d differ" % (n - ok, n))
    return blocks, claim


def uci_ours(res):
    out = {}
    for r in res.table("uci", "uci"):
        out[(r["dataset"], r["method"], r["projection"])] = (float(r["test_pct"]), float(r["test_pct_se"]))
    return out


# Table 6.3's projection for each method.
P63 = {"trig": "ort", "pos": "ort", "gerf": "ort", "oprf": "ort", "hyb": "iid"}
TABLE_METHODS = ["trig", "pos", "hyb", "gerf", "pois", "geom", "oprf", "pois+", "geom+"]


def ours63(ours, d, m):
    for p in ([P63[m]] if m in P63 else []) + ["discrete", "ort", "iid"]:
        if (d, m, p) in ours:
            return ours[(d, m, p)]
    return None


def within_acc(o, se, t):
    """An accuracy agrees with the thesis' within two of our standard errors
    plus the thesis' rounding (0.05 points)."""
    return abs(o - t) <= 2 * se + 0.05


def cmp_table6_2(res):
    ref = read_tsv(os.path.join(REF, "thesis_table6_2.tsv"))
    ours = uci_ours(res)
    th = {(r["dataset"], r["method"], r["projection"]): float(r["test_pct"]) for r in ref}
    datasets = [d for d in dict.fromkeys(r["dataset"] for r in ref) if d != "average"]
    have = [d for d in datasets if any(k[0] == d for k in ours)]
    if not have:
        raise Missing("no datasets")
    methods = ["trig", "pos", "gerf", "oprf"]
    rows, n, ok, diffs = [], 0, 0, []
    for d in have + ["average"]:
        row = [d]
        for m in methods:
            cells = []
            for p in ("iid", "ort"):
                if d == "average":
                    xs = [ours[(dd, m, p)][0] for dd in have if (dd, m, p) in ours]
                    o, se = (sum(xs) / len(xs), 0.0) if xs else (None, 0)
                else:
                    o, se = ours.get((d, m, p), (None, 0))
                t = th.get((d, m, p))
                if o is None or t is None:
                    cells.append("-")
                    continue
                if d != "average" or len(have) == len(datasets):
                    diffs.append(o - t)
                if d != "average":
                    n += 1
                    ok += within_acc(o, se, t)
                cells.append("%.1f [%.1f] %+.1f" % (o, t, o - t))
            row.append(" / ".join(cells))
        rows.append(row)
    blocks = [("p", "Test accuracy (%), i.i.d. / block-orthogonal: rfx [thesis] rfx - thesis."
                    + ("" if len(have) == len(datasets) else
                       " Only %d of %d datasets at this scale: the averages are over those." % (len(have), len(datasets)))),
              md_table(["dataset", "TrigRF", "PosRF", "GERF", "OPRF"], rows)]
    mad = sum(abs(x) for x in diffs) / len(diffs)
    claim = dict(kind="number", claim="every accuracy within 2 standard errors (+0.05) of the thesis'",
                 paper="Table 6.2", value="%d of %d cells within" % (ok, n), holds=ok == n,
                 diff="mean abs difference %.1f points" % mad)
    return blocks, claim


def cmp_table6_3(res):
    ref = read_tsv(os.path.join(REF, "thesis_table6_3.tsv"))
    ours = uci_ours(res)
    th = {(r["dataset"], r["method"]): float(r["test_pct"]) for r in ref}
    datasets = [d for d in dict.fromkeys(r["dataset"] for r in ref) if d != "average"]
    have = [d for d in datasets if any(k[0] == d for k in ours)]
    if not have:
        raise Missing("no datasets")
    rows, n, ok, diffs = [], 0, 0, []
    for d in have + ["average"]:
        row = [d]
        for m in TABLE_METHODS:
            if d == "average":
                xs = [ours63(ours, dd, m)[0] for dd in have if ours63(ours, dd, m)]
                o, se = (sum(xs) / len(xs), 0.0) if xs else (None, 0)
            else:
                o, se = ours63(ours, d, m) or (None, 0)
            t = th.get((d, m))
            if o is None or t is None:
                row.append("-")
                continue
            if d != "average":
                n += 1
                ok += within_acc(o, se, t)
                diffs.append(o - t)
            row.append("%.1f [%.1f] %+.1f" % (o, t, o - t))
        ex = ours.get((d, "exact", "none"))
        row.append("%.1f" % ex[0] if ex else "-")
        rows.append(row)
    blocks = [("p", "Test accuracy (%): rfx [thesis] rfx - thesis; exact is kernel regression "
                    "without random features."),
              md_table(["dataset", "TrigRF", "PosRF", "HybRF", "GERF", "PoisRF", "GeomRF", "OPRF",
                        "PoisRF+", "GeomRF+", "exact"], rows)]
    mad = sum(abs(x) for x in diffs) / len(diffs)
    claim = dict(kind="number", claim="every accuracy within 2 standard errors (+0.05) of the thesis'",
                 paper="Table 6.3", value="%d of %d cells within" % (ok, n), holds=ok == n,
                 diff="mean abs difference %.1f points" % mad)
    return blocks, claim


def cmp_hrf_table1(res):
    ref = read_tsv(os.path.join(REF, "hrf_table1.tsv"))
    mse = res.table("fig_hrf_table1", "mse")
    norms = list(dict.fromkeys(r["norm"] for r in mse))
    rows, n, ok = [], 0, 0
    for p in ref:
        tm, ts = float(p["mse"]), float(p["mse_sd"])
        row = [p["dataset"], p["method"], "%.2f +- %.2f" % (tm, ts)]
        for nm in norms:
            o = select(mse, {"dataset": p["dataset"], "norm": nm, "method": p["method"]})
            if not o:
                row.append("-")
                continue
            om, osd = 1e3 * float(o[0]["mse"]), 1e3 * float(o[0]["mse_sd"])
            ose = 1e3 * float(o[0]["mse_se"])
            good = abs(om - tm) <= 2 * math.hypot(ose, ts)
            if nm == "unit":
                n += 1
                ok += good
            row.append("%.3g +- %.2g (%s)" % (om, osd, "within" if good else "x%.2g" % (om / tm)))
        rows.append(row)
    if not n:
        raise Missing("no unit-norm rows")
    blocks = [("p", "MSE in units of 1e-3, mean +- standard deviation over repetitions; "
                    "ours for each input normalisation (`unit` is rfx's default; the paper "
                    "does not say), 'within' when the difference is at most twice the paper's "
                    "standard deviation and our standard error combined, else the ratio "
                    "ours / paper."),
              md_table(["dataset", "method", "paper"] + ["rfx, %s" % nm for nm in norms], rows)]
    claim = dict(kind="number", claim="every MSE (norm unit) within twice the paper's standard deviation and our standard error, combined",
                 paper="Table 1", value="%d of %d cells within" % (ok, n), holds=ok == n,
                 diff="-")
    return blocks, claim


def cmp_hrf_table3(res):
    ref = read_tsv(os.path.join(REF, "hrf_table3.tsv"))
    t3 = res.table("fig_hrf6", "table3")
    name = {"hyb-cluster": "hyb-cluster", "favor+": "pos", "trig": "trig"}
    rows, n, ok = [], 0, 0
    for p in ref:
        o = [r for r in t3 if r["set"] == p["set"] and r["method"] == name[p["method"]]
             and num(r["m"]) == num(p["m"])]
        if not o:
            continue
        lo, hi = float(o[0]["mse_min"]), float(o[0]["mse_max"])
        plo, phi = float(p["mse_min"]), float(p["mse_max"])
        overlap = lo <= phi and plo <= hi
        n += 1
        ok += overlap
        rows.append([p["set"], p["m"], p["method"] + ("" if p["method"] == name[p["method"]] else " (rfx pos)"),
                     "[%.4f, %.4f]" % (plo, phi), "[%.4f, %.4f]" % (lo, hi),
                     "overlap" if overlap else ("above" if lo > phi else "below")])
    if not n:
        raise Missing("no matching sets and m")
    blocks = [("p", "Minimal and maximal empirical MSE over the repetitions: the paper's and "
                    "ours; the paper's FAVOR+ beside rfx's pos (see docs/REPRODUCTION.md)."),
              md_table(["set", "m", "method", "paper", "rfx", "intervals"], rows)]
    # The means over the repetitions (Fig 6's lines) and their ratios to
    # the hybrid's: the paper's claim that the hybrid is best, in numbers.
    mean = {(r["set"], r["m"], r["method"]): float(r["mse_mean"]) for r in t3}
    others = [m for m in dict.fromkeys(r["method"] for r in t3) if m != "hyb-cluster"]
    mrows = []
    for st, m in dict.fromkeys((r["set"], r["m"]) for r in t3):
        h = mean.get((st, m, "hyb-cluster"))
        if not h:
            continue
        mrows.append([st, m, "%.4f" % h] + ["%.4f" % mean[(st, m, o)] if (st, m, o) in mean else "-"
                                            for o in others] +
                     ["%.2f" % (mean[(st, m, o)] / h) if (st, m, o) in mean else "-" for o in others])
    blocks += [("p", "Means over the repetitions (HRF Fig 6) and their ratios to Hybrid-Cluster's."),
               md_table(["set", "m", "hyb-cluster"] + others + ["%s / hyb" % o for o in others], mrows)]
    claim = dict(kind="number", claim="our [min, max] interval overlaps the paper's in every cell",
                 paper="Table 3", value="%d of %d overlap" % (ok, n), holds=ok == n, diff="-")
    return blocks, claim


def cmp_orf_table2(res):
    ref = read_tsv(os.path.join(REF, "orf_table2.tsv"))
    ours = res.table("fig_orf_table2", "svm_classify")
    rows, n, ok, diffs = [], 0, 0, []
    for p in ref:
        o = [r for r in ours if r["dataset"] == p["dataset"] and r["method"] == p["method"]
             and num(r["ratio"]) == num(p["ratio"])]
        if not o:
            continue
        om, osd = float(o[0]["acc_pct"]), float(o[0]["acc_pct_sd"])
        pm, psd = float(p["acc_pct"]), float(p["acc_pct_sd"])
        # Both spreads are standard deviations over draws: a cell agrees
        # when the two means are within twice their combined spread.
        good = abs(om - pm) <= 2 * math.hypot(osd, psd)
        n += 1
        ok += good
        diffs.append(om - pm)
        rows.append([p["dataset"], p["method"], "%sd" % p["ratio"], "%.2f +- %.2f" % (pm, psd),
                     "%.2f +- %.2f" % (om, osd), "%+.2f" % (om - pm), "within" if good else "beyond"])
    if not n:
        raise Missing("no dataset, method and D/d of the paper's")
    blocks = [("p", "Test accuracy (%), mean +- standard deviation over draws, the paper's and "
                    "ours; 'within' when the difference is at most twice the two standard "
                    "deviations combined. Only the paper's datasets that are in `data/` and the "
                    "D/d that this scale ran."),
              md_table(["dataset", "method", "D", "paper", "rfx", "rfx - paper", "cell"], rows)]
    claim = dict(kind="number", claim="every accuracy within twice the combined standard deviations of the paper's",
                 paper="Table 2", value="%d of %d cells within" % (ok, n), holds=ok == n,
                 diff="mean abs difference %.2f points" % (sum(abs(x) for x in diffs) / n))
    return blocks, claim


TABLES = {
    "orf_table2.tsv": cmp_orf_table2,
    "thesis_table6_1.tsv": cmp_table6_1,
    "thesis_table6_2.tsv": cmp_table6_2,
    "thesis_table6_3.tsv": cmp_table6_3,
    "hrf_table1.tsv": cmp_hrf_table1,
    "hrf_table3.tsv": cmp_hrf_table3,
}


# ---------------------------------------------------------------------------
# Evaluation.

def evaluate(figs, claims, res):
    ns = namespace(res)
    for c in claims:
        if "define" in c:
            for line in c["define"].split("\n"):
                name, expr = line.split("=", 1)
                ns[name.strip()] = eval(expr.strip(), ns)
    by_fig = {f["id"]: [] for f in figs}
    # "FIGURE/cells" blocks: why a printed table's cells may differ.
    cells_reason = {c["id"][:-len("/cells")]: c.get("reason", "") for c in claims
                    if c.get("id", "").endswith("/cells") and "check" not in c}
    for c in claims:
        if "define" in c or c.get("id", "").endswith("/cells"):
            continue
        if c.get("figure") not in by_fig:
            raise SystemExit("claims.txt: claim %s names unknown figure '%s'"
                             % (c.get("id"), c.get("figure")))
        r = dict(kind=c.get("kind", "shape"), claim=c["claim"], source=c.get("source", ""),
                 paper=c.get("paper", ""), reason=c.get("reason", ""), id=c.get("id", ""),
                 check=c["check"], expect=c["expect"])
        try:
            val = eval(c["check"], ns)
            r["value"] = fmt_value(val, c.get("format"))
            r["holds"] = expect_holds(val, c["expect"])
            r["diff"] = difference(val, c)
        except Missing as e:
            r.update(value="-", holds=None, diff="-", note=str(e))
        except Exception as e:  # a broken check is reported, not hidden
            r.update(value="error", holds=None, diff="-", note="%s: %s" % (type(e).__name__, e),
                     error=True)
        by_fig[c["figure"]].append(r)
    out = {}
    for f in figs:
        blocks, rs = [], list(by_fig[f["id"]])
        if f["published"] != "figure":
            fn = TABLES[f["published"]]
            try:
                b, cl = fn(res)
                blocks += b
                cl.update(source=f["source"], reason=cells_reason.get(f["id"], ""),
                          id=f["id"] + "/cells")
                rs.insert(0, cl)
            except Missing as e:
                blocks.append(("p", "Not evaluated: %s." % e))
        out[f["id"]] = (blocks, rs, verdict(rs))
    return out


def verdict(rs):
    ev = [r for r in rs if r["holds"] is not None]
    if not ev:
        return "not evaluated", []
    failed = [r for r in ev if not r["holds"]]
    if not failed:
        return "reproduced", []
    shape_failed = [r for r in failed if r["kind"] == "shape"]
    # A failing claim without a recorded reason is shown as unexplained.
    # One cause is listed once: reasons whose first clause (up to ';' or
    # ' (') is the same are one reason, told in its longest wording.
    reasons = {}
    for r in failed:
        text = r["reason"] or "unexplained: %s fails" % r["id"]
        key = re.split(r";| \(", text, 1)[0].strip()
        if len(text) > len(reasons.get(key, "")):
            reasons[key] = text
    reasons = list(reasons.values())
    # Qualitatively reproduced needs a qualitative claim that holds: a row
    # of numbers only, one of them off, differs.
    if shape_failed or not any(r["kind"] == "shape" and r["holds"] for r in ev):
        return "differs", reasons
    return "reproduced qualitatively", reasons


# ---------------------------------------------------------------------------
# Timings.

def read_times(results_dir):
    out = []
    for name in sorted(os.listdir(results_dir)):
        if name.endswith(".time"):
            try:
                rows = read_tsv(os.path.join(results_dir, name))
            except (OSError, IndexError):
                continue
            out += rows
    return out


def fmt_s(s):
    s = float(s)
    return "%.0f s" % s if s < 100 else "%.1f min" % (s / 60)


def timing_blocks(times, figs, results_dir):
    if not times:
        return [("p", "No timings recorded (experiments/timed.sh writes them).")]
    rows = []
    for t in sorted(times, key=lambda t: float(t["start"])):
        rows.append([t["experiment"], "`experiments/%s`" % os.path.basename(t["script"]), t["scale"],
                     fmt_s(t["wall_s"]), fmt_s(t["cpu_s"]),
                     "%s / %s" % (t["load_before"], t["load_after"]),
                     time.strftime("%Y-%m-%d %H:%M", time.gmtime(float(t["start"]))), t["run"]])
    blocks = [("table", ["experiment", "script", "scale", "wall", "CPU (user + sys)",
                         "load before / after", "started (UTC)", "make run"], rows)]
    runs = {t["run"] for t in times}
    wall = sum(float(t["wall_s"]) for t in times)
    cpu = sum(float(t["cpu_s"]) for t in times)
    cores = times[0].get("cores", "?")
    span = max(float(t["end"]) for t in times) - min(float(t["start"]) for t in times)
    text = ("Sum of the experiments' wall times %s, of their CPU times %s (%s cores online)."
            % (fmt_s(wall), fmt_s(cpu), cores))
    last = os.path.join(results_dir, "last_full_run.tsv")
    # The total is measured only by the make run that ran every experiment
    # (make exports its id as FIG_RUN); a later report reads it back.
    if len(runs) == 1 and list(runs)[0] == os.environ.get("FIG_RUN"):
        run = list(runs)[0]
        now = time.time()
        text += (" All of them ran in one make run (%s): from its start (including the build) "
                 "to this report %s; the experiments alone took %s of wall time from the first "
                 "start to the last end." % (run, fmt_s(now - float(run)), fmt_s(span)))
        full = {"run": run, "scale": times[0]["scale"], "total_s": "%.0f" % (now - float(run)),
                "experiments_s": "%.0f" % span, "cpu_s": "%.0f" % cpu,
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(float(run)))}
        with open(last, "w") as fh:
            fh.write("\t".join(full) + "\n" + "\t".join(full.values()) + "\n")
    else:
        if len(runs) > 1:
            text += (" The experiments ran in %d different make runs (only stale results "
                     "recompute), so there is no single total here." % len(runs))
        if os.path.exists(last):
            f = read_tsv(last)[0]
            text += (" The last make run that computed every experiment (%s, SCALE=%s) took %s from "
                     "start to report, %s of it the experiments (CPU %s)."
                     % (f["date"], f["scale"], fmt_s(f["total_s"]), fmt_s(f["experiments_s"]),
                        fmt_s(f["cpu_s"])))
    loads = [float(t["load_after"]) for t in times if num(t["load_after"]) is not None]
    if loads:
        text += (" The 1-minute load average at the end of the experiments ranged from %.1f to "
                 "%.1f: with other jobs on the machine, wall times are longer than on idle "
                 "cores, CPU times are not." % (min(loads), max(loads)))
    blocks.append(("p", text))
    return blocks


# ---------------------------------------------------------------------------
# Output: one list of blocks, rendered to Markdown and HTML.

def anchor(text):
    """GitHub's anchor for a Markdown heading."""
    a = text.strip().lower()
    a = re.sub(r"[^\w\- ]", "", a)
    return a.replace(" ", "-")


REPRO = os.path.join(TOP, "docs", "REPRODUCTION.md")


def repro_section(prefix):
    """The first heading of docs/REPRODUCTION.md (levels 2-4) that starts
    with prefix, and its section's text up to the next heading of the same
    or a higher level: (heading, text), or None."""
    if prefix in ("", "-") or not os.path.exists(REPRO):
        return None
    with open(REPRO) as fh:
        lines = fh.read().split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"^(#{2,4}) (.*)$", line)
        if m and m.group(2).startswith(prefix):
            level, body = len(m.group(1)), []
            for l in lines[i + 1:]:
                h = re.match(r"^(#{1,4}) ", l)
                if h and len(h.group(1)) <= level:
                    break
                body.append(l)
            return m.group(2).replace("`", ""), "\n".join(body).strip("\n")
    return None


def repro_link(prefix, md_dir):
    """A Markdown link to the section of docs/REPRODUCTION.md, or None. The
    HTML report embeds the section instead (a link to a .md file does not
    open from a browser): inline_html points such links at it."""
    sec = repro_section(prefix)
    if not sec:
        return None
    return "[%s](%s#%s)" % (sec[0], os.path.relpath(REPRO, md_dir), anchor(sec[0]))


def inline_html(s):
    s = html.escape(s, quote=False)
    s = re.sub(r"`([^`]+)`", r"<code>\1</code>", s)
    s = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", s)
    s = re.sub(r"\*([^*]+)\*", r"<i>\1</i>", s)
    # links into docs/REPRODUCTION.md go to its section embedded in the page
    s = re.sub(r"\[([^\]]+)\]\([^)]*REPRODUCTION\.md#([^)]+)\)", r'<a href="#repro-\2">\1</a>', s)
    s = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r'<a href="\2">\1</a>', s)
    return s


def md_cell(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def render_md(blocks, md_dir):
    out = []
    for b in blocks:
        kind = b[0]
        if kind in ("h1", "h2", "h3"):
            out.append("#" * int(kind[1]) + " " + b[1] + "\n")
        elif kind == "p":
            out.append(b[1] + "\n")
        elif kind == "pre":
            out.append("```\n" + b[1].rstrip("\n") + "\n```\n")
        elif kind == "table":
            head, rows = b[1], b[2]
            out.append("| " + " | ".join(md_cell(h) for h in head) + " |")
            out.append("|" + "---|" * len(head))
            for r in rows:
                out.append("| " + " | ".join(md_cell(c) for c in r) + " |")
            out.append("")
        elif kind == "img":
            out.append("![%s](%s)\n" % (b[2], os.path.relpath(b[1], md_dir)))
        # "details" (an embedded section of docs/REPRODUCTION.md): the
        # Markdown links to it instead
    return "\n".join(out)


def render_html(blocks, title):
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>%s</title>" % html.escape(title),
           "<style>body{font-family:sans-serif;max-width:80em;margin:auto;padding:1em}"
           "table{border-collapse:collapse;margin:0.5em 0}td,th{border:1px solid #ccc;"
           "padding:2px 6px;font-size:90%;vertical-align:top}th{background:#eee}"
           "img{max-width:100%;border:1px solid #ddd}.reproduced{background:#dfd}"
           ".qualitatively{background:#ffd}.differs{background:#fdd}</style></head><body>"]
    for b in blocks:
        kind = b[0]
        if kind in ("h1", "h2", "h3"):
            out.append('<%s id="%s">%s</%s>' % (kind, anchor(b[1]), inline_html(b[1]), kind))
        elif kind == "p":
            out.append("<p>%s</p>" % inline_html(b[1]))
        elif kind == "pre":
            out.append("<pre>%s</pre>" % html.escape(b[1]))
        elif kind == "table":
            out.append("<table><tr>" + "".join("<th>%s</th>" % inline_html(str(h)) for h in b[1])
                       + "</tr>")
            for r in b[2]:
                cells = []
                for c in r:
                    c = str(c)
                    cls = ""
                    if c.startswith("**reproduced qualitatively"):
                        cls = ' class="qualitatively"'
                    elif c.startswith("**reproduced"):
                        cls = ' class="reproduced"'
                    elif c.startswith("**differs"):
                        cls = ' class="differs"'
                    cells.append("<td%s>%s</td>" % (cls, inline_html(c)))
                out.append("<tr>" + "".join(cells) + "</tr>")
            out.append("</table>")
        elif kind == "details":
            out.append('<details id="repro-%s"><summary>Discussion: %s (docs/REPRODUCTION.md)'
                       "</summary><pre>%s</pre></details>"
                       % (anchor(b[1]), html.escape(b[1]), html.escape(b[2])))
        elif kind == "img":
            with open(b[1], "rb") as fh:
                data = base64.b64encode(fh.read()).decode("ascii")
            out.append('<figure><img src="data:image/png;base64,%s" alt="%s">'
                       "<figcaption>%s</figcaption></figure>"
                       % (data, html.escape(b[2]), inline_html(b[2])))
    out.append("</body></html>")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Beyond the papers (issue 19): the claims of FAVOR# and SimRF checked on
# rfx's exact variances and Monte Carlo, with the numbers behind each
# verdict, from the results of make figures (variance, beyond_simrf,
# beyond_uci, beyond_att) and, if present, make figures-beyond's
# results/beyond_ratio.tsv.

def mean(v):
    return sum(v) / len(v) if v else float("nan")


def beyond_favor(res):
    """FAVOR#'s "e^10 times smaller variance than OPRF and beyond" on thesis
    Fig 6.4's regimes: per regime the log of OPRF's (and GeomRF+'s) mean
    variance over the best DERF's, at every gamma."""
    rows = res.table("variance", "variance")
    by = {}
    for r in rows:
        by.setdefault((r["regime"], num(r["gamma"])), {})[r["method"]] = num(r["logvar_mean"])
    table, reached, best_all, geo = [], [], {}, {}
    for reg in sorted({k[0] for k in by}, key=lambda x: ["normal", "sphere", "heterogen",
                                                           "mnist"].index(x)
                      if x in ("normal", "sphere", "heterogen", "mnist") else 9):
        gs = sorted(g for (rg, g) in by if rg == reg)
        facs, gfac, names = [], [], []
        for g in gs:
            v = by[(reg, g)]
            derf = {m: v[m] for m in ("sderf", "aderf", "saderf") if m in v}
            if not derf or "oprf" not in v:
                continue
            bm = min(derf, key=derf.get)
            facs.append((g, v["oprf"] - derf[bm], bm))
            if "geom+" in v:
                gfac.append(v["geom+"] - derf[bm])
            names.append(bm)
        if not facs:
            continue
        mx = max(facs, key=lambda t: t[1])
        first10 = [g for g, f, _ in facs if f >= 10.0]
        if first10:
            reached.append("%s (gamma >= %g)" % (reg, first10[0]))
        best_all[reg] = mx[1]
        if gfac:
            geo[reg] = (min(gfac), max(gfac))
        table.append([reg, ", ".join(sorted(set(names))),
                      "%.2f" % facs[0][1], "%.2f" % facs[len(facs) // 2][1],
                      "%.2f (gamma %g)" % (mx[1], mx[0]),
                      "%.2f" % max(gfac) if gfac else "-",
                      "%.2f" % min(gfac) if gfac else "-"])
    if reached:
        verdict = ("**holds in part**: the best DERF's variance is e^10 or more below OPRF's only "
                   "in %s; elsewhere the factor stays below e^10 (largest: %s)" % (
                       ", ".join(reached),
                       ", ".join("%s e^%.1f" % (k, v) for k, v in best_all.items()
                                 if not any(x.startswith(k + " ") for x in reached))))
    else:
        verdict = ("**not reached** on these regimes: the largest factor is e^%.1f (%s, its "
                   "largest gamma; %s)" % (
                       max(best_all.values()), max(best_all, key=best_all.get),
                       ", ".join("%s e^%.2f" % (k, v) for k, v in best_all.items()
                                 if k != max(best_all, key=best_all.get))))
    if geo:
        lose = [k for k, (lo, hi) in geo.items() if lo < 0]
        verdict += ("; against GeomRF+ (the thesis' best positive estimator) the best DERF is "
                    "lower by up to e^%.1f%s" % (
                        max(hi for lo, hi in geo.values()),
                        (", but GeomRF+ is lower in %s at some gamma" % ", ".join(lose)) if lose
                        else ", at every point"))
    head = ["regime", "best DERF", "log factor vs OPRF, smallest gamma", "at the middle gamma",
            "largest", "log factor vs GeomRF+, largest", "smallest"]
    return verdict, ("table", head, table)


def beyond_simrf(res, results_dir):
    """The SimRF paper's two claims: simplex has the smallest variance among
    weight-independent couplings (here iid, ort, simplex; ort-anti is a
    norm coupling, shown beside), and simplex+ is smaller still."""
    rows = res.table("beyond_simrf", "map")
    v = {}
    for r in rows:
        v[(r["method"], int(r["d"]), num(r["w"]), r["projection"])] = num(r["log_variance"])
    blocks, lines = [], []
    viol = {"simplex<ort": 0, "ort<iid": 0, "ort-anti<ort": 0, "simplex<ort-anti": 0}
    npts = 0
    for m in ("pos", "oprf"):
        for d in sorted({k[1] for k in v if k[0] == m}):
            ws = sorted({k[2] for k in v if k[0] == m and k[1] == d})
            gain = [(w, v[(m, d, w, "simplex")] - v[(m, d, w, "ort")]) for w in ws]
            gi = [(w, v[(m, d, w, "ort")] - v[(m, d, w, "iid")]) for w in ws]
            ga = [(w, v[(m, d, w, "ort-anti")] - v[(m, d, w, "ort")]) for w in ws]
            for w in ws:
                npts += 1
                s, o, i, a = (v[(m, d, w, p)] for p in ("simplex", "ort", "iid", "ort-anti"))
                tol = 1e-9 * max(1.0, abs(o))
                viol["simplex<ort"] += s > o + tol
                viol["ort<iid"] += o > i + tol
                viol["ort-anti<ort"] += a > o + tol
                viol["simplex<ort-anti"] += s > a + tol
            w1 = [w for w, g in gain if abs(g) < 0.01]
            lines.append([m, str(d), "%.3f (w = %g)" % (gain[0][1], gain[0][0]),
                          "%.3f" % min(g for _, g in gain),
                          "%g" % w1[0] if w1 else "> %g" % ws[-1],
                          "%.3f" % min(g for _, g in gi),
                          "%.4f .. %.4f" % (min(g for _, g in ga), max(g for _, g in ga))])
    blocks.append(("table", ["method", "d", "log(Var simplex / Var ort), smallest w", "most negative",
                             "w from which the gain is < 1%", "log(Var ort / Var iid), most negative",
                             "log(Var ort-anti / Var ort), range"], lines))
    c1 = viol["simplex<ort"] == 0 and viol["ort<iid"] == 0
    alld = sorted({k[1] for k in v})
    allw = sorted({k[2] for k in v})
    v1 = ("**holds** on every point (%d: PosRF and OPRF, d = %s, w = %g .. %g): "
          "Var simplex <= Var ort <= Var iid; the gain is large where |x + y| is small "
          "(variance divided by up to e^%.1f) and vanishes as w grows, where one feature's "
          "variance dominates" % (npts, ", ".join(map(str, alld)), allw[0], allw[-1],
                                  -min(num(l[3]) for l in lines))) if c1 else \
        ("**fails** at %d of %d points (simplex above ort: %d, ort above iid: %d)" % (
            viol["simplex<ort"] + viol["ort<iid"], npts, viol["simplex<ort"], viol["ort<iid"]))
    v1 += (". rfx has three weight-independent couplings (iid, ort, simplex), so this checks "
           "the ordering the theorem implies, not the minimum over all couplings. The "
           "norm-coupled ort-anti (not weight-independent) is below ort at %d of %d points "
           "and above simplex at %d." % (npts - viol["ort-anti<ort"], npts,
                                          npts - viol["simplex<ort-anti"]))
    mc = read_tsv(os.path.join(results_dir, "beyond_simrf.h5.mc.tsv"))
    mrow, verd = [], {}
    idx = {(r["pair_d"], r["w"], r["projection"], r["method"]): r for r in mc}
    for (d, w, p, m), r in sorted(idx.items(), key=lambda t: (t[0][3], int(t[0][0]), num(t[0][1]))):
        if p != "simplex":
            continue
        q = idx.get((d, w, "simplex+", m))
        if not q:
            continue
        a, sa = num(r["mc_log_variance"]), num(r["mc_log_variance_se"])
        b, sb = num(q["mc_log_variance"]), num(q["mc_log_variance_se"])
        cf = num(r["log_variance"])
        diff, se = b - a, math.sqrt(sa * sa + sb * sb)
        z = diff / se if se > 0 else float("nan")
        verd.setdefault(m, []).append(z)
        mrow.append([m, d, w, "%.3f" % cf, "%.3f +- %.3f" % (a, sa), "%+.1f" % ((a - cf) / sa),
                     "%.3f +- %.3f" % (b, sb), "%+.3f" % diff, "%+.1f" % z])
    blocks.append(("table", ["method", "d", "w", "simplex closed form", "simplex MC",
                             "(MC - closed)/se", "simplex+ MC", "log(Var+ / Var)", "z"], mrow))
    parts = []
    for m, zs in sorted(verd.items()):
        better = sum(z < -2 for z in zs)
        worse = sum(z > 2 for z in zs)
        parts.append("%s: simplex+ below simplex by more than 2 se at %d of %d points, above at %d"
                     % (m, better, len(zs), worse))
    pos_ok = all(z < -2 for z in verd.get("pos", [])) if verd.get("pos") else None
    oprf_ok = all(z < -2 for z in verd.get("oprf", [])) if verd.get("oprf") else None
    if pos_ok and oprf_ok:
        v2 = "**holds** for PosRF and OPRF"
    elif pos_ok or any(z < -2 for z in verd.get("pos", [])):
        v2 = ("**holds for PosRF, not for OPRF**" if not oprf_ok else "**holds**")
    else:
        v2 = "**does not hold** where Monte Carlo can resolve it"
    v2 += " (" + "; ".join(parts) + "). SimRF+ chooses the directions, given the norms, to " \
        "lower PosRF's pair terms; OPRF weighs each feature by exp(2A|w|^2) with A < 0, a " \
        "different pair term, and there SimRF+ is worse than plain SimRF (still better than " \
        "ort: compare the closed forms above)"
    return v1, v2, blocks


def beyond_uci(res):
    """Mean test accuracy over the eight datasets per (method, projection,
    m/d), and how often each projection is the best of its method."""
    rows = [r for r in res.table("beyond_uci", "uci") if r["method"] != "exact"]
    seeds = sorted({r["seeds"] for r in rows})
    acc, ds = {}, set()
    for r in rows:
        ratio = int(r["M"]) // int(r["d"]) if int(r["d"]) else 0
        acc.setdefault((r["method"], r["projection"], ratio), {})[r["dataset"]] = num(r["test_pct"])
        ds.add(r["dataset"])
    ratios = sorted({k[2] for k in acc})
    projs = ["iid", "ort", "simplex", "simplex+", "ort-anti"]
    table, wins = [], {}
    for m in ("pos", "sderf"):
        for p in projs:
            cells = [mean(list(acc.get((m, p, q), {}).values())) for q in ratios]
            table.append([m, p] + ["%.1f" % c for c in cells])
        for q in ratios:
            for dset in ds:
                vals = {p: acc.get((m, p, q), {}).get(dset) for p in projs}
                vals = {p: x for p, x in vals.items() if x is not None}
                if vals:
                    top = max(vals.values())
                    for p, x in vals.items():
                        if x == top:
                            wins[(m, p)] = wins.get((m, p), 0) + 1
    for t in table:
        t.append(str(wins.get((t[0], t[1]), 0)))
    n = len(ds) * len(ratios)
    head = ["method", "projection"] + ["m/d = %d" % q for q in ratios] + \
        ["best of 5 (of %d dataset x m/d cells, ties count for each)" % n]
    mean_by = {(t[0], t[1]): mean([num(x) for x in t[2:2 + len(ratios)]]) for t in table}
    order = {m: sorted(projs, key=lambda p: -mean_by[(m, p)]) for m in ("pos", "sderf")}
    verdict = ("Here %s seeds and m/d = %s. Averaged over datasets and m/d the order is %s for PosRF and %s for SDERF. "
               "The paper's order (SimRF+ >= SimRF >= ORF >= iid) %s; with few seeds on test "
               "sets of 69 to 1403 rows most differences are within a few standard errors "
               "(`test_pct_se` in `beyond_uci.h5`), so this is a weak check" % (
                   ",".join(seeds), ",".join(map(str, ratios)), " > ".join(order["pos"]), " > ".join(order["sderf"]),
                   "holds for PosRF" if order["pos"].index("simplex+") < order["pos"].index("ort")
                   and order["pos"].index("simplex") < order["pos"].index("iid")
                   and order["pos"].index("ort") < order["pos"].index("iid")
                   else "does not hold exactly for PosRF"))
    return verdict, ("table", head, table)


def beyond_att(res):
    rows = res.table("beyond_att", "attention")
    v = {}
    for r in rows:
        v[(r["method"], r["proj"], int(r["budget"]))] = num(r["out_rel_fro_q50"])
    Ms = sorted({k[2] for k in v})
    projs = ["iid", "ort", "simplex", "simplex+", "ort-anti"]
    table = []
    best = {}
    for m in ("pos", "oprf", "sderf", "aderf", "saderf"):
        for M in Ms:
            vals = {p: v.get((m, p, M)) for p in projs}
            b = min((p for p in projs if vals[p] is not None), key=lambda p: vals[p])
            best[b] = best.get(b, 0) + 1
            table.append([m, str(M)] + ["%.4f" % vals[p] if vals[p] is not None else "-"
                                        for p in projs] + [b])
    verdict = ("the lowest median output error per (estimator, M): %s of %d cells%s; with 5 "
               "draws a cell's ranking is noisy, the counts are the signal" % (
                   ", ".join("%s %d" % (p, n) for p, n in sorted(best.items(), key=lambda t: -t[1])),
                   len(table), "" if best.get("iid") else " (iid never)"))
    return verdict, ("table", ["method", "M"] + projs + ["lowest"], table)


def beyond_blocks(res, args):
    """The section "Beyond the papers": verdicts with their numbers, then the
    figures of the manifest's [beyond]."""
    b = [("p", "Estimators and projections that came after the seed papers (issue 19: FAVOR#'s "
               "dense-exponential features, simplex and norm-coupled projections; "
               "`docs/DERIVATIONS.md`), and what their papers claim, checked on rfx's exact "
               "variances and Monte Carlo. Each verdict is computed here from the results.")]

    def part(title, fn):
        b.append(("h3", title))
        try:
            fn()
        except (Missing, OSError, KeyError, ValueError, ZeroDivisionError) as e:
            b.append(("p", "*not evaluated*: %s" % e))

    def favor():
        v, t = beyond_favor(res)
        b.append(("p", "FAVOR# (Likhosherstov et al., NeurIPS 2023) quotes \"e^10 times smaller "
                       "variance than OPRF and beyond\". On thesis Fig 6.4's four regimes (d = 64, "
                       "gamma 0.1 .. 1, 8 real features, parameters fitted on the sets; "
                       "`variance.h5`, closed forms), the log of OPRF's mean variance over "
                       "the best DERF's: " + v + ". The factor grows with gamma in every regime. "
                       "It also depends on L: the DERFs' d x d parameters are fitted on the sets, "
                       "and on fewer inputs (SCALE=fast, L = 128 for d = 64) they fit the sets' "
                       "second moments more closely and the factors come out larger than at the "
                       "paper's L = 1024."))
        b.append(t)

    def simrf():
        v1, v2, bl = beyond_simrf(res, args.results)
        b.append(("p", "SimRF (Reid et al., ICML 2023), claim 1: simplex random features have the "
                       "smallest MSE among weight-independent couplings of positive random "
                       "features. Exact variances (`beyond_simrf.h5`, `rfx variance --map sum "
                       "--projection iid,ort,simplex,ort-anti`, M = 64, x = y with |x + y|^2 = w; "
                       "Var/K^2 depends on the pair through w alone): " + v1))
        b.append(bl[0])
        b.append(("p", "Claim 2: SimRF+ is better still. simplex+ has no closed form (its "
                       "directions depend on the norms); Monte Carlo of simplex and simplex+ "
                       "side by side (`beyond_simrf.h5.mc.tsv`, M = d, w = 0.5 and 2 where the "
                       "tails let Monte Carlo resolve a few per cent), z = difference over the "
                       "combined standard error (conservative: one seed gives both kinds the same "
                       "R and norms, so their estimates are positively correlated): " + v2 +
                       ". The simplex closed form against "
                       "its own Monte Carlo is in the same table: at w = 2 PosRF's Monte Carlo "
                       "falls below the closed form, the heavy tail that Monte Carlo "
                       "under-reports."))
        b.append(bl[1])

    def uci():
        v, t = beyond_uci(res)
        b.append(("p", "SimRF's non-parametric classification (the thesis' Tables 6.2/6.3 setting "
                       "on the eight UCI datasets, `beyond_uci.h5`, `rfx uci-classify --ratio`; "
                       "at paper scale m/d = 1, 2, 4, 8 and 5 seeds, fewer than the paper's, to "
                       "keep it at about 20 CPU-s): mean test accuracy (%) over the datasets. " +
                       v + "."))
        b.append(t)

    def att():
        v, t = beyond_att(res)
        b.append(("p", "Random-feature attention (docs/ATTENTION.md) at thesis Fig 3.6's setting, "
                       "median relative output error over 5 draws (`beyond_att.h5`); "
                       "`fig_att_all` has every estimator, the DERFs included, on ort: " + v + "."))
        b.append(t)

    def ratio():
        p = os.path.join(args.results, "beyond_ratio.tsv")
        b.append(("p", "`make figures-beyond` (optional, not in `make figures`): the variance "
                       "ratio to ORF against |x| for PosRF and OPRF on simplex, simplex+ and "
                       "ort-anti, d = 4..64, closed form beside Monte Carlo "
                       "(`experiments/beyond_ratio.sh`, 20000 draws per point, about 10 "
                       "CPU-minutes: 20 times this section's budget). Its closed-form half is "
                       "`beyond_simrf` above at no cost (the ratio depends on the pair through "
                       "|x + y|^2 only, and beyond_ratio's pairs have |x + y|^2 = 3|x|^2); "
                       "what it adds is Monte Carlo at every point, to show where Monte Carlo "
                       "under-reports. Run it with `make figures-beyond` (results/"
                       "beyond_ratio.tsv)." + ("" if not os.path.exists(p) else
                                                " A run is present: `results/beyond_ratio.tsv`.")))

    part("FAVOR#: e^10 smaller variance than OPRF (Fig 6.4's regimes)", favor)
    part("SimRF: the smallest MSE among weight-independent couplings, and SimRF+", simrf)
    part("SimRF: UCI classification against m/d", uci)
    part("Attention error of the new estimators and projections", att)
    part("The MSE ratio to ORF against |x| (optional)", ratio)
    b.append(("h3", "Figures"))
    b.append(("p", "Figures `make figures` draws that have no counterpart in the papers."))
    return b


def build(args):
    man = manifest.read()
    figs = man["rows"]
    claims = read_claims(os.path.join(REF, "claims.txt"))
    res = Results(args.rfx, args.results)
    evald = evaluate(figs, claims, res)
    times = read_times(args.results)
    tby = {t["experiment"]: t for t in times}
    md_dir = os.path.dirname(os.path.abspath(args.md))
    scales = sorted({t["scale"] for t in times}) or ["?"]

    def fig_time(f):
        """Wall (CPU) time of the row's experiment; rows sharing one say so."""
        names = f["results"].split(",")
        ts = [tby[n] for n in names if n in tby]
        if not ts:
            return "-"
        shared = [g["item"] for g in figs if g is not f and g["results"] == f["results"]]
        return " + ".join("%s (CPU %s)" % (fmt_s(t["wall_s"]), fmt_s(t["cpu_s"])) for t in ts) + \
            ("; one run with %s" % ", ".join(shared) if shared else "")

    def headline(rs):
        """The claim the summary row shows: the first that fails (a number
        before a shape), else the first number, else the first claim."""
        ev = [r for r in rs if r["holds"] is not None]
        cand = [r for r in ev if r["holds"] is False and r["kind"] == "number"] or \
               [r for r in ev if r["holds"] is False] or \
               [r for r in ev if r["kind"] == "number"] or ev or rs
        return cand[0] if cand else None

    blocks = [("h1", "rfx reproduction report"),
              ("p", "Every figure and table of the seed papers that rfx reproduces, ours beside "
                    "theirs. Generated by `experiments/report.py` from `%s/*.h5` (SCALE=%s), the "
                    "published numbers in `experiments/reference/` and the papers' claims in "
                    "`experiments/reference/claims.txt`; every verdict is computed from them. "
                    "Binary: %s." % (os.path.relpath(args.results, TOP), ",".join(scales),
                                     rfx_version(args.rfx))),
              ("p", "Verdicts: **reproduced**, every claim holds and every printed number is within "
                    "its tolerance; **reproduced qualitatively**, the qualitative claims (orderings, "
                    "trends) hold but a number does not; **differs**, a qualitative claim fails, "
                    "or a number fails where the paper makes no qualitative claim; "
                    "*not evaluated*, the results lack the data (a smaller SCALE). The reasons are "
                    "those `claims.txt` gives for the claims that fail."),
              ("h2", "Summary")]
    if scales != ["full"]:
        blocks.insert(-1, ("p", "**These results are not at paper scale (SCALE=%s): the numbers, and "
                                "so the verdicts, are those of the small runs.** `make figures` runs "
                                "the paper scale." % ",".join(scales)))
    rows, count = [], {v: 0 for v in VERDICTS}
    for f in figs:
        fb, rs, (v, reasons) = evald[f["id"]]
        count[v] += 1
        h = headline(rs)
        plots = [p for p in f["plots"].split(",") if p != "-"]
        ours = ", ".join("`%s.png`" % p for p in plots) or "`%s.h5`" % f["results"]
        rows.append(["%s %s" % (f["paper"], f["item"]), ours,
                     (h["paper"] + ": " + h["claim"]) if h else "-",
                     h["value"] if h else "-", h["diff"] if h else "-",
                     "**%s**" % v, "; ".join(reasons) or "-", fig_time(f)])
    blocks.append(("table", ["paper, item", "ours", "published (headline claim)", "rfx", "difference",
                             "verdict", "why it differs", "time"], rows))
    blocks.append(("p", "%d rows: %s." % (len(figs), ", ".join("%d %s" % (count[v], v) for v in VERDICTS
                                                                 if count[v]))))
    embedded = set()
    for f in figs:
        fb, rs, (v, reasons) = evald[f["id"]]
        blocks.append(("h2", "%s %s: %s" % (f["paper"], f["item"], f["what"])))
        link = repro_link(f["notes"], md_dir)
        meta = ("%s, %s. Ours: `experiments/%s` (%s). Verdict: **%s**."
                % (PAPERS[f["paper"]], f["source"],
                   "`, `experiments/".join(f["experiments"].split(",")), fig_time(f), v))
        if reasons:
            meta += " Why: " + "; ".join(reasons) + "."
        if link:
            meta += " Discussion: " + link + "."
        blocks.append(("p", meta))
        sec = repro_section(f["notes"])
        if sec and sec[0] not in embedded:  # once: rows sharing it link to it
            embedded.add(sec[0])
            blocks.append(("details", sec[0], sec[1]))
        crow = []
        for r in rs:
            st = {True: "holds", False: "fails", None: "not evaluated"}[r["holds"]]
            if r.get("error"):
                st = "check error"
            crow.append([r["claim"] + (" (%s)" % r["source"] if r.get("source") and
                                        r["source"] != f["source"] else ""),
                         r["kind"], r["paper"], r["value"], r["diff"], st,
                         r.get("note") or (r["reason"] if r["holds"] is False else "")])
        if crow:
            blocks.append(("table", ["claim", "kind", "published", "rfx", "difference", "holds",
                                     "note"], crow))
        blocks += fb
        for p in [p for p in f["plots"].split(",") if p != "-"]:
            path = os.path.join(args.plots, p + ".png")
            if os.path.exists(path):
                blocks.append(("img", path, "%s %s, ours: %s.png" % (f["paper"], f["item"], p)))
            else:
                blocks.append(("p", "(no %s)" % os.path.relpath(path, TOP)))
    blocks.append(("h2", "Beyond the papers"))
    blocks += beyond_blocks(res, args)
    for b in man["beyond"]:
        path = os.path.join(args.plots, b["plot"] + ".png")
        if os.path.exists(path):
            blocks.append(("img", path, b["caption"]))
    blocks.append(("h2", "Time each experiment took"))
    blocks += timing_blocks(times, figs, args.results)
    blocks.append(("h2", "Not reproduced"))
    blocks.append(("p", "The papers' other figures and tables need what rfx does not compute: "
                        "trained Transformers, language and speech models and their benchmarks "
                        "(thesis chapters 5 and Figs 6.5-6.6, Table 6.4; HRF Figs 3, 4, 7-10, "
                        "Tables 2, 4, 5), binary embeddings (ORF Fig 6), the exact kernel SVM "
                        "(ORF Table 2's Exact column), datasets not in `data/` (forest, CIFAR, "
                        "gisette of ORF Figs 1, 4 and Table 2), or are diagrams (thesis Figs 4.2, "
                        "6.3). Thesis Figs 3.3 and 3.6 are not trained-model experiments: they "
                        "are computed on attention matrices (`rfx attention`), in the rows above."))

    md = render_md(blocks, md_dir)
    page = render_html(blocks, "rfx reproduction report")
    for path, text in ((args.md, md), (args.html, page)):
        tmp = path + ".tmp"
        try:
            with open(tmp, "w") as fh:
                fh.write(text)
            os.replace(tmp, path)
        except BaseException:
            # interrupted (SIGINT, or SIGTERM by the handler in main) or
            # failed: no half-written report under either name
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
    errors = [(fid, r) for fid, (b, rs, v) in evald.items() for r in rs if r.get("error")]
    for fid, r in errors:
        print("report.py: %s: check error: %s" % (r["id"] or fid, r["note"]), file=sys.stderr)
    return 1 if errors else 0


def print_tables(args):
    """--tables: the comparison blocks and claims of the named rows, as
    Markdown (experiments/uci_tables.sh and table_hrf3.sh print these)."""
    man = manifest.read()
    want = args.tables.split(",")
    figs = [f for f in man["rows"] if f["id"] in want]
    if len(figs) != len(want):
        raise SystemExit("report.py: no row %s in experiments/figures.tsv"
                         % ", ".join(w for w in want if w not in [f["id"] for f in figs]))
    ids = [f["id"] for f in figs]
    claims = [c for c in read_claims(os.path.join(REF, "claims.txt"))
              if "define" in c or c.get("figure") in ids or
              c.get("id", "").split("/")[0] in ids]
    evald = evaluate(figs, claims, Results(args.rfx, args.results))
    blocks = []
    for f in figs:
        fb, rs, (v, reasons) = evald[f["id"]]
        blocks.append(("h2", "%s %s: %s" % (f["paper"], f["item"], f["what"])))
        blocks += fb
        blocks.append(("table", ["claim", "published", "rfx", "difference", "holds"],
                       [[r["claim"], r["paper"], r["value"], r["diff"],
                         {True: "yes", False: "no", None: "not evaluated"}[r["holds"]]]
                        for r in rs]))
        blocks.append(("p", "Verdict: **%s**.%s" % (v, " Why: " + "; ".join(reasons) + "."
                                                    if reasons else "")))
    sys.stdout.write(render_md(blocks, "."))
    return 0


def rfx_version(rfx):
    try:
        # "rfx V (commit C)" then "blas: ..." (the kernels decide last bits)
        lines = subprocess.run([rfx, "--version"], capture_output=True,
                               text=True).stdout.strip().splitlines()
        return "; ".join(lines) if lines else "(unknown version)"
    except OSError:
        return "(unknown version)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default="results")
    ap.add_argument("--plots", default="plots")
    ap.add_argument("--md", default=None)
    ap.add_argument("--html", default=None)
    ap.add_argument("--rfx", default=os.environ.get("RFX", "./rfx"))
    ap.add_argument("--tables", default=None, metavar="ID,...",
                    help="print these rows' comparisons with the papers' tables and their "
                         "claims as Markdown on stdout, and write no report")
    args = ap.parse_args()
    if args.tables:
        sys.exit(print_tables(args))
    # SIGTERM as an exception, so that the report's temporary files go as
    # they do on SIGINT (make passes SIGTERM on to its recipes).
    signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))
    args.md = args.md or os.path.join(args.results, "REPORT.md")
    args.html = args.html or os.path.join(args.results, "REPORT.html")
    sys.exit(build(args))


if __name__ == "__main__":
    main()
