# Rules for `make figures`: one experiment script per figure (the rfx
# command lines live in experiments/*.sh), one gnuplot script per figure
# in plots/. Included by the top-level Makefile. SCALE=fast runs every
# experiment at a small scale.

SCALE = full
export SCALE

FIG_RESULTS = results/variance.h5 results/fig4_1.h5 results/fig6_1.h5 \
	      results/fig6_2.h5
# HRF Figs 1, 2, 5 and the max-relative-error (rfx pointwise).
FIG_RESULTS += results/fig_hrf1.h5 results/fig_hrf5.h5 results/fig_hrf_maxerr.h5
# Thesis Tables 6.1-6.3 (rfx uci-classify) and their comparison text.
FIG_RESULTS += results/uci.h5 results/uci_tables.txt

# HRF Fig 6 and Table 3 (rfx clustered), and Table 3 beside the paper's.
FIG_RESULTS += results/fig_hrf6.h5 results/table_hrf3.md

FIG_PLOTS = plots/fig6_4_nonpositive.png plots/fig6_4_nonpositive.pdf \
	    plots/fig6_4_positive.png plots/fig6_4_positive.pdf \
	    plots/fig6_4_mc.png plots/fig6_4_mc.pdf \
	    plots/fig4_1.png plots/fig4_1.pdf \
	    plots/fig6_1.png plots/fig6_1.pdf \
	    plots/fig6_2.png plots/fig6_2.pdf
FIG_PLOTS += plots/fig_hrf1.png plots/fig_hrf1.pdf \
	     plots/fig_hrf2.png plots/fig_hrf2.pdf \
	     plots/fig_hrf5.png plots/fig_hrf5.pdf \
	     plots/fig_hrf_maxerr.png plots/fig_hrf_maxerr.pdf
FIG_PLOTS += plots/uci.png plots/uci.pdf

# HRF Table 1 and the ORF paper's Figs 2-5 (rfx mse-table).
FIG_RESULTS += results/fig_hrf_table1.h5 results/fig_orf23.h5 \
	       results/fig_orf4.h5 results/fig_orf4_uci.h5 results/fig_orf5c.h5
FIG_PLOTS += plots/fig_hrf_table1.png plots/fig_hrf_table1.pdf \
	     plots/fig_orf2.png plots/fig_orf2.pdf \
	     plots/fig_orf3.png plots/fig_orf3.pdf \
	     plots/fig_orf4.png plots/fig_orf4.pdf \
	     plots/fig_orf4_uci.png plots/fig_orf4_uci.pdf \
	     plots/fig_orf5c.png plots/fig_orf5c.pdf

FIG_PLOTS += plots/fig_hrf6.png plots/fig_hrf6.pdf \
	     plots/fig_hrf6_table3.png plots/fig_hrf6_table3.pdf

.PHONY: figures-build

figures-build: $(FIG_RESULTS) $(FIG_PLOTS)

# Results remember the scale they were made at; changing SCALE reruns them.
results/.scale: FORCE
	@mkdir -p results plots
	@echo '$(SCALE)' > $@.tmp; cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

results/variance.h5: experiments/fig6_4.sh rfx results/.scale
	@echo '   ' RUN $@ >&2
	@RFX=./rfx experiments/fig6_4.sh $@

results/fig%.h5: experiments/fig%.sh rfx results/.scale
	@echo '   ' RUN $@ >&2
	@RFX=./rfx experiments/fig$*.sh $@

plots/fig6_4_nonpositive.png plots/fig6_4_nonpositive.pdf \
plots/fig6_4_positive.png plots/fig6_4_positive.pdf \
plots/fig6_4_mc.png plots/fig6_4_mc.pdf &: \
		plots/fig6_4.gp plots/common.gp results/variance.h5 rfx
	@echo '   ' PLOT fig6_4 >&2
	@$(GNUPLOT) -e "rfx='./rfx'; in='results/variance.h5'; out='plots/fig6_4'" plots/fig6_4.gp

