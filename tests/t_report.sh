#!/bin/sh
#
# Tests of the reproduction report's machinery (experiments/report.py,
# experiments/check_figures.py) on inputs made here, not on rfx's output:
# the verdict rules, the comparisons of 'expect', nearest-value selection,
# the claims file format; that the manifest (experiments/figures.tsv)
# reads and every figure it draws is shown; that every row has claims or a
# printed table, every claim names a known row and parses,
# every reference table says where it comes from; and the PNG decoder on
# images encoded here with each of the five PNG filters. Prints TAP.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both).

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
if [ ! -f "$RFX_TOP/experiments/report.py" ]; then
	echo "Bail out! cannot find experiments/report.py (set RFX_TOP)"
	exit 1
fi
command -v python3 > /dev/null 2>&1 || { echo "1..0 # SKIP no python3"; exit 0; }

exec python3 - "$RFX_TOP" << 'EOF'
import os, re, struct, sys, tempfile, zlib

top = sys.argv[1]
sys.path.insert(0, os.path.join(top, "experiments"))
import manifest
import report
import check_figures

n = 0
failed = 0


def ok(cond, desc):
    global n, failed
    n += 1
    print("%sok %d - %s" % ("" if cond else "not ", n, desc))
    if not cond:
        failed += 1
    return cond


def raises(fn, exc):
    try:
        fn()
    except exc:
        return True
    except Exception:
        return False
    return False


# --- verdicts ---------------------------------------------------------------
def c(kind, holds, reason=""):
    return dict(kind=kind, holds=holds, reason=reason, id="x")


ok(report.verdict([c("shape", True), c("number", True)])[0] == "reproduced",
   "verdict: every claim holds -> reproduced")
ok(report.verdict([c("shape", True), c("number", False, "E1")]) ==
   ("reproduced qualitatively", ["E1"]),
   "verdict: a number fails, the shapes hold -> reproduced qualitatively, with its reason")
ok(report.verdict([c("shape", False, "why"), c("number", True)]) == ("differs", ["why"]),
   "verdict: a shape fails -> differs, with its reason")
ok(report.verdict([c("number", False)])[0] == "differs",
   "verdict: numbers only, one fails -> differs (no qualitative claim holds)")
ok(report.verdict([c("number", False, "cause A (see x)"), c("number", False, "cause A; longer, y"),
                   c("shape", True)])[1] == ["cause A; longer, y"],
   "verdict: reasons with the same first clause are one reason, in the longest wording")
ok(report.verdict([c("shape", None), c("number", None)])[0] == "not evaluated",
   "verdict: nothing evaluated -> not evaluated")
ok(report.verdict([c("shape", True), c("number", None)])[0] == "reproduced",
   "verdict: claims without data do not count")
ok(report.verdict([c("shape", False)])[1] == ["unexplained: x fails"],
   "verdict: a failing claim without a reason is called unexplained")
ok(report.verdict([c("number", False, "a"), c("number", False, "a")])[1] == ["a"],
   "verdict: a reason shared by two claims is listed once")

# --- expect -----------------------------------------------------------------
E = report.expect_holds
ok(E(83.0, "> 80") and not E(80.0, "> 80") and E(-61.2, "< -60") and E(0.5, ">= 0.5"),
   "expect: > < >= on numbers")
ok(E("gerf", "== gerf") and not E("trig", "== gerf") and E(1.0, "== 1"),
   "expect: == on strings and numbers")
ok(E("geom+", "in oprf, geom+") and not E("pos", "in oprf, geom+"), "expect: in")
ok(E(["oprf", "geom+", "oprf"], "each in oprf, geom+") and
   not E(["oprf", "pos"], "each in oprf, geom+"), "expect: each in")
ok(E([1.0, 2.0, 3.0, 4.0], "== 1, 2, 3, 4") and not E([2.0, 3.0], "== 1, 2, 3, 4") and
   E(["wine", "boston"], "== wine, boston"), "expect: == on lists, item by item")
