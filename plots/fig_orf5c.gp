# ORF Fig 5c: HD, HDHD and HDHDHD (SORF) blocks on MNIST, ORF for reference.
title = "ORF Fig 5c: fewer Hadamard-diagonal blocks, MNIST (d = 1024)"
load "plots/mse_vs_ratio.gp"
