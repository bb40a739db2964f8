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

# Experiments: name = results file, and the script that makes it. Longest
# first (CPU seconds at full scale in the comments, from results/*.time of
# experiments/measure.sh's run on commit 83ff9d9), so that make -j2 keeps
# both job slots busy until the end and the longest job starts first.
# Thesis Tables 6.1-6.3 (rfx uci-classify): 270.
FIG_RESULTS = $(R)/uci.h5
# Thesis Fig 6.4 (rfx variance): 170.
FIG_RESULTS += $(R)/variance.h5
# HRF Fig 6 and Table 3 (rfx clustered): 165.
FIG_RESULTS += $(R)/fig_hrf6.h5
# ORF Table 2 (rfx svm-classify, letter and usps): 142 (one run of the
# same command on commit 900a8b9, not measure.sh's).
FIG_RESULTS += $(R)/fig_orf_table2.h5
# HRF Table 1 and the ORF paper's Figs 1-5 (rfx mse-table): Fig 4 55,
# Fig 5(c) 50, Fig 5(a)(b) 45, HRF Table 1 45; HRF Fig 5 (rfx pointwise)
# 40; ORF Figs 2-3 35.
FIG_RESULTS += $(R)/fig_orf4.h5 $(R)/fig_orf5c.h5 $(R)/fig_orf5ab.h5 \
	       $(R)/fig_hrf_table1.h5 $(R)/fig_hrf5.h5 $(R)/fig_orf23.h5
# Under 2 s each: thesis Figs 4.1, 6.1, 6.2, HRF Fig 1 and the
# max-relative-error (rfx variance --map, rfx pointwise), ORF Fig 4 on UCI.
FIG_RESULTS += $(R)/fig4_1.h5 $(R)/fig6_1.h5 $(R)/fig6_2.h5 $(R)/fig_hrf1.h5 \
	       $(R)/fig_hrf_maxerr.h5 $(R)/fig_orf4_uci.h5

# Text tables beside the papers' (also in the report).
FIG_TEXT = $(R)/uci_tables.txt $(R)/table_hrf3.md

# Beyond the papers (issue 19, docs/DERIVATIONS.md): the DERFs on Fig 6.4's
# regimes, with the log factor of their variance below OPRF's in
# fig_beyond6_4.h5.claims.tsv (about 2 CPU-min at full scale, 5 s fast),
# and the variance of PosRF and OPRF on simplex, simplex+ and ort-anti over
# ORF's against |x|, closed form beside Monte Carlo (about 10 CPU-min full,
# 20 s fast). Not yet in the report.
FIG_RESULTS += $(R)/fig_beyond6_4.h5
FIG_TEXT += $(R)/beyond_ratio.tsv

FIG_PLOTS = $(P)/fig6_4_nonpositive.png $(P)/fig6_4_nonpositive.pdf \
	    $(P)/fig6_4_positive.png $(P)/fig6_4_positive.pdf \
	    $(P)/fig6_4_mc.png $(P)/fig6_4_mc.pdf \
	    $(P)/fig4_1.png $(P)/fig4_1.pdf \
	    $(P)/fig6_1.png $(P)/fig6_1.pdf \
	    $(P)/fig6_2.png $(P)/fig6_2.pdf
FIG_PLOTS += $(P)/fig_hrf1.png $(P)/fig_hrf1.pdf \
	     $(P)/fig_hrf2.png $(P)/fig_hrf2.pdf \
	     $(P)/fig_hrf5.png $(P)/fig_hrf5.pdf \
	     $(P)/fig_hrf_maxerr.png $(P)/fig_hrf_maxerr.pdf
FIG_PLOTS += $(P)/uci.png $(P)/uci.pdf
FIG_PLOTS += $(P)/fig_hrf_table1.png $(P)/fig_hrf_table1.pdf \
	     $(P)/fig_orf2.png $(P)/fig_orf2.pdf \
	     $(P)/fig_orf3.png $(P)/fig_orf3.pdf \
	     $(P)/fig_orf4.png $(P)/fig_orf4.pdf \
	     $(P)/fig_orf4_uci.png $(P)/fig_orf4_uci.pdf \
	     $(P)/fig_orf5ab.png $(P)/fig_orf5ab.pdf \
	     $(P)/fig_orf5c.png $(P)/fig_orf5c.pdf