ok(E(True, "true") and E(False, "false") and not E(False, "true"), "expect: true, false")
ok(raises(lambda: E(1.0, "about 1"), ValueError), "expect: an unknown comparison is an error")

# --- the difference column -------------------------------------------------
D = report.difference
ok(D(83.0, dict(expect="> 80", paper="> e^80", format="e^%.1f")) == "+e^3.0" and
   D(58.75, dict(expect="> 75", paper="> e^75")) == "-16.2",
   "difference: against the expected number when the paper quotes it")
ok(D(0.36, dict(expect="> 0", paper="+1.2 (53.1 / 54.3)", diff_from="1.2", format="%+.2f")) == "-0.84",
   "difference: against diff_from when given")
ok(D(0.97, dict(expect="> 0.5", paper="in most cases")) == "-" and
   D(True, dict(expect="true", paper="x")) == "-" and D("gerf", dict(expect="== gerf", paper="GERF")) == "-",
   "difference: none for a threshold of ours, a yes/no or a name")

# --- selection: strings exactly, numbers nearest ----------------------------
rows = [dict(method=m, r="%g" % r, theta="%g" % t, v="%g" % (10 * r + t))
        for m in ("a", "b") for r in (0.5, 1, 1.5) for t in (0.1, 1.6, 3.1)]
s = report.select(rows, dict(method="b", r=1.1, theta=3.14159))
ok(len(s) == 1 and s[0]["r"] == "1" and s[0]["theta"] == "3.1",
   "select: numbers pick the nearest grid value (r 1.1 -> 1, theta pi -> 3.1)")
ok(report.select(rows, dict(method="c")) == [], "select: an absent string selects nothing")
ns = report.namespace(None)
res = type("R", (), {"table": lambda self, f, t: [dict(x="%d" % i, y="%g" % y) for i, y in
                                                   enumerate([5, 4, 3, 2, 1.5, 1.6, 1.4, 1.2, 1.1, 1])]})()
nsr = report.namespace(res)
ok(nsr["toward"]("f", "t", "y", "x", "max") and nsr["toward"]("f", "t", "y", "x", "max", span=0.3) and
   not nsr["toward"]("f", "t", "y", "x", "max", span=0.6) and not nsr["toward"]("f", "t", "y", "x", "min"),
   "toward: decreasing over the last step, over a span of the grid, not across a rise")
ok(ns["frac"]([True, False, True, True]) == 0.75, "frac: share of true values")

# --- the claims file format -------------------------------------------------
with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
    fh.write("# comment\ndefine: a = 1\ndefine: b = 2\n\nfigure: f\nid: x\n"
             "claim: two\n  lines\ncheck: a + b\nexpect: == 3\n")
blocks = report.read_claims(fh.name)
os.unlink(fh.name)
ok(len(blocks) == 2 and blocks[0]["define"] == "a = 1\nb = 2" and
   blocks[1]["claim"] == "two lines" and blocks[1]["check"] == "a + b",
   "claims: define lines collect, indented lines continue a value")

# --- the real manifest and claims -------------------------------------------
ref = os.path.join(top, "experiments", "reference")
man = manifest.read()
figs = man["rows"]
claims = report.read_claims(os.path.join(ref, "claims.txt"))
ids = [f["id"] for f in figs]
ok(len(ids) == 23 and len(set(ids)) == 23,
   "figures.tsv: 23 rows with distinct ids (thesis 9, HRF 6, ORF 8)")
ok(sorted(set(f["paper"] for f in figs)) == ["HRF", "ORF", "thesis"] and
   [f["paper"] for f in figs].count("thesis") == 9 and
   [f["paper"] for f in figs].count("HRF") == 6, "figures.tsv: rows per paper")
