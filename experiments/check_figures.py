#!/usr/bin/env python3
"""Checks what `make figures` made (make figures-smoke runs it on the
SCALE=fast outputs): every results file the report names opens and has a
table with rows; every figure has its PNG and PDF; each PNG decodes, has
the size its gnuplot script asks for and is not blank; each PDF is a
complete PDF of more than a few bytes; each experiment recorded its time;
and the report, Markdown and HTML, has a row for every figure and table of
the manifest (experiments/figures.tsv), with every PNG embedded in the
HTML. The files to check are those the manifest names.
Prints one line per problem and exits 1 if there is any.

The PNG check decodes the image itself (zlib and the PNG filters; no PIL)
and calls it blank when fewer than 0.5% of its pixels differ from the most
common colour, or when it has fewer than 3 colours.

usage: experiments/check_figures.py [--results DIR] [--plots DIR]
"""

import argparse
import base64
import os
import re
import struct
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import manifest  # noqa: E402  (the one list of figures)
import report  # noqa: E402  (the verdicts and the TSV reader)

# PNG sizes, from the terminals of plots/common.gp: png_term, and
# png_term1 for the figures of one panel (their scripts use it; Fig 5(c)'s
# shared script when the run has one dataset, as make figures' has).
def _terms():
    with open(os.path.join(TOP, "plots", "common.gp")) as fh:
        text = fh.read()
    size = lambda name: tuple(int(x) for x in re.search(
        r'^%s = "set terminal pngcairo size (\d+),(\d+)' % name, text, re.M).groups())
    return size("png_term"), size("png_term1")


DEFAULT_SIZE, ONE_PANEL_SIZE = _terms()
SIZES = {p: ONE_PANEL_SIZE for p in ("fig6_2", "fig_orf2c", "fig_orf5c")}
problems = []


def problem(msg):
    problems.append(msg)
    print("check_figures: " + msg, file=sys.stderr)


