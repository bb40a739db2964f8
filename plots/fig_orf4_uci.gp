# ORF Fig 4 on the UCI datasets (z-scored columns), beyond the paper.
title = "ORF Fig 4 on UCI datasets (z-scored), sigma = mean distance to the 50th neighbour"
load "plots/mse_vs_ratio.gp"
