# ORF Fig 5(a)(b): MSE on MNIST against D/d at two bandwidths, one panel each.
title = "ORF Fig 5(a)(b): MNIST at half and twice the 50th-neighbour sigma"
panel = "sigma"
load "plots/mse_vs_ratio.gp"