def png_pixels(data):
    """Decodes a PNG: (width, height, rows of bytes, bytes per pixel)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG signature")
    pos, idat, ihdr, plte = 8, b"", None, None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        crc = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]
        if zlib.crc32(kind + chunk) & 0xffffffff != crc:
            raise ValueError("bad CRC in chunk %r" % kind)
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"PLTE":
            plte = chunk
        elif kind == b"IDAT":
            idat += chunk
        elif kind == b"IEND":
            break
        pos += 12 + n
    if ihdr is None:
        raise ValueError("no IHDR")
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or interlace:
        raise ValueError("unsupported PNG: depth %d, interlace %d" % (depth, interlace))
    bpp = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    raw = zlib.decompress(idat)
    stride = w * bpp
    if len(raw) != h * (stride + 1):
        raise ValueError("IDAT holds %d bytes, want %d" % (len(raw), h * (stride + 1)))
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xff
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xff
        elif f == 3:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((a + prev[i]) >> 1)) & 0xff
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 0xff
        elif f != 0:
            raise ValueError("bad filter type %d in row %d" % (f, y))
        rows.append(bytes(line))
        prev = line
    return w, h, rows, bpp


def check_png(path, want):
    try:
        with open(path, "rb") as fh:
            w, h, rows, bpp = png_pixels(fh.read())
    except (OSError, ValueError, KeyError, zlib.error, struct.error) as e:
        problem("%s: does not decode: %s" % (path, e))
        return
    if (w, h) != want:
        problem("%s: %dx%d, want %dx%d" % (path, w, h, want[0], want[1]))
    counts = {}
    for r in rows[::2]:  # every other row and pixel is plenty for a plot
        for i in range(0, len(r), 2 * bpp):
            px = r[i:i + bpp]
            counts[px] = counts.get(px, 0) + 1
    total = sum(counts.values())
    top = max(counts.values())
    if len(counts) < 3 or (total - top) < 0.005 * total:
        problem("%s: blank (%d colours, %.2f%% of pixels off the background)"
                % (path, len(counts), 100.0 * (total - top) / total))


def check_pdf(path):
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        problem("%s: %s" % (path, e))
        return
    if not data.startswith(b"%PDF-"):
        problem("%s: not a PDF" % path)
    elif b"%%EOF" not in data[-1024:]:
        problem("%s: truncated (no %%%%EOF)" % path)
    elif len(data) < 4000 or b"/Page" not in data:
        problem("%s: trivial (%d bytes)" % (path, len(data)))


def check_h5(rfx, path):
    r = subprocess.run([rfx, "dump", path], capture_output=True, text=True)
    if r.returncode != 0:
        problem("%s: rfx dump fails: %s" % (path, r.stderr.strip()))
        return
    tables = re.findall(r"^# (\S+)$", r.stdout, re.M)
    body = [l for l in r.stdout.split("\n") if l and not l.startswith("#")]
    if not tables or len(body) <= len(tables):
        problem("%s: no table with rows" % path)
    a = subprocess.run([rfx, "dump", path, "--attrs"], capture_output=True, text=True)
    if a.returncode != 0 or "rfx_version" not in a.stdout:
        problem("%s: no rfx attributes" % path)


def check_report(results, plots, figs, beyond):
    md = os.path.join(results, "REPORT.md")
    page = os.path.join(results, "REPORT.html")
    try:
        text = open(md).read()
        html = open(page).read()
    except OSError as e:
        problem("report: %s" % e)
        return
    summary = text.split("## Summary", 1)[-1].split("\n## ", 1)[0]
    rows = [l for l in summary.split("\n") if l.startswith("| ") and not l.startswith("| paper")]
    for f in figs:
        label = "%s %s" % (f["paper"], f["item"])
        hits = [r for r in rows if r.startswith("| %s |" % label)]
        if len(hits) != 1:
            problem("REPORT.md: %d summary rows for %s, want 1" % (len(hits), label))
            continue
        cells = [c.strip() for c in hits[0].strip("|").split(" | ")]
        verdict = cells[5].strip("*") if len(cells) > 5 else ""
        if verdict not in report.VERDICTS:
            problem("REPORT.md: %s has no verdict (%r)" % (label, verdict))
        if "## %s: " % label not in text:
            problem("REPORT.md: no section for %s" % label)
        if (">%s</td>" % label) not in html:
            problem("REPORT.html: no row for %s" % label)
    if len(rows) != len(figs):
        problem("REPORT.md: %d summary rows, want %d" % (len(rows), len(figs)))
    if "check error" in text:
        problem("REPORT.md: a claim's check failed to evaluate")
    imgs = re.findall(r'src="data:image/png;base64,([^"]+)"', html)
    want = [p for f in figs for p in manifest.items(f["plots"])] + beyond
    if len(imgs) != len(want):
        problem("REPORT.html: %d embedded PNGs, want %d" % (len(imgs), len(want)))
    files = set()
    for p in want:
        try:
            with open(os.path.join(plots, p + ".png"), "rb") as fh:
                files.add(fh.read())
        except OSError:
            pass
    for k, b in enumerate(imgs):
        if base64.b64decode(b) not in files:
            problem("REPORT.html: embedded image %d is none of the figures' PNGs" % (k + 1))
    if "## Time each experiment took" not in text:
        problem("REPORT.md: no timings section")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default="results")
    ap.add_argument("--plots", default="plots")
    ap.add_argument("--rfx", default=os.environ.get("RFX", "./rfx"))
    args = ap.parse_args()
    man = manifest.read()
    figs = man["rows"]
    beyond = [b["plot"] for b in man["beyond"]]
    results = [e["name"] for e in man["experiments"]]
    plots = [o for p in man["plots"] for o in manifest.items(p["outputs"])]
    for n in results:
        path = os.path.join(args.results, n + ".h5")
        if not os.path.exists(path):
            problem("%s: missing" % path)
            continue
        check_h5(args.rfx, path)
        t = os.path.join(args.results, n + ".time")
        try:
            row = report.read_tsv(t)[0]
            if float(row["wall_s"]) < 0 or float(row["cpu_s"]) < 0:
                problem("%s: negative time" % t)
        except (OSError, IndexError, KeyError, ValueError) as e:
            problem("%s: no timing (%s)" % (t, e))
    for p in plots:
        png = os.path.join(args.plots, p + ".png")
        pdf = os.path.join(args.plots, p + ".pdf")
        if not os.path.exists(png):
            problem("%s: missing" % png)
        else:
            check_png(png, SIZES.get(p, DEFAULT_SIZE))
        if not os.path.exists(pdf):
            problem("%s: missing" % pdf)
        else:
            check_pdf(pdf)
    check_report(args.results, args.plots, figs, beyond)
    n = len(results) + 2 * len(plots)
    if problems:
        print("check_figures: %d problems in %s and %s" % (len(problems), args.results, args.plots),
              file=sys.stderr)
        sys.exit(1)
    print("check_figures: ok: %d results files, %d figures (PNG and PDF), REPORT.md and "
          "REPORT.html with %d rows" % (len(results), len(plots), len(figs)), file=sys.stderr)
    return n


if __name__ == "__main__":
    main()