exps = [e["name"] for e in man["experiments"]]
drawn = [o for p in man["plots"] for o in manifest.items(p["outputs"])]
shown = [p for f in figs for p in manifest.items(f["plots"])] + [b["plot"] for b in man["beyond"]]
ok(sorted(set(drawn)) == sorted(set(shown)) and len(set(drawn)) == len(drawn),
   "manifest: every figure drawn is shown in the report (a row or [beyond]), once")
ok(all(r in exps for f in figs for r in manifest.items(f["results"])) and
   all(p["results"] in exps for p in man["plots"] + man["texts"]),
   "manifest: every results file a row, plot or text reads has its experiment")
ok(all(os.path.exists(os.path.join(top, "experiments", e["script"])) for e in man["experiments"])
   and all(os.path.exists(os.path.join(top, "plots", p["script"] + ".gp")) for p in man["plots"]),
   "manifest: every experiment and plot script exists")
bad = [f["id"] for f in figs if f["notes"] != "-" and not report.repro_section(f["notes"])]
ok(not bad, "manifest: every row's notes name a heading of docs/REPRODUCTION.md")
if bad:
    print("#     no heading for: %s" % bad)
rules = manifest.make_rules(man)
ok(all("$(R)/%s.h5 $(R)/%s.time &:" % (e, e) in rules for e in exps) and
   rules.count("$(GNUPLOT)") == len(man["plots"]),
   "manifest: the make rules have one rule per experiment and per plot")
mk = open(os.path.join(top, "experiments", "figures.mk")).read()
used = set(re.findall(r"\$\((\w+)\)", rules)) - {"MAKE", "TIMED", "GNUPLOT", "TMP_TRAP", "FIG_DRAW_AFTER"} \
    - {v for v in re.findall(r"^(FIG_\w+) =", rules, re.M)}
inc = mk.find("-include $(FIG_RULES)")
late = [v for v in sorted(used) if not re.search(r"^%s\s*:?=" % v, mk[:inc], re.M)]
ok(inc > 0 and not late, "figures.mk defines what the manifest's prerequisites use before including them")
if late:
    print("#     defined after the include: %s" % late)
with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as fh:
    fh.write("[experiments]\nname\tscript\ncut\n")
ok(raises(lambda: manifest.read(fh.name), SystemExit), "manifest: a short row is an error")
os.unlink(fh.name)
p = manifest.plan(man, "RFX=./rfx experiments/timed.sh r/fig6_1.h5 experiments/fig6_1.sh\n"
                  "RFX=./rfx experiments/timed.sh r/uci.h5 experiments/table6_2.sh\n", "/nonexistent",
                  "full", 2)
cpu = {e["name"]: float(e["cpu_s"]) for e in man["experiments"]}
ok(p == "jobs\t2\nuci\t%.1f\nfig6_1\t%.1f\n" % (cpu["uci"], cpu["fig6_1"]),
   "manifest: the plan lists the stale experiments in the manifest's order, with their times")
bad = [c.get("id") for c in claims if "define" not in c and not c.get("id", "").endswith("/cells")
       and (c.get("figure") not in ids or c.get("kind") not in ("shape", "number")
            or not c.get("claim") or not c.get("source") or not c.get("paper"))]
ok(not bad, "claims.txt: every claim names a row, a kind, a source, the claim and the paper's words")
if bad:
    print("#     bad: %s" % bad)
bad = []
for cl in claims:
    if "check" in cl:
        try:
            compile(cl["check"], cl.get("id", "?"), "eval")
            report.parse_expect(cl["expect"])
        except (SyntaxError, ValueError) as e:
            bad.append("%s: %s" % (cl.get("id"), e))
ok(not bad, "claims.txt: every check compiles and every expect parses")
for b in bad:
    print("#     " + b)
covered = {cl.get("figure") for cl in claims if "check" in cl}
ok(all(f["id"] in covered or f["published"] != "figure" for f in figs),
   "every figure row has claims; table rows have their printed table")
