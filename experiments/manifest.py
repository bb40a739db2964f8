#!/usr/bin/env python3
"""The figure manifest, experiments/figures.tsv: its reader, and the two
things make figures asks of it.

  manifest.py make
      prints the make rules of every experiment, plot and text table
      (experiments/figures.mk includes them as build/figures.rules.mk), in
      terms of figures.mk's variables $(R), $(P), $(TIMED), $(GNUPLOT)
  manifest.py plan --results DIR [--scale S] [--jobs N] < make-n-output
      reads the dry run of the experiments (make -n), which names the
      stale ones, and prints the plan experiments/timed.sh reads to number
      its progress lines and estimate the time left: one line per
      experiment to run, with its expected wall seconds from the recorded
      times of earlier runs (DIR/times.log, written by timed.sh) at this
      scale, else the manifest's CPU seconds at SCALE=full, else '-'

experiments/report.py and experiments/check_figures.py import read() for
the report's rows and the files to check, so that the manifest is the one
list of figures.
"""

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
PATH = os.path.join(HERE, "figures.tsv")
SECTIONS = ("experiments", "plots", "texts", "rows", "beyond")


def read(path=PATH):
    """{section: [row dicts]} of every section of the manifest, in file order.
    SystemExit naming the line for a malformed file (a row whose field count
    differs from its header's, a row before any section, an unknown section)."""
    out, sec, head = {s: [] for s in SECTIONS}, None, None
    with open(path) as fh:
        for no, line in enumerate(fh, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            m = re.match(r"^\[(\w+)\]$", line)
            if m:
                sec, head = m.group(1), None
                if sec not in out:
                    raise SystemExit("%s:%d: unknown section '%s'" % (path, no, sec))
                continue
            if sec is None:
                raise SystemExit("%s:%d: a row before any [section]" % (path, no))
            f = line.split("\t")
            if head is None:
                head = f
                continue
            if len(f) != len(head):
                raise SystemExit("%s:%d: %d fields, the header of [%s] has %d"
                                 % (path, no, len(f), sec, len(head)))
            out[sec].append(dict(zip(head, f)))
    return out


def items(s):
    """A list field as a list ('-' is the empty list)."""
    return [] if s in ("", "-") else s.split(",")


def loads(gp):
    """The scripts plots/GP.gp loads, transitively (its make prerequisites)."""
    seen, todo = [], ["plots/%s.gp" % gp]
    while todo:
        p = todo.pop(0)
        if p in seen:
            continue
        seen.append(p)
        with open(os.path.join(TOP, p)) as fh:
            todo += re.findall(r'^\s*load\s+"([^"]+)"', fh.read(), re.M)
    return seen


def make_rules(m):
    """The make rules of the manifest, as text."""
    out = ["# Made by experiments/manifest.py from experiments/figures.tsv: do not edit.", ""]
    ref = "experiments/reference/"
    exps = [e["name"] for e in m["experiments"]]
    out.append("FIG_RESULTS = " + " ".join("$(R)/%s.h5" % e for e in exps))
    plots = [o for p in m["plots"] for o in items(p["outputs"])]
    out.append("FIG_PLOTS = " + " ".join("$(P)/%s.png $(P)/%s.pdf" % (o, o) for o in plots))
    out.append("FIG_TEXT = " + " ".join("$(R)/%s" % t["output"] for t in m["texts"]))
    refs = sorted({ref + r for sec in ("plots", "texts") for p in m[sec] for r in items(p["refs"])}
                  | {ref + r["published"] for r in m["rows"] if r["published"] != "figure"})
    out.append("FIG_REFS = " + " ".join(refs))
    # What is drawn from each experiment's results: with FIG_DRAW_AFTER
    # set, its recipe draws them as soon as the results exist (a sub-make;
    # '-': a failure there is reported again by make figures' last pass,
    # and must not delete the results).
    for e in exps:
        after = ["$(P)/%s.png $(P)/%s.pdf" % (o, o) for p in m["plots"] if p["results"] == e
                 for o in items(p["outputs"])]
        after += ["$(R)/%s" % t["output"] for t in m["texts"] if t["results"] == e]
        out.append("FIG_AFTER_%s = %s" % (e, " ".join(after)))
    out.append("")
    for e in m["experiments"]:
        r = "$(R)/%s" % e["name"]
        out.append("%s.h5 %s.time &: experiments/%s $(EXP_DEPS)" % (r, r, e["script"]))
        out.append("\t@$(TIMED) %s.h5 experiments/%s" % (r, e["script"]))
        if any(p["results"] == e["name"] for p in m["plots"] + m["texts"]):
            out.append("\t$(if $(FIG_DRAW_AFTER),-@$(MAKE) -s --no-print-directory $(FIG_AFTER_%s))"
                       % e["name"])
        out.append("")
    for p in m["plots"]:
        outs = items(p["outputs"])
        if p["results"] not in exps:
            raise SystemExit("figures.tsv: plot %s reads '%s', no experiment" % (p["script"], p["results"]))
        targets = " ".join("$(P)/%s.png $(P)/%s.pdf" % (o, o) for o in outs)
        deps = loads(p["script"]) + ["$(R)/%s.h5" % p["results"]] + [ref + r for r in items(p["refs"])]
        var = ["rfx='./rfx'", "in='$(R)/%s.h5'" % p["results"], "ref='experiments/reference'"]
        var += ["%s='$(P)/%s'" % ("out" if i == 0 else "out%d" % (i + 1), o) for i, o in enumerate(outs)]
        if items(p["refs"]):
            var.append("paper='%s%s'" % (ref, items(p["refs"])[0]))
        out.append("%s &: %s | rfx" % (targets, " ".join(deps)))
        out.append("\t@echo '   ' PLOT %s >&2" % " ".join(outs))
        out.append('\t@$(GNUPLOT) -e "%s" plots/%s.gp' % ("; ".join(var), p["script"]))
        out.append("")
    for t in m["texts"]:
        # The text tables are the report's comparisons (report.py --tables).
        deps = ["experiments/%s" % t["script"], "$(R)/%s.h5" % t["results"],
                "experiments/report.py", ref + "claims.txt"] + [ref + r for r in items(t["refs"])]
        out.append("$(R)/%s: %s | rfx" % (t["output"], " ".join(deps)))
        out.append("\t@echo '   ' GEN $@ >&2")
        out.append("\t@$(TMP_TRAP) RFX=./rfx experiments/%s $(R)/%s.h5 > $@.tmp && mv $@.tmp $@"
                   % (t["script"], t["results"]))
        out.append("")
    return "\n".join(out)


def recorded(results, scale):
    """{experiment: wall seconds of its last recorded run at this scale}."""
    out = {}
    try:
        with open(os.path.join(results, "times.log")) as fh:
            for line in fh:
                f = line.rstrip("\n").split("\t")
                if len(f) >= 3 and f[1] == scale:
                    try:
                        out[f[0]] = float(f[2])
                    except ValueError:
                        pass
    except OSError:
        pass
    return out


def plan(m, dry_run, results, scale, jobs):
    """The plan's text: 'jobs N', then 'name<TAB>expected seconds or -' for
    each experiment the dry run would run, in the manifest's order."""
    runs = set(re.findall(r"timed\.sh\s+\S*/([^/\s]+)\.h5\s", dry_run))
    rec = recorded(results, scale)
    lines = ["jobs\t%d" % jobs]
    for e in m["experiments"]:
        if e["name"] not in runs:
            continue
        t = rec.get(e["name"])
        if t is None and scale == "full":
            t = float(e["cpu_s"])
        lines.append("%s\t%s" % (e["name"], "-" if t is None else "%.1f" % t))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=("make", "plan"))
    ap.add_argument("--results", default="results")
    ap.add_argument("--scale", default=os.environ.get("SCALE", "full"))
    ap.add_argument("--makeflags", default=os.environ.get("MAKEFLAGS", ""))
    args = ap.parse_args()
    m = read()
    if args.what == "make":
        sys.stdout.write(make_rules(m))
    else:
        j = re.search(r"(?:^|\s)-\w*j\s*(\d+)", " " + args.makeflags)
        sys.stdout.write(plan(m, sys.stdin.read(), args.results, args.scale,
                              int(j.group(1)) if j else 1))


if __name__ == "__main__":
    main()
