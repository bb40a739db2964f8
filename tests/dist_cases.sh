# The command lines that tests/t_cmd_merge.sh (shards) and tests/t_mpi.sh
# (mpirun) run serially and distributed, one per experiment subcommand and
# mode, each small (a second or less; variance-many has 2000 tiny cells, so
# that MPI ranks go through many rounds): sourced, not run. Each line is a
# label, a tab, and the arguments of rfx.
dist_cases() {
	cat <<'CASES'
variance	variance --method trig,pos,oprf --regime normal,sphere --gamma 0.2,0.6 --samples 3 --L 48 --d 8 --mc 40 --mc-pairs 4
variance-many	variance --method trig,pos --regime normal,sphere --gamma 0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1 --samples 100 --L 4 --d 2 --mc 0
variance-map	variance --map angle --method trig,pos --steps 4 --d 2
variance-pair	variance --x 0.3,-0.2 --y 0.1,0.4 --method trig,oprf --mc 200
pointwise	pointwise --method trig,ang --r 1,1.5 --thetas 5 --mc 100
pointwise-map	pointwise --map --steps 4 --thetas 6
pointwise-max	pointwise --max-error --steps 3 --thetas 31
mse-table	mse-table --reps 3 --draws 2 --pairs 20
mse-table-vs-z	mse-table --vs-z --d 4,8 --projection ort,sorf --z-steps 3 --mc 200
mse-table-z-hist	mse-table --z-hist --dataset letter,usps --nn-sample 100 --pairs 1000 --z-steps 5
clustered	clustered --points 20 --reps 2 --m 10,20
optis	optis --L 16
uci-classify	uci-classify --dataset banknote,wifi --method exact,trig,oprf --seeds 2 --gamma 0.5,2
svm-classify	svm-classify --dataset letter --ratio 1 --seeds 2 --n-train 200 --n-test 100 --nn-sample 100
svm-classify-cost	svm-classify --dataset letter --ratio 1 --seeds 2 --n-train 200 --n-test 100 --nn-sample 100 --cost 0.5,2
CASES
}