# HRF Fig 2 is a subset of Fig 5's panels: one script draws both.
plots/fig_hrf5.png plots/fig_hrf5.pdf plots/fig_hrf2.png plots/fig_hrf2.pdf &: \
		plots/fig_hrf5.gp plots/common.gp results/fig_hrf5.h5 rfx
	@echo '   ' PLOT fig_hrf5 fig_hrf2 >&2
	@$(GNUPLOT) -e "rfx='./rfx'; in='results/fig_hrf5.h5'; out='plots/fig_hrf5'; out2='plots/fig_hrf2'" plots/fig_hrf5.gp

# HRF Fig 6, and Table 3's intervals beside the paper's: one script.
plots/fig_hrf6.png plots/fig_hrf6.pdf plots/fig_hrf6_table3.png plots/fig_hrf6_table3.pdf &: \
		plots/fig_hrf6.gp plots/common.gp results/fig_hrf6.h5 \
		experiments/reference/hrf_table3.tsv rfx
	@echo '   ' PLOT fig_hrf6 fig_hrf6_table3 >&2
	@$(GNUPLOT) -e "rfx='./rfx'; in='results/fig_hrf6.h5'; out='plots/fig_hrf6'; out2='plots/fig_hrf6_table3'; paper='experiments/reference/hrf_table3.tsv'" plots/fig_hrf6.gp

results/table_hrf3.md: experiments/table_hrf3.sh experiments/reference/hrf_table3.tsv \
		results/fig_hrf6.h5 rfx
	@echo '   ' GEN $@ >&2
	@RFX=./rfx experiments/table_hrf3.sh results/fig_hrf6.h5 > $@.tmp && mv $@.tmp $@

plots/fig%.png plots/fig%.pdf: plots/fig%.gp plots/common.gp results/fig%.h5 rfx
	@echo '   ' PLOT fig$* >&2
	@$(GNUPLOT) -e "rfx='./rfx'; in='results/fig$*.h5'; out='plots/fig$*'" plots/fig$*.gp

# Thesis sec. 6.6.2, Tables 6.1-6.3: UCI classification by kernel regression.
results/uci.h5: experiments/table6_2.sh rfx results/.scale
	@echo '   ' RUN $@ >&2
	@RFX=./rfx experiments/table6_2.sh $@

results/uci_tables.txt: experiments/uci_tables.sh results/uci.h5 rfx \
		experiments/reference/thesis_table6_2.tsv \
		experiments/reference/thesis_table6_3.tsv
	@echo '   ' GEN $@ >&2
	@RFX=./rfx experiments/uci_tables.sh results/uci.h5 > $@.tmp && mv $@.tmp $@

plots/uci.png plots/uci.pdf &: plots/uci.gp plots/common.gp results/uci.h5 rfx \
		experiments/reference/thesis_table6_2.tsv \
		experiments/reference/thesis_table6_3.tsv
	@echo '   ' PLOT uci >&2
	@$(GNUPLOT) -e "rfx='./rfx'; in='results/uci.h5'; out='plots/uci'; ref='experiments/reference'" plots/uci.gp

# ORF Figs 2 and 3 come from one run (--vs-z); one script draws both.
plots/fig_orf2.png plots/fig_orf2.pdf plots/fig_orf3.png plots/fig_orf3.pdf &: \
		plots/fig_orf23.gp plots/common.gp results/fig_orf23.h5 rfx
	@echo '   ' PLOT fig_orf2 fig_orf3 >&2
	@$(GNUPLOT) -e "rfx='./rfx'; in='results/fig_orf23.h5'; out='plots/fig_orf2'; out2='plots/fig_orf3'" plots/fig_orf23.gp

# The MSE-against-D/d figures share their drawing.
plots/fig_orf4.png plots/fig_orf4.pdf plots/fig_orf4_uci.png plots/fig_orf4_uci.pdf \
plots/fig_orf5c.png plots/fig_orf5c.pdf: plots/mse_vs_ratio.gp