tables = [f["published"] for f in figs if f["published"] != "figure"]
ok(all(t in report.TABLES for t in tables), "every printed table has a comparison in report.py")
cells = {cl["id"][:-6] for cl in claims if cl.get("id", "").endswith("/cells")}
ok(cells == {f["id"] for f in figs if f["published"] != "figure"},
   "every printed table has the reason its cells may differ, and only those")
bad = []
for name in sorted(os.listdir(ref)):
    if name.endswith(".tsv"):
        head = "".join(l for l in open(os.path.join(ref, name)) if l.startswith("#"))
        if not (("Thesis" in head or "HRF" in head or "ORF" in head) and
                ("sec." in head or "appendix" in head) and "Transcribed once" in head):
            bad.append(name)
ok(not bad, "each reference table names its paper, section and transcription")
for b in bad:
    print("#     " + b)

# --- the PNG decoder, on images encoded here ---------------------------------
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def encode(w, h, pix, bpp, ctype):
    """A PNG of rows of bytes, row y filtered with filter y % 5."""
    raw, prev = b"", bytes(w * bpp)
    for y, line in enumerate(pix):
        f = y % 5
        out = bytearray()
        for i, x in enumerate(line):
            a = line[i - bpp] if i >= bpp else 0
            b, cc = prev[i], prev[i - bpp] if i >= bpp else 0
            pred = [0, a, b, (a + b) >> 1, paeth(a, b, cc)][f]
            out.append((x - pred) & 0xff)
        raw += bytes([f]) + bytes(out)
        prev = line
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, ctype, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


w, h = 23, 17
pix = [bytes(((x * 7 + y * 13 + k * 50) * (x ^ y)) & 0xff for x in range(w) for k in range(3))
       for y in range(h)]
got = check_figures.png_pixels(encode(w, h, pix, 3, 2))
ok(got[0] == w and got[1] == h and got[2] == pix,
   "png: an RGB image with rows under each of the five filters decodes exactly")
pixa = [bytes((x * y + k) & 0xff for x in range(w) for k in range(4)) for y in range(h)]
got = check_figures.png_pixels(encode(w, h, pixa, 4, 6))
ok(got[2] == pixa and got[3] == 4, "png: RGBA too")
data = bytearray(encode(w, h, pix, 3, 2))
data[40] ^= 1
ok(raises(lambda: check_figures.png_pixels(bytes(data)), ValueError), "png: a corrupted chunk is an error")

sys.stderr = open(os.devnull, "w")  # check_figures reports problems there too
with tempfile.TemporaryDirectory() as d:
    blank = os.path.join(d, "blank.png")
    with open(blank, "wb") as fh:
        fh.write(encode(40, 30, [bytes([255] * 120)] * 30, 3, 2))
    drawn = os.path.join(d, "drawn.png")
    # White, a black line across rows 4-6 and a red one down columns 10-12.
    white, black, red = (255, 255, 255), (0, 0, 0), (255, 0, 0)
    rows_ = [bytes(v for x in range(40) for v in (black if 4 <= y <= 6 else
                                                   red if 10 <= x <= 12 else white))
             for y in range(30)]
    with open(drawn, "wb") as fh:
        fh.write(encode(40, 30, rows_, 3, 2))
    check_figures.problems.clear()
    check_figures.check_png(blank, (40, 30))
    ok(any("blank" in p for p in check_figures.problems), "png check: a uniform image is blank")
    check_figures.problems.clear()
    check_figures.check_png(drawn, (40, 30))
    ok(not check_figures.problems, "png check: an image with lines in three colours passes")
    check_figures.problems.clear()
    check_figures.check_png(drawn, (41, 30))
    ok(any("40x30, want 41x30" in p for p in check_figures.problems), "png check: a wrong size is reported")
    check_figures.problems.clear()

# --- Beyond the papers: verdicts from constructed results -------------------
class FakeRes:
    """Tables given as lists of dicts, as report.Results returns them."""
    def __init__(self, tables):
        self.t = tables

    def table(self, name, table):
        if (name, table) not in self.t:
            raise report.Missing("no %s" % name)
        return self.t[(name, table)]


