# Rules for `make figures`: one experiment script per figure (the rfx
# command lines live in experiments/*.sh), one gnuplot script per figure
# in plots/, and the reproduction report (experiments/report.py) that puts
# every figure and table beside the papers'. Included by the top-level
# Makefile.
#
#   SCALE=fast          every experiment at a small scale
#   RESULTS_DIR, PLOTS_DIR
#                       where results (*.h5, *.time, REPORT.*) and figures
#                       go (default results/ and plots/; figures-smoke uses
#                       build/smoke/)
#
# Each experiment runs through experiments/timed.sh, which prints RUN and
# DONE lines on stderr and records its wall and CPU time in
# RESULTS_DIR/<name>.time for the report. Results depend on their script,
# the scale and the code (RESULTS_DIR/.code), so only stale ones
# recompute; make -j2 runs two at a time.

SCALE = full
RESULTS_DIR = results
PLOTS_DIR = plots
export SCALE

R := $(RESULTS_DIR)
P := $(PLOTS_DIR)
# The id of this make run, in every .time file: the report tells a full
# run from an incremental one by it. Seconds since the epoch, taken once.
FIG_RUN := $(shell date +%s)
export FIG_RUN

TIMED = RFX=./rfx experiments/timed.sh


# The report: every figure and table of the papers that rfx reproduces
# (the [rows] of experiments/figures.tsv), ours beside theirs.
FIG_REPORT = $(R)/REPORT.md $(R)/REPORT.html
REPORT_INPUTS = experiments/report.py experiments/manifest.py experiments/figures.tsv \
		experiments/reference/claims.txt $(FIG_REFS) \
		$(FIG_RESULTS) $(FIG_RESULTS:.h5=.time) $(FIG_PLOTS) $(FIG_TEXT)

.PHONY: figures-build figures-smoke figures-smoke-build

# Four steps: bring .scale and .code up to date; a dry run of the
# experiments says which are stale, and experiments/manifest.py writes
# them to the plan with their expected times (from the earlier runs'
# times.log), which experiments/timed.sh reads for its "[3/16] RUN" lines
# and the time left; the experiments, each drawing its figures as soon as
# its results exist (FIG_DRAW_AFTER); then whatever figure or table is
# still stale (its script changed), and the report. One summary line at
# the end, whatever was stale.
figures-build:
	@$(MAKE) --no-print-directory $(R)/.scale $(R)/.code
	@trap 'rm -f $(R)/.plan.tmp' EXIT; trap 'exit 130' INT; trap 'exit 143' TERM; \
		$(MAKE) -n --no-print-directory FIG_DRY=1 $(FIG_RESULTS) 2>/dev/null | \
		$(PYTHON) experiments/manifest.py plan --results $(R) > $(R)/.plan.tmp && \
		mv $(R)/.plan.tmp $(R)/.plan && rm -f $(R)/.plan.started
	@FIG_PLAN=$(R)/.plan $(MAKE) -s --no-print-directory FIG_DRAW_AFTER=1 $(FIG_RESULTS)
	@$(MAKE) -s --no-print-directory $(FIG_PLOTS) $(FIG_TEXT) $(FIG_REPORT)
	@sed -n 's|^\([0-9]* rows: .*\)\.$$|figures: \1; report $(R)/REPORT.html|p' $(R)/REPORT.md >&2

# Results remember the scale they were made at; changing SCALE reruns them.
# (FIG_DRY: the plan's dry run, after both are brought up to date, takes
# them as they are.)
$(R)/.scale: $(if $(FIG_DRY),,FORCE)
	@mkdir -p $(R) $(P)
	@$(TMP_TRAP) echo '$(SCALE)' > $@.tmp; cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

# ... and the code: a checksum of the sources and the build flags, which
# changes when the computation can, unlike the binary, which is relinked
# with a new version string at every commit (build/version.h).
CODE_FILES = $(sort $(wildcard lib/*/*.[ch] cli/*.[ch])) build/flags
$(R)/.code: $(if $(FIG_DRY),,FORCE) | rfx
	@mkdir -p $(R) $(P)
	@$(TMP_TRAP) cat $(CODE_FILES) | cksum > $@.tmp; cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

# What every experiment needs: timed.sh and the binary only have to exist.
EXP_DEPS = $(R)/.scale $(R)/.code | rfx experiments/timed.sh

# The rules of every experiment, plot and text table, made from the one
# manifest (experiments/figures.tsv): FIG_RESULTS, FIG_PLOTS, FIG_TEXT,
# FIG_REFS, and FIG_AFTER_<experiment>, what is drawn from its results.
# make remakes an included file first when it is stale. Included after
# EXP_DEPS and the directories: make expands a rule's prerequisites as it
# reads it (tests/t_report.sh checks the order).
FIG_RULES = build/figures.rules.mk
$(FIG_RULES): experiments/figures.tsv experiments/manifest.py $(wildcard plots/*.gp)
	@mkdir -p build
	@$(TMP_TRAP) $(PYTHON) experiments/manifest.py make > $@.tmp && mv $@.tmp $@
ifneq ($(MAKECMDGOALS),clean)
-include $(FIG_RULES)
endif

# The report last: it reads every result, time, figure and reference.
$(R)/REPORT.md $(R)/REPORT.html &: $(REPORT_INPUTS) | rfx
	@echo '   ' GEN $(R)/REPORT.md $(R)/REPORT.html >&2
	@RFX=./rfx $(PYTHON) experiments/report.py --results $(R) --plots $(P) \
		--md $(R)/REPORT.md --html $(R)/REPORT.html

# The README's headline figures: small PNGs committed in docs/img/, made
# at full scale from experiments that take a second (closed forms, no
# sampling), and docs/img/inputs.sha256, the SHA-256 of what each was drawn
# from (tools/figure-digest.sh: the rfx dump of its results to 6 digits,
# its gnuplot script, common.gp and styles.gp): tests/t_readme_figures.sh
# recomputes those and fails when an image is stale. The PDFs stay in build/readme/.
README_FIGS = fig6_1 fig6_2 fig_hrf1
.PHONY: readme-figures
readme-figures: rfx
	@mkdir -p build/readme docs/img
	@$(TMP_TRAP) for f in $(README_FIGS); do \
		echo '   ' PLOT docs/img/$$f.png >&2; \
		SCALE=full RFX=./rfx experiments/$$f.sh build/readme/$$f.h5 2>/dev/null || exit 1; \
		$(GNUPLOT) -e "rfx='./rfx'; in='build/readme/$$f.h5'; out='build/readme/$$f'; small=1" \
			plots/$$f.gp || exit 1; \
		cp build/readme/$$f.png docs/img/$$f.png || exit 1; \
		h=$$(tools/figure-digest.sh ./rfx build/readme/$$f.h5 $$f) || exit 1; \
		echo "$$h  $$f.png"; \
	done > $@.tmp && mv $@.tmp docs/img/inputs.sha256

# The smoke test (CI): every experiment at SCALE=fast into build/smoke/,
# then experiments/check_figures.py checks that every .h5, .png and .pdf
# the report names exists and is sound and that the report has a row for
# every figure and table.
SMOKE_DIR = build/smoke

figures-smoke: deps
	@$(MAKE) --no-print-directory figures-smoke-build

figures-smoke-build: rfx
	@$(MAKE) --no-print-directory figures-build SCALE=fast \
		RESULTS_DIR=$(SMOKE_DIR)/results PLOTS_DIR=$(SMOKE_DIR)/plots
	@RFX=./rfx $(PYTHON) experiments/check_figures.py \
		--results $(SMOKE_DIR)/results --plots $(SMOKE_DIR)/plots
