# ORF Fig 4: Gaussian-kernel MSE against D/d on letter, USPS and MNIST.
title = "ORF Fig 4: kernel approximation MSE, sigma = mean distance to the 50th neighbour"
load "plots/mse_vs_ratio.gp"