def var_rows(fac):
    """variance.h5's variance rows: OPRF at 0, ADERF at -fac[regime][gamma],
    SDERF one above ADERF, GeomRF+ at +1."""
    out = []
    for reg, fs in fac.items():
        for g, f in fs:
            for m, v in (("oprf", 0.0), ("aderf", -f), ("sderf", 1.0 - f), ("geom+", 1.0)):
                out.append(dict(regime=reg, gamma=str(g), method=m, logvar_mean=str(v)))
    return out


v, t = report.beyond_favor(FakeRes({("variance", "variance"):
                                    var_rows({"normal": [(0.1, 1.0), (1.0, 4.0)],
                                              "heterogen": [(0.1, 2.0), (0.5, 10.5), (1.0, 12.0)]})}))
ok(v.startswith("**holds in part**") and "heterogen (gamma >= 0.5)" in v and "normal e^4.0" in v,
   "beyond: e^10 reached in one regime from gamma 0.5 is 'holds in part': " + v[:80])
ok([r[1] for r in t[2]] == ["aderf", "aderf"] and t[2][1][4] == "12.00 (gamma 1)",
   "beyond: the best DERF and the largest log factor per regime")
v, t = report.beyond_favor(FakeRes({("variance", "variance"):
                                    var_rows({"sphere": [(0.1, 0.5), (1.0, 9.9)]})}))
ok(v.startswith("**not reached**") and "e^9.9" in v, "beyond: e^9.9 is not e^10: " + v[:60])

# beyond_simrf: a map with simplex < ort < iid except one point, and a
# Monte Carlo table where simplex+ is lower for pos and higher for oprf.
mp = []
for m in ("pos", "oprf"):
    for w in (0.5, 1.0, 2.0):
        for p, lv in (("iid", 0.0), ("ort", -0.1), ("simplex", -0.5 / w), ("ort-anti", -0.11)):
            if m == "oprf" and w == 2.0 and p == "simplex":
                lv = 0.05  # above ort and iid
            mp.append(dict(method=m, d="4", w=str(w), projection=p, log_variance=str(lv)))
tmpd = tempfile.mkdtemp()
with open(os.path.join(tmpd, "beyond_simrf.h5.mc.tsv"), "w") as fh:
    fh.write("pair_d\tw\tprojection\tmethod\tlog_variance\tmc_log_variance\tmc_log_variance_se\n")
    for m, dplus in (("pos", -0.3), ("oprf", 0.3)):
        fh.write("4\t0.5\tsimplex\t%s\t-1.0\t-1.01\t0.01\n" % m)
        fh.write("4\t0.5\tsimplex+\t%s\t0.5\t%r\t0.01\n" % (m, -1.01 + dplus))
v1, v2, bl = report.beyond_simrf(FakeRes({("beyond_simrf", "map"): mp}), tmpd)
ok(v1.startswith("**fails** at 1 of 6 points"),
   "beyond: simplex above ort and iid at one point fails claim 1 there: " + v1[:50])
ok(v2.startswith("**holds for PosRF, not for OPRF**"),
   "beyond: simplex+ 30 se lower for pos, higher for oprf: " + v2[:40])
ok([r[8] for r in bl[1][2]] == ["+21.2", "-21.2"],
   "beyond: z = difference over the combined standard error (0.3 / (0.01 sqrt 2))")
mp = [r for r in mp if not (r["method"] == "oprf" and r["w"] == "2.0")]
v1, v2, bl = report.beyond_simrf(FakeRes({("beyond_simrf", "map"): mp}), tmpd)
ok(v1.startswith("**holds** on every point (5: PosRF and OPRF, d = 4, w = 0.5 .. 2)"),
   "beyond: claim 1 holds where the order does: " + v1[:70])

print("1..%d" % n)
sys.exit(1 if failed else 0)
EOF
