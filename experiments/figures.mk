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
		experiments/hrf_table3_paper.tsv rfx
	@echo '   ' PLOT fig_hrf6 fig_hrf6_table3 >&2
	@$(GNUPLOT) -e "rfx='./rfx'; in='results/fig_hrf6.h5'; out='plots/fig_hrf6'; out2='plots/fig_hrf6_table3'; paper='experiments/hrf_table3_paper.tsv'" plots/fig_hrf6.gp

results/table_hrf3.md: experiments/table_hrf3.sh experiments/hrf_table3_paper.tsv \
		results/fig_hrf6.h5 rfx
	@echo '   ' GEN $@ >&2
	@RFX=./rfx experiments/table_hrf3.sh results/fig_hrf6.h5 > $@.tmp && mv $@.tmp $@

plots/fig%.png plots/fig%.pdf: plots/fig%.gp plots/common.gp results/fig%.h5 rfx
	@echo '   ' PLOT fig$* >&2
	@$(GNUPLOT) -e "rfx='./rfx'; in='results/fig$*.h5'; out='plots/fig$*'" plots/fig$*.gp
