#!/bin/sh
# ORF Table 2: test accuracy of a linear SVM on RFF, ORF and SORF features
# of the Gaussian kernel against D/d (rfx svm-classify), on letter (d = 16;
# first 16000 rows train, last 4000 test) and USPS (d = 256; its own train
# and test files). sigma is the mean distance to the 50th nearest
# neighbour of 1000 training inputs; C = 1 for every dataset
# (docs/REPRODUCTION.md, "ORF Table 2", says why). MNIST (the 10000 test
# images only, split 8000/2000) is left out here: its cells at D >= 6d take
# minutes each on 2 cores; docs/REPRODUCTION.md has its command and numbers.
#
# usage: experiments/fig_orf_table2.sh OUT.h5   (the table also goes to OUT.tsv)
set -eu
trap 'rm -f "${1%.h5}.tsv.tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
RFX=${RFX:-./rfx}
args="--dataset letter,usps --ratio 2,4,6,8,10 --seeds 3"
[ "${SCALE:-full}" = fast ] && args="--dataset letter,usps --ratio 1,2 --seeds 2 --n-train 1000 --n-test 500"
# shellcheck disable=SC2086
"$RFX" svm-classify $args -o "$1" > "${1%.h5}.tsv.tmp"
mv "${1%.h5}.tsv.tmp" "${1%.h5}.tsv"