FIG_PLOTS += $(P)/fig_hrf6.png $(P)/fig_hrf6.pdf \
	     $(P)/fig_hrf6_table3.png $(P)/fig_hrf6_table3.pdf

# The report: every figure and table of the papers that rfx reproduces
# (experiments/reference/figures.tsv), ours beside theirs.
FIG_REPORT = $(R)/REPORT.md $(R)/REPORT.html
REPORT_INPUTS = experiments/report.py experiments/reference/figures.tsv \
		experiments/reference/claims.txt \
		$(wildcard experiments/reference/*.tsv) \
		$(FIG_RESULTS) $(FIG_RESULTS:.h5=.time) $(FIG_PLOTS) $(FIG_TEXT)

.PHONY: figures-build figures-smoke figures-smoke-build

figures-build: $(FIG_RESULTS) $(FIG_TEXT) $(FIG_PLOTS) $(FIG_REPORT)

# Results remember the scale they were made at; changing SCALE reruns them.
$(R)/.scale: FORCE
	@mkdir -p $(R) $(P)
	@$(TMP_TRAP) echo '$(SCALE)' > $@.tmp; cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

# ... and the code: a checksum of the sources and the build flags, which
# changes when the computation can, unlike the binary, which is relinked
# with a new version string at every commit (build/version.h).
CODE_FILES = $(sort $(wildcard lib/*/*.[ch] cli/*.[ch])) build/flags
$(R)/.code: FORCE | rfx
	@mkdir -p $(R) $(P)
	@$(TMP_TRAP) cat $(CODE_FILES) | cksum > $@.tmp; cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

# What every experiment needs: timed.sh and the binary only have to exist.
EXP_DEPS = $(R)/.scale $(R)/.code | rfx experiments/timed.sh

# A results file and its .time come from one run of the script.
$(R)/variance.h5 $(R)/variance.time &: experiments/fig6_4.sh $(EXP_DEPS)
	@$(TIMED) $(R)/variance.h5 experiments/fig6_4.sh

$(R)/uci.h5 $(R)/uci.time &: experiments/table6_2.sh $(EXP_DEPS)
	@$(TIMED) $(R)/uci.h5 experiments/table6_2.sh

$(R)/fig%.h5 $(R)/fig%.time: experiments/fig%.sh $(EXP_DEPS)
	@$(TIMED) $(R)/fig$*.h5 experiments/fig$*.sh

$(P)/fig6_4_nonpositive.png $(P)/fig6_4_nonpositive.pdf \
$(P)/fig6_4_positive.png $(P)/fig6_4_positive.pdf \
$(P)/fig6_4_mc.png $(P)/fig6_4_mc.pdf &: \
		plots/fig6_4.gp plots/common.gp $(R)/variance.h5 | rfx
	@echo '   ' PLOT fig6_4 >&2
	@$(GNUPLOT) -e "rfx='./rfx'; in='$(R)/variance.h5'; out='$(P)/fig6_4'" plots/fig6_4.gp

# HRF Fig 2 is a subset of Fig 5's panels: one script draws both.
$(P)/fig_hrf5.png $(P)/fig_hrf5.pdf $(P)/fig_hrf2.png $(P)/fig_hrf2.pdf &: \
		plots/fig_hrf5.gp plots/common.gp $(R)/fig_hrf5.h5 | rfx
	@echo '   ' PLOT fig_hrf5 fig_hrf2 >&2
	@$(GNUPLOT) -e "rfx='./rfx'; in='$(R)/fig_hrf5.h5'; out='$(P)/fig_hrf5'; out2='$(P)/fig_hrf2'" plots/fig_hrf5.gp

# HRF Fig 6, and Table 3's intervals beside the paper's: one script.
$(P)/fig_hrf6.png $(P)/fig_hrf6.pdf $(P)/fig_hrf6_table3.png $(P)/fig_hrf6_table3.pdf &: \
		plots/fig_hrf6.gp plots/common.gp $(R)/fig_hrf6.h5 \
		experiments/reference/hrf_table3.tsv | rfx
	@echo '   ' PLOT fig_hrf6 fig_hrf6_table3 >&2
	@$(GNUPLOT) -e "rfx='./rfx'; in='$(R)/fig_hrf6.h5'; out='$(P)/fig_hrf6'; out2='$(P)/fig_hrf6_table3'; paper='experiments/reference/hrf_table3.tsv'" plots/fig_hrf6.gp

$(R)/table_hrf3.md: experiments/table_hrf3.sh experiments/reference/hrf_table3.tsv \
		$(R)/fig_hrf6.h5 | rfx
	@echo '   ' GEN $@ >&2
	@$(TMP_TRAP) RFX=./rfx experiments/table_hrf3.sh $(R)/fig_hrf6.h5 > $@.tmp && mv $@.tmp $@

# HRF Table 1 beside the paper's numbers.
$(P)/fig_hrf_table1.png $(P)/fig_hrf_table1.pdf &: plots/fig_hrf_table1.gp plots/common.gp \
		$(R)/fig_hrf_table1.h5 experiments/reference/hrf_table1.tsv | rfx
	@echo '   ' PLOT fig_hrf_table1 >&2
	@$(GNUPLOT) -e "rfx='./rfx'; in='$(R)/fig_hrf_table1.h5'; out='$(P)/fig_hrf_table1'; paper='experiments/reference/hrf_table1.tsv'" plots/fig_hrf_table1.gp

$(P)/fig%.png $(P)/fig%.pdf: plots/fig%.gp plots/common.gp $(R)/fig%.h5 | rfx
	@echo '   ' PLOT fig$* >&2
	@$(GNUPLOT) -e "rfx='./rfx'; in='$(R)/fig$*.h5'; out='$(P)/fig$*'" plots/fig$*.gp

$(R)/beyond_ratio.tsv: experiments/beyond_ratio.sh $(EXP_DEPS)
	@echo '   ' GEN $@ >&2
	@RFX=./rfx experiments/beyond_ratio.sh $@

# Thesis sec. 6.6.2, Tables 6.1-6.3: UCI classification by kernel regression.
$(R)/uci_tables.txt: experiments/uci_tables.sh $(R)/uci.h5 \
		experiments/reference/thesis_table6_1.tsv \
		experiments/reference/thesis_table6_2.tsv \
		experiments/reference/thesis_table6_3.tsv | rfx
	@echo '   ' GEN $@ >&2
	@$(TMP_TRAP) RFX=./rfx experiments/uci_tables.sh $(R)/uci.h5 > $@.tmp && mv $@.tmp $@

$(P)/uci.png $(P)/uci.pdf &: plots/uci.gp plots/common.gp $(R)/uci.h5 \
		experiments/reference/thesis_table6_2.tsv \
		experiments/reference/thesis_table6_3.tsv | rfx
	@echo '   ' PLOT uci >&2
	@$(GNUPLOT) -e "rfx='./rfx'; in='$(R)/uci.h5'; out='$(P)/uci'; ref='experiments/reference'" plots/uci.gp

# ORF Figs 2 and 3 come from one run (--vs-z); one script draws both.
$(P)/fig_orf2.png $(P)/fig_orf2.pdf $(P)/fig_orf3.png $(P)/fig_orf3.pdf &: \
		plots/fig_orf23.gp plots/common.gp $(R)/fig_orf23.h5 | rfx
	@echo '   ' PLOT fig_orf2 fig_orf3 >&2
	@$(GNUPLOT) -e "rfx='./rfx'; in='$(R)/fig_orf23.h5'; out='$(P)/fig_orf2'; out2='$(P)/fig_orf3'" plots/fig_orf23.gp

# The MSE-against-D/d figures share their drawing.
$(P)/fig_orf4.png $(P)/fig_orf4.pdf $(P)/fig_orf4_uci.png $(P)/fig_orf4_uci.pdf \
$(P)/fig_orf5ab.png $(P)/fig_orf5ab.pdf \
$(P)/fig_orf5c.png $(P)/fig_orf5c.pdf: plots/mse_vs_ratio.gp

# The report last: it reads every result, time, figure and reference.
$(R)/REPORT.md $(R)/REPORT.html &: $(REPORT_INPUTS) | rfx
	@echo '   ' GEN $(R)/REPORT.md $(R)/REPORT.html >&2
	@RFX=./rfx $(PYTHON) experiments/report.py --results $(R) --plots $(P) \
		--md $(R)/REPORT.md --html $(R)/REPORT.html

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
