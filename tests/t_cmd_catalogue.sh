#!/bin/sh
#
# The catalogue of bad inputs (issue 8): one table, one line per case,
# across every subcommand. Each case gives the exit status the README
# promises (2 for a usage error, 1 for a run-time failure), a fragment the
# one error line must contain (the offending option, value, file or what
# is wrong with it, as a user would look for it), and the command line.
# For every case the test checks:
#
#   - the exit status;
#   - exactly one line on stderr, "rfx: ...", containing the fragment;
#   - nothing on stdout;
#   - no file created, changed or removed in the working directory (so no
#     output file and no temporary file at the -o path);
#   - when -o names a file that can exist, a second run with that file
#     already there leaves it byte for byte as it was.
#
# Bad data files are made here, from a few lines of the shipped ones, in
# one directory per defect ($FX/<defect>/), so that each case sees exactly
# one thing wrong. Prints TAP.
#
# $RFX is the binary and $RFX_TOP the repository ('make test' sets both);
# tests/tap.sh has the helpers.

# make test sets RFX_TOP; run by hand, the script is tests/t_*.sh
: "${RFX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$RFX_TOP/tests/tap.sh"

unset RFX_DATA
DATA=$RFX_TOP/data
FX=$tmp/fx
mkdir "$FX" "$tmp/w" || bail "mkdir failed"

# ---------------------------------------------------------------------------
# Fixtures. fx DEFECT FILE: prints the path of FILE in a fresh directory
# for DEFECT; the caller writes it.

fx() {
	mkdir -p "$FX/$1"
	echo "$FX/$1/$2"
}

mkdir "$FX/none"

# Special files where a data file belongs: a FIFO, and a data directory
# whose files are links to /dev/zero, a file without an end (the line
# readers once grew one line of it until memory ran out).
mkfifo "$FX/fifo.csv" || bail "mkfifo failed"
mkdir "$FX/zero"
for f in wine.csv banknote.txt usps_zip.train.gz t10k-images-idx3-ubyte.gz; do
	ln -s /dev/zero "$FX/zero/$f"
done

# wine.csv (mse-table): 14 comma-separated numbers per line.
head -n 4 "$DATA/wine.csv" > "$FX/wine4"
: > "$(fx wine_empty wine.csv)"
{ head -n 2 "$FX/wine4"; sed -n 3p "$FX/wine4" | cut -d, -f1-13; } > "$(fx wine_short wine.csv)"
# Cut in the middle of the third line, as a copy that stopped short.
head -c "$(($(head -n 2 "$FX/wine4" | wc -c) + 20))" "$FX/wine4" > "$(fx wine_cut wine.csv)"
sed '2s/^[^,]*,/14.2x,/' "$FX/wine4" > "$(fx wine_text wine.csv)"
sed '3s/^[^,]*,/nan,/' "$FX/wine4" > "$(fx wine_nan wine.csv)"
sed '2s/,[^,]*$/,inf/' "$FX/wine4" | sed '2s/^[^,]*,/inf,/' > "$(fx wine_inf wine.csv)"

# banknote.txt (uci-classify): a header line, 4 numbers and an integer class.
head -n 30 "$DATA/banknote.txt" > "$FX/bank30"
: > "$(fx bank_empty banknote.txt)"
sed '5s/,[^,]*,\([^,]*\)$/,\1/' "$FX/bank30" > "$(fx bank_short banknote.txt)"
head -c "$(($(head -n 10 "$FX/bank30" | wc -c) + 8))" "$FX/bank30" > "$(fx bank_cut banknote.txt)"
sed '7s/^[^,]*,/3.6abc,/' "$FX/bank30" > "$(fx bank_text banknote.txt)"
sed '4s/^[^,]*,/NaN,/' "$FX/bank30" > "$(fx bank_nan banknote.txt)"
sed '6s/^[^,]*,/-Infinity,/' "$FX/bank30" > "$(fx bank_inf banknote.txt)"
tail -n +2 "$FX/bank30" > "$(fx bank_nohead banknote.txt)"
sed '9s/,[^,]*$/,0.5/' "$FX/bank30" > "$(fx bank_label banknote.txt)"

# letter-recognition.data (svm-classify): a letter A..Z, then 16 integers;
# too few rows for the 16000 / 4000 split once the labels are right.
head -n 30 "$DATA/letter-recognition.data" | sed '5s/^./a/' > "$(fx letter_label letter-recognition.data)"
head -n 30 "$DATA/letter-recognition.data" > "$(fx letter_few letter-recognition.data)"

# car.data (uci-classify): categories only.
head -n 30 "$DATA/car.data" | sed '12s/^vhigh,/vvhigh,/' > "$(fx car_cat car.data)"
head -n 30 "$DATA/car.data" | sed '8s/,unacc$/,unknown/' > "$(fx car_label car.data)"

# t10k-images-idx3-ubyte.gz (MNIST): a 16-byte big-endian header (magic
# 0x00000803, 3 images of 2 x 2) and 12 pixel bytes, gzipped.
IDX=t10k-images-idx3-ubyte.gz
printf '\000\000\010\003\000\000\000\003\000\000\000\002\000\000\000\002' > "$FX/idx_head"
printf '\000\100\200\377\001\002\003\004\005\006\007\010' > "$FX/idx_pix"
cat "$FX/idx_head" "$FX/idx_pix" | gzip -n -c > "$FX/idx_good.gz"
: > "$(fx idx_empty $IDX)"
head -c 10 "$FX/idx_head" | gzip -n -c > "$(fx idx_short_head $IDX)"
{ cat "$FX/idx_head"; head -c 7 "$FX/idx_pix"; } | gzip -n -c > "$(fx idx_short_pix $IDX)"
{ printf '\000\000\010\001'; tail -c 12 "$FX/idx_head"; cat "$FX/idx_pix"; } |
	gzip -n -c > "$(fx idx_magic $IDX)"
# A gzip stream cut before its end, and one whose CRC-32 (the trailer's
# first 4 bytes) is wrong: both fail 'gzip -t' (checked below).
n=$(wc -c < "$FX/idx_good.gz")
head -c "$((n - 6))" "$FX/idx_good.gz" > "$(fx idx_gzcut $IDX)"
{ head -c "$((n - 8))" "$FX/idx_good.gz"; printf '\001\002\003\004'; tail -c 4 "$FX/idx_good.gz"; } \
	> "$(fx idx_crc $IDX)"

# usps_zip.train.gz (mse-table): 257 numbers per line, gzipped, bad CRC.
zcat "$DATA/usps_zip.train.gz" | head -n 3 | gzip -n -c > "$FX/usps_good.gz"
n=$(wc -c < "$FX/usps_good.gz")
{ head -c "$((n - 8))" "$FX/usps_good.gz"; printf '\001\002\003\004'; tail -c 4 "$FX/usps_good.gz"; } \
	> "$(fx usps_crc usps_zip.train.gz)"
head -c "$((n - 30))" "$FX/usps_good.gz" > "$(fx usps_gzcut usps_zip.train.gz)"

# HDF5 (dump): a good file, a text file, an empty one, a truncated one.
"$RFX" variance --x 0.5,1 --y 1,0.25 --method trig -o "$FX/good.h5" > /dev/null 2>&1 ||
	bail "rfx variance -o failed"
echo "method	value" > "$FX/notes.h5"
: > "$FX/empty.h5"
head -c 1000 "$FX/good.h5" > "$FX/cut.h5"

# The user's input files (rfx variance --x-file, issue 16): one defect each.
# npy FILE DESCR SHAPE NBYTES: a version 1.0 .npy file whose header says
# DESCR (quoted unless a list) and SHAPE, then NBYTES zero bytes (the
# header is 128 bytes: its length 118 is octal 166).
npy() {
	case $2 in
	\[*) d="{'descr': $2, 'fortran_order': False, 'shape': $3, }" ;;
	*) d="{'descr': '$2', 'fortran_order': False, 'shape': $3, }" ;;
	esac
	{ printf '\223NUMPY\001\000\166\000%s' "$d"
	  printf "%$((117 - ${#d}))s\n" ''
	  head -c "$4" /dev/zero; } > "$1"
}
printf '1,2,3\n4,5,6\n' > "$FX/m_good.csv"
# Data that cannot serve (a run-time error, exit 1, not a usage error):
# one row, and rows all equal (a bandwidth of 0), with and without labels.
printf '1,2,3\n' > "$FX/m_one.csv"
printf '1,2,0\n' > "$FX/m_onelab.csv"
printf '1,2,0\n3,1,1\n' > "$FX/m_twolab.csv"
awk 'BEGIN { for (i = 0; i < 40; i++) print "1.5,-2,0.25" }' > "$FX/m_equal.csv"
awk 'BEGIN { for (i = 0; i < 40; i++) print "1.5,-2," i % 2 }' > "$FX/m_equallab.csv"
printf '1,2\n3,4\n' > "$FX/m_d2.csv"
printf '0\n1\n1\n' > "$FX/m_lab3.txt"
printf '1,2,3\n4,nan,6\n' > "$FX/m_nan.csv"
printf '1 2 3\n4 5 -inf\n' > "$FX/m_inf.txt"
printf 'a,b,c\n1,2,3\n4,5\n' > "$FX/m_ragged.csv"
printf 'a,b,c\n' > "$FX/m_norows.csv"
# a typo in the first row: not a header to drop, an error
printf '1,2x,3\n4,5,6\n' > "$FX/m_typo.csv"
printf '1,2,3\n4,5,6 \351\n' > "$FX/m_latin1.csv"
npy "$FX/m_ok.npy" '<f8' '(2, 3)' 48
npy "$FX/m_cut.npy" '<f8' '(4, 3)' 80
npy "$FX/m_long.npy" '<f8' '(2, 3)' 56
npy "$FX/m_rows0.npy" '<f8' '(0, 3)' 0
npy "$FX/m_c16.npy" '<c16' '(2, 2)' 64
npy "$FX/m_obj.npy" '|O' '(2,)' 16
npy "$FX/m_struct.npy" "[('a', '<f8')]" '(2,)' 16

# The fixtures are what they claim, by tools other than rfx.
gzip -t "$FX/idx_good.gz" 2> /dev/null && gzip -t "$FX/usps_good.gz" 2> /dev/null &&
	! gzip -t "$FX/idx_crc/$IDX" 2> /dev/null && ! gzip -t "$FX/usps_crc/usps_zip.train.gz" 2> /dev/null &&
	! gzip -t "$FX/idx_gzcut/$IDX" 2> /dev/null &&
	! gzip -t "$FX/usps_gzcut/usps_zip.train.gz" 2> /dev/null &&
	[ "$(zcat "$FX/idx_good.gz" | wc -c)" -eq 28 ] &&
	[ "$(zcat "$FX/idx_crc/$IDX" 2> /dev/null | wc -c)" -eq 28 ]
ok $? "fixtures: gzip -t accepts the good streams, rejects the cut one and the bad CRCs"
awk -F, 'FILENAME ~ /short/ && FNR == 3 && NF != 13 { bad = 1 }
	FILENAME ~ /cut/ && FNR == 3 && NF >= 14 { bad = 1 }
	FILENAME ~ /text/ && FNR == 2 && $1 != "14.2x" { bad = 1 }
	FILENAME ~ /nan/ && FNR == 3 && $1 != "nan" { bad = 1 }
	FILENAME ~ /inf/ && FNR == 2 && ($1 != "inf" || $14 != "inf") { bad = 1 }
	END { exit bad }' "$FX"/wine_short/wine.csv "$FX"/wine_cut/wine.csv \
	"$FX"/wine_text/wine.csv "$FX"/wine_nan/wine.csv "$FX"/wine_inf/wine.csv &&
	[ "$(awk -F, 'NF != 14' "$FX/wine4" | wc -l)" -eq 0 ] &&
	[ "$(awk -F, 'NR > 1 && NF != 5' "$FX/bank30" | wc -l)" -eq 0 ] &&
	[ "$(awk -F, 'NR == 5 && NF == 4' "$FX/bank_short/banknote.txt" | wc -l)" -eq 1 ] &&
	[ "$(tail -n 1 "$FX/bank_cut/banknote.txt" | awk -F, '{ print NF }')" -lt 5 ]
ok $? "fixtures: each text file has exactly its defect"
h5dump -H "$FX/good.h5" > /dev/null 2>&1 && ! h5dump -H "$FX/cut.h5" > /dev/null 2>&1
ok $? "fixtures: h5dump reads good.h5 and not its first 1000 bytes"
[ "$(head -c 128 "$FX/m_ok.npy" | tail -c 1)" = "$(printf '\n')" ] &&
	[ "$(wc -c < "$FX/m_ok.npy")" -eq 176 ] && [ "$(wc -c < "$FX/m_cut.npy")" -eq 208 ] &&
	! iconv -f UTF-8 -t UTF-8 "$FX/m_latin1.csv" > /dev/null 2>&1 &&
	iconv -f UTF-8 -t UTF-8 "$FX/m_good.csv" > /dev/null 2>&1
ok $? "fixtures: .npy headers end at byte 128, iconv rejects the latin-1 file only"
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2> /dev/null; then
	/usr/bin/python3 -c 'import numpy, sys; a = numpy.load(sys.argv[1]); sys.exit(a.shape != (2, 3))' "$FX/m_ok.npy" 2> /dev/null
	ok $? "fixtures: numpy reads the good .npy as 2 x 3"
else
	skip "numpy is not installed"
fi

# ---------------------------------------------------------------------------
# The harness

cd "$tmp/w" || bail "cannot cd"
mkdir outdir outdir.h5
SENTINEL="an earlier result that a failed run must not touch"

# snap: every path under the working directory with its type and mode,
# and for files their size and modification time (a directory's time
# changes when a temporary file comes and goes, which is allowed).
snap() {
	find . \( -type d -printf '%p d %m\n' \) -o -printf '%p %y %s %m %T@\n' |
		LC_ALL=C sort
}

# target ARG...: the -o/--output argument, if any.
target() {
	t=
	while [ $# -gt 0 ]; do
		case $1 in
		-o | --output) [ $# -gt 1 ] && { t=$2; shift; } ;;
		--output=*) t=${1#--output=} ;;
		esac
		shift
	done
	printf '%s' "$t"
}

# attempt CODE FRAGMENT ARG...: one run; sets $why to what went wrong.
attempt() {
	a_code=$1
	a_frag=$2
	shift 2
	snap > "$tmp/before"
	run "$@"
	snap > "$tmp/after"
	# The one line not rfx's: under ASan (make check SANITIZE=1) a
	# malloc that returns NULL is announced by the sanitizer's runtime.
	sed '/^==[0-9]*==WARNING: AddressSanitizer failed to allocate /d' \
		"$tmp/err" > "$tmp/err.rfx" && mv "$tmp/err.rfx" "$tmp/err"
	why=
	if [ "$rc" -ne "$a_code" ]; then
		why="exit status $rc, want $a_code"
	elif [ "$(lines "$tmp/err")" -ne 1 ]; then
		why="$(lines "$tmp/err") lines on stderr, want 1"
	elif ! grep -q '^rfx: ' "$tmp/err"; then
		why="stderr does not start with 'rfx: '"
	elif ! grep -qF -- "$a_frag" "$tmp/err"; then
		why="stderr lacks '$a_frag'"
	elif [ -s "$tmp/out" ]; then
		why="output on stdout"
	elif ! cmp -s "$tmp/before" "$tmp/after"; then
		why="the working directory changed: $(diff "$tmp/before" "$tmp/after" | grep '^[<>]' | tr '\n' ' ')"
	fi
}

# check CODE FRAGMENT ARGS: the case, ARGS split as the shell would.
check() {
	c_code=$1
	c_frag=$2
	c_frag0=$2
	c_args=$3
	case $c_frag in
	*'$FX'*) c_frag=${c_frag%%'$FX'*}$FX${c_frag#*'$FX'} ;;
	esac
	eval "set -- $c_args"
	t=$(target "$@")
	attempt "$c_code" "$c_frag" "$@"
	if [ -z "$why" ] && [ -n "$t" ] && [ ! -d "$t" ] &&
		printf '%s\n' "$SENTINEL" 2> /dev/null > "$t"; then
		attempt "$c_code" "$c_frag" "$@"
		[ -z "$why" ] && [ "$(cat "$t")" != "$SENTINEL" ] && why="the existing '$t' changed"
		rm -f "$t"
	fi
	[ -z "$why" ]
	ok $? "exit $c_code, '$c_frag0': rfx $c_args" || {
		diag "$why"
		diag_file "$tmp/err"
	}
}

# ---------------------------------------------------------------------------
# The catalogue: EXIT|FRAGMENT|ARGUMENTS, one case per line. Arguments are
# split as the shell would; $FX, there and once in a fragment, is the
# fixture directory. '#' lines and blank lines are comments.

cat > "$tmp/catalogue" <<'END'
# rfx itself
2|unknown command 'frobnicate'|frobnicate -o out.h5
2|unknown command 'frob'|help frob
2|unknown command 'varience', did you mean 'variance'?|varience -o out.h5
2|unknown --format 'tsv'|help estimators --format tsv
2|unknown dataset 'wien', did you mean 'wine'?|mse-table --dataset wien -o out.h5
2|unknown dataset 'banknot', did you mean 'banknote'?|uci-classify --dataset banknot -o out.h5
2|unknown dataset 'leter', did you mean 'letter'?|svm-classify --dataset leter -o out.h5

# rfx variance (V: a small experiment; P: pair mode)
2|unknown option '--bogus'|variance --bogus --L 8 --samples 1 --mc 0 -o out.h5
2|unknown option '--mehtod', did you mean '--method'?|variance --mehtod trig --L 8 --samples 1 --mc 0 -o out.h5
2|unknown projection 'ortt', did you mean 'ort'?|variance --projection ortt --L 8 --samples 1 --mc 0 -o out.h5
2|unknown regime 'sphre', did you mean 'sphere'?|variance --regime normal,sphre --L 8 --samples 1 --mc 0 -o out.h5
2|unknown --mnist-norm 'standrd', did you mean 'standard'? (valid: unit, standard)|variance --regime mnist --mnist-norm standrd --L 8 --samples 1 --mc 0 -o out.h5
2|--L must be at least 2, got 1|variance --L 1 --samples 1 --mc 0 -o out.h5
2|--mc must be 0 or at least 2, got 1|variance --mc 1 --L 8 --samples 1 -o out.h5
2|--steps must be in 2..100000, got 1|variance --map angle --steps 1 -o out.h5
2|--r-max must be positive, got 0|variance --map angle --r-max 0 -o out.h5
2|r-max must be at least 1e-150, got 1e-170|variance --map angle --r-max 1e-170 -o out.h5
2|--threads must be in 0..1024, got -1|variance --threads -1 --L 8 --samples 1 --mc 0 -o out.h5
2|--threads must be in 0..1024, got 1025|variance --threads 1025 --L 8 --samples 1 --mc 0 -o out.h5
2|--threads must be in 0..1024, got 1000000|uci-classify --threads 1000000 -o out.h5
2|'--L' needs a value|variance --samples 1 --mc 0 -o out.h5 --L
2|'-o' needs a value|variance --L 8 --samples 1 --mc 0 -o
2|unknown method 'foo'|variance --method trig,foo --L 8 --samples 1 --mc 0 -o out.h5
2|unknown projection 'qr'|variance --projection qr --L 8 --samples 1 --mc 0 -o out.h5
2|unknown regime 'gauss'|variance --regime gauss --L 8 --samples 1 --mc 0 -o out.h5
2|--d|variance --d 0 --L 8 --samples 1 --mc 0 -o out.h5
2|--d|variance --d -4 --L 8 --samples 1 --mc 0 -o out.h5
2|--d|variance --d 1e7 --L 8 --samples 1 --mc 0 -o out.h5
2|--d|variance --d 12abc --L 8 --samples 1 --mc 0 -o out.h5
1|out of memory|variance --regime normal --method trig --gamma 1 --d 1000000 --L 2000000000 --samples 1 --mc 0 -o out.h5
2|--features|variance --features 0 --L 8 --samples 1 --mc 0 -o out.h5
2|--L|variance --L 1 --samples 1 --mc 0 -o out.h5
2|--L|variance --L 2.5 --samples 1 --mc 0 -o out.h5
2|gamma|variance --gamma 0 --L 8 --samples 1 --mc 0 -o out.h5
2|gamma|variance --gamma 0.5,-1 --L 8 --samples 1 --mc 0 -o out.h5
2|nan|variance --gamma nan --L 8 --samples 1 --mc 0 -o out.h5
2|--gamma|variance --gamma '' --L 8 --samples 1 --mc 0 -o out.h5
2|0.5,abc|variance --gamma 0.5,abc --L 8 --samples 1 --mc 0 -o out.h5
2|--mc|variance --mc 1 --L 8 --samples 1 -o out.h5
2|--x|variance --x 1,2,3 --y 1,2 -o out.h5
2|--y|variance --x 1,2 -o out.h5
2|nan|variance --x 1,nan --y 1,2 -o out.h5
2|beyond 1e+75|variance --x 1e76,0 --y 1,2 -o out.h5
2|--seed|variance --seed -1 --x 1 --y 2 -o out.h5
1|cannot open|variance --regime mnist --data $FX/none --L 2 --samples 1 --mc 0 -o out.h5
1|truncated|variance --regime mnist --d 4 --data $FX/idx_short_pix --L 2 --samples 1 --mc 0 -o out.h5
1|cannot create 'nodir/out.h5'|variance --x 1 --y 2 -o nodir/out.h5
1|'outdir.h5' is a directory|variance --x 1 --y 2 -o outdir.h5
1|cannot create '/proc/rfx-out.h5'|variance --x 1 --y 2 -o /proc/rfx-out.h5
2|-o|variance --x 1 --y 2 -o ''

# rfx variance on the user's files (issue 16)
1|non-finite value 'nan' in '$FX/m_nan.csv' row 2 column 2|variance --x-file $FX/m_nan.csv -o out.h5
1|non-finite value '-inf' in '$FX/m_inf.txt' row 2 column 3|variance --x-file $FX/m_good.csv --y-file $FX/m_inf.txt -o out.h5
1|ragged rows in '$FX/m_ragged.csv': row 2 has 2 columns|variance --x-file $FX/m_ragged.csv -o out.h5
1|no rows in '$FX/m_norows.csv'|variance --x-file $FX/m_norows.csv -o out.h5
1|'$FX/m_typo.csv' mixes names and numbers ('2x' in column 2|variance --x-file $FX/m_typo.csv -o out.h5
1|invalid UTF-8 in '$FX/m_latin1.csv' line 2|variance --x-file $FX/m_latin1.csv -o out.h5
1|truncated data in '$FX/m_cut.npy'|variance --x-file $FX/m_cut.npy -o out.h5
1|has 8 bytes after the shape (2, 3)|variance --x-file $FX/m_long.npy -o out.h5
1|no rows in '$FX/m_rows0.npy'|variance --x-file $FX/m_rows0.npy -o out.h5
1|unsupported dtype '<c16'|variance --x-file $FX/m_c16.npy -o out.h5
1|(object)|variance --x-file $FX/m_obj.npy -o out.h5
1|(structured)|variance --x-file $FX/m_struct.npy -o out.h5
1|has d = 2 but '$FX/m_good.csv' has d = 3|variance --x-file $FX/m_good.csv --y-file $FX/m_d2.csv -o out.h5
1|cannot open '$FX/none/x.npy'|variance --x-file $FX/none/x.npy -o out.h5
1|no dataset '/nope' in '$FX/good.h5'|variance --x-file $FX/good.h5:/nope -o out.h5
1|(compound)|variance --x-file $FX/good.h5:/pair -o out.h5
1|is an HDF5 file|variance --x-file $FX/good.h5 -o out.h5
2|unknown --kernel 'laplace'|variance --x-file $FX/m_good.csv --kernel laplace -o out.h5
2|--y-file needs --x-file|variance --y-file $FX/m_good.csv -o out.h5
2|different modes|variance --x-file $FX/m_good.csv --x 1,2 --y 1,2 -o out.h5
2|--regime|variance --x-file $FX/m_good.csv --regime normal -o out.h5
2|--pairs|variance --x-file $FX/m_good.csv --pairs -3 -o out.h5
2|gamma must be positive|variance --x-file $FX/m_ok.npy --y-file $FX/m_ok.npy --gamma 0 -o out.h5
1|non-finite value 'nan' in '$FX/m_nan.csv' row 2 column 2|mse-table --dataset $FX/m_nan.csv --method trig -o out.h5
1|truncated data in '$FX/m_cut.npy'|mse-table --dataset $FX/m_cut.npy --method trig -o out.h5
1|label column 5 is outside '$FX/m_good.csv'|uci-classify --dataset $FX/m_good.csv --label-column 5 -o out.h5
1|has 3 labels but '$FX/m_good.csv' has 2 rows|uci-classify --dataset $FX/m_good.csv --labels $FX/m_lab3.txt -o out.h5
2|needs its labels|svm-classify --dataset $FX/m_good.csv -o out.h5
2|--label-column must be in 1..|uci-classify --dataset $FX/m_good.csv --label-column 0 -o out.h5
2|--label-column must be in 1..|svm-classify --dataset $FX/m_good.csv --label-column -2 -o out.h5
2|--labels and --label-column both give the labels|uci-classify --dataset $FX/m_good.csv --labels $FX/m_lab3.txt --label-column 3 -o out.h5
2|--labels and --label-column both give the labels|svm-classify --dataset $FX/m_good.csv --labels $FX/m_lab3.txt --label-column 3 -o out.h5
1|pairs need at least 2 inputs|mse-table --dataset $FX/m_one.csv --method trig -o out.h5
1|1 input is too few for a bandwidth|mse-table --dataset $FX/m_one.csv --kernel gauss --method trig -o out.h5
1|40 inputs are too few for a bandwidth from the 50-th|mse-table --dataset $FX/m_equal.csv --kernel gauss --method trig -o out.h5
1|bandwidth 0|mse-table --dataset $FX/m_equal.csv --kernel gauss --nn-k 3 --method trig -o out.h5
1|bandwidth 0|svm-classify --dataset $FX/m_equallab.csv --label-column 3 --nn-k 3 -o out.h5
1|has 2 rows, too few for an 80/20 split|svm-classify --dataset $FX/m_twolab.csv --label-column 3 -o out.h5
1|has one class only|svm-classify --dataset $FX/m_onelab.csv --label-column 3 -o out.h5
1|has one class only|uci-classify --dataset $FX/m_onelab.csv --label-column 3 -o out.h5
1|2 samples are too few to split|uci-classify --dataset $FX/m_twolab.csv --label-column 3 -o out.h5
1|invalid UTF-8 in '$FX/m_latin1.csv' line 2|svm-classify --dataset $FX/m_latin1.csv --label-column 1 -o out.h5
1|unsupported dtype '<c16'|optis --x-file $FX/m_c16.npy
1|has d = 2 but '$FX/m_good.csv' has d = 3|optis --x-file $FX/m_good.csv --y-file $FX/m_d2.csv

# rfx pointwise
2|unknown method 'nope'|pointwise --method trig,nope --mc 0 -o out.h5
2|unknown projection 'qr'|pointwise --projection qr -o out.h5
2|unknown option '--frobnicate'|pointwise --frobnicate -o out.h5
2|'--r' needs a value|pointwise -o out.h5 --r
2|d must be|pointwise --d 0 -o out.h5
2|d must be|pointwise --d 1 -o out.h5
2|d must be|pointwise --d 2000000000 -o out.h5
2|--features|pointwise --match none --features 0 -o out.h5
2|r = 0|pointwise --r 0 -o out.h5
2|--r|pointwise --r nan -o out.h5
2|r = 11|pointwise --r 11 -o out.h5
2|--thetas|pointwise --thetas 1 -o out.h5
2|--mc|pointwise --mc 1 -o out.h5
2|1,,2|pointwise --r 1,,2 -o out.h5
2|--r|pointwise --r '' -o out.h5
1|cannot create 'nodir/out.h5'|pointwise --method trig --r 1 --thetas 3 --mc 10 -o nodir/out.h5

# rfx clustered
2|unknown method 'nope'|clustered --method nope -o out.h5
2|unknown option '--frobnicate'|clustered --frobnicate -o out.h5
2|--m|clustered --m 0 -o out.h5
2|--m|clustered --m abc -o out.h5
2|--d|clustered --d 1 -o out.h5
2|--d|clustered --d 1000000000 -o out.h5
2|--norm|clustered --norm 0 -o out.h5
2|--norm|clustered --norm nan -o out.h5
2|--set|clustered --set 5 -o out.h5
2|--s|clustered --s 0.1,0.1,0.1 --sigma 1 -o out.h5
2|--tau|clustered --method hyb-gmix --tau 0 -o out.h5
2|--reps|clustered --reps 0 -o out.h5
1|'outdir.h5' is a directory|clustered --set 1 --points 20 --reps 1 --m 5 -o outdir.h5

# rfx optis (stdout only: no -o)
2|unknown --kernel 'laplace'|optis --kernel laplace
2|--gamma|optis --gamma nan
2|--d|optis --d 0
2|--L|optis --L 5000
2|'--L' needs a value|optis --L
2|unknown option '--method'|optis --method pos
2|unexpected argument 'extra'|optis extra

# rfx attention
2|--L must be in|attention --L 1 -o out.h5
2|--draws|attention --draws 1 -o out.h5
2|--gamma|attention --gamma 0 -o out.h5
2|unknown stabiliser 'max'|attention --stabiliser max -o out.h5
2|unknown precision 'f16'|attention --precision f16 -o out.h5
2|--eps|attention --eps -1 -o out.h5
2|unknown projection 'qr'|attention --projection qr -o out.h5
2|--Ls applies only to --time|attention --Ls 64 -o out.h5
2|--causal does not apply to --time|attention --time --causal -o out.h5
1|'outdir.h5' is a directory|attention --L 16 --d 2 --features 2 --draws 2 -o outdir.h5
1|has d = 2 but '$FX/m_good.csv' has d = 3|attention --q-file $FX/m_good.csv --k-file $FX/m_d2.csv -o out.h5
1|non-finite value 'nan' in '$FX/m_nan.csv'|attention --q-file $FX/m_nan.csv -o out.h5
1|'$FX/m_typo.csv' mixes names and numbers|attention --q-file $FX/m_good.csv --k-file $FX/m_typo.csv -o out.h5
2|--header does not apply to sampled inputs|attention --header -o out.h5
1|'$FX/m_typo.csv' mixes names and numbers|features --x-file $FX/m_typo.csv --method trig -o out.npy
2|--regime does not apply to --q-file|attention --q-file $FX/m_good.csv --regime normal -o out.h5
2|--k-file needs --q-file|attention --k-file $FX/m_good.csv -o out.h5

# rfx mse-table (W: wine from a fixture directory)
2|unknown dataset 'iris'|mse-table --dataset iris -o out.h5
2|unknown projection 'qr'|mse-table --method trig:qr -o out.h5
2|unknown method 'nope'|mse-table --method X=nope:ort -o out.h5
2|unknown method 'all' (valid: trig,|mse-table --method all -o out.h5
2|comes alone|variance --method trig,all --L 8 --samples 1 --mc 0 -o out.h5
2|--features|mse-table --features 0 -o out.h5
2|--sigma|mse-table --kernel gauss --sigma 0 -o out.h5
2|--sigma|mse-table --kernel gauss --sigma nan -o out.h5
2|--d|mse-table --vs-z --d 1 -o out.h5
2|--d|mse-table --vs-z --d 1000000000 -o out.h5
2|--z-max|mse-table --vs-z --z-max 7 -o out.h5
2|--ratio|mse-table --ratio '' --kernel gauss -o out.h5
1|cannot open|mse-table --dataset wine --data $FX/none --method trig -o out.h5
1|wine.csv|mse-table --dataset wine --data $FX/wine_empty --method trig -o out.h5
1|line 3|mse-table --dataset wine --data $FX/wine_short --method trig -o out.h5
1|line 3|mse-table --dataset wine --data $FX/wine_cut --method trig -o out.h5
1|14.2x|mse-table --dataset wine --data $FX/wine_text --method trig -o out.h5
1|nan|mse-table --dataset wine --data $FX/wine_nan --method trig -o out.h5
1|inf|mse-table --dataset wine --data $FX/wine_inf --method trig -o out.h5
1|corrupt gzip data in '$FX/usps_crc/usps_zip.train.gz'|mse-table --dataset usps --data $FX/usps_crc --kernel gauss --method trig -o out.h5
1|truncated '$FX/usps_gzcut/usps_zip.train.gz'|mse-table --dataset usps --data $FX/usps_gzcut --kernel gauss --method trig -o out.h5
1|cannot open|mse-table --dataset mnist --data $FX/none --kernel gauss --method trig -o out.h5
1|t10k-images-idx3-ubyte.gz|mse-table --dataset mnist --data $FX/idx_empty --kernel gauss --method trig -o out.h5
1|truncated|mse-table --dataset mnist --data $FX/idx_short_head --kernel gauss --method trig -o out.h5
1|truncated|mse-table --dataset mnist --data $FX/idx_short_pix --kernel gauss --method trig -o out.h5
1|truncated|mse-table --dataset mnist --data $FX/idx_gzcut --kernel gauss --method trig -o out.h5
1|magic|mse-table --dataset mnist --data $FX/idx_magic --kernel gauss --method trig -o out.h5
1|corrupt gzip data in '$FX/idx_crc/t10k-images-idx3-ubyte.gz'|mse-table --dataset mnist --data $FX/idx_crc --kernel gauss --method trig -o out.h5
1|nope.tsv|mse-table --dataset wine --method trig --check nope.tsv -o out.h5

# rfx uci-classify (B: banknote from a fixture directory)
2|unknown dataset 'iris'|uci-classify --dataset iris -o out.h5
2|unknown method 'foo'|uci-classify --dataset banknote --method exact,foo -o out.h5
2|unknown projection 'sobl', did you mean 'sobol'?|uci-classify --projection sobl -o out.h5
2|--seeds|uci-classify --seeds 0 -o out.h5
2|gamma|uci-classify --gamma 0 -o out.h5
2|--gamma|uci-classify --gamma '' -o out.h5
2|--budget|uci-classify --budget 0 -o out.h5
2|unknown encoding 'binary'|uci-classify --encoding binary -o out.h5
1|cannot open|uci-classify --dataset banknote --data $FX/none --seeds 1 -o out.h5
1|empty|uci-classify --dataset banknote --data $FX/bank_empty --seeds 1 -o out.h5
1|line 5|uci-classify --dataset banknote --data $FX/bank_short --seeds 1 -o out.h5
1|line 11|uci-classify --dataset banknote --data $FX/bank_cut --seeds 1 -o out.h5
1|3.6abc|uci-classify --dataset banknote --data $FX/bank_text --seeds 1 -o out.h5
1|NaN|uci-classify --dataset banknote --data $FX/bank_nan --seeds 1 -o out.h5
1|-Infinity|uci-classify --dataset banknote --data $FX/bank_inf --seeds 1 -o out.h5
1|header|uci-classify --dataset banknote --data $FX/bank_nohead --seeds 1 -o out.h5
1|0.5|uci-classify --dataset banknote --data $FX/bank_label --seeds 1 -o out.h5
1|unknown category 'vvhigh'|uci-classify --dataset car --data $FX/car_cat --seeds 1 -o out.h5
1|unknown category 'unknown'|uci-classify --dataset car --data $FX/car_label --seeds 1 -o out.h5
1|cannot create 'nodir/out.h5'|uci-classify --dataset banknote --seeds 1 --gamma 1 -o nodir/out.h5

# rfx svm-classify
2|unknown dataset 'forest'|svm-classify --dataset forest -o out.h5
2|unknown method 'QMC'|svm-classify --method RFF,QMC -o out.h5
2|--ratio|svm-classify --ratio 0 -o out.h5
2|--ratio|svm-classify --ratio 2.5 -o out.h5
2|--cost|svm-classify --cost -1 -o out.h5
2|--seeds|svm-classify --seeds 0 -o out.h5
2|--max-iter|svm-classify --max-iter 0 -o out.h5
2|listed twice|svm-classify --method ORF,orf -o out.h5
2|'letter' listed twice in --dataset|svm-classify --dataset letter,usps,letter -o out.h5

# a name list of any command repeating an item (cli/opt.c rfx_opt_split):
# before, attention and mse-table computed the repeated rows twice
2|'iid' listed twice in --projection|attention --L 16 --d 4 --projection iid,ort,iid -o out.h5
2|'row' listed twice in --stabiliser|attention --L 16 --d 4 --stabiliser row,none,row -o out.h5
2|'f64' listed twice in --precision|attention --L 16 --d 4 --precision f64,f64 -o out.h5
2|'unit' listed twice in --norm|mse-table --dataset wine --norm unit,unit --method trig -o out.h5
2|'wine' listed twice in --dataset|mse-table --dataset wine,wine --method trig -o out.h5
2|'ort' listed twice in --projection|variance --map angle --method trig --d 2 --projection ort,iid,ort -o out.h5
# and a sweep's values (cli/opt.c rfx_opt_sweep, rfx_opt_ints): 0.5 and
# 0.50 are one gamma (coordinates, --x 1,1, may repeat: t_cmd_variance)
2|0.5 listed twice in --gamma|variance --method oprf --d 4 --gamma 0.5,1,0.50 -o out.h5
2|8 listed twice in --features|attention --L 16 --d 4 --features 8,16,8 -o out.h5
2|0.5 listed twice in --gamma|attention --L 16 --d 4 --gamma 0.5,0.5 -o out.h5
2|0 listed twice in --eps|attention --L 16 --d 4 --eps 0,0 -o out.h5
2|2 listed twice in --ratio|mse-table --dataset wine --method trig --ratio 2,2 -o out.h5
2|1.5 listed twice in --r|pointwise --method trig --r 1.5,1.5 -o out.h5
2|1 listed twice in --cost|svm-classify --cost 1,1 -o out.h5
2|0.2 listed twice in --gamma|uci-classify --dataset banknote --gamma 0.2,0.2 --seeds 1 -o out.h5
2|50 listed twice in --m|clustered --m 50,50 -o out.h5
2|8 listed twice in --d|variance --map sum --method pos --d 8,8 -o out.h5
1|cannot open|svm-classify --dataset letter --data $FX/none -o out.h5
1|not a class label: 'a'|svm-classify --dataset letter --data $FX/letter_label -o out.h5
1|30 rows|svm-classify --dataset letter --data $FX/letter_few -o out.h5
1|limit of 1.0 MB|svm-classify --dataset letter --ratio 10 --max-mem 1 -o out.h5
1|cannot create 'nodir/out.h5'|svm-classify --dataset letter --ratio 1 --seeds 1 --n-train 200 --nn-sample 50 -o nodir/out.h5

# special files as inputs: refused before a byte is read (base/infile.h)
1|'/dev/zero' is not a regular file (a character device)|variance --x-file /dev/zero -o out.h5
1|'$FX/fifo.csv' is not a regular file (a FIFO)|variance --x-file $FX/fifo.csv -o out.h5
1|'/dev/zero' is not a regular file (a character device)|attention --q-file /dev/zero -o out.h5
1|'/dev/zero' is not a regular file (a character device)|optis --x-file /dev/zero
1|'/dev/zero' is not a regular file (a character device)|features --method trig --features 4 --x-file /dev/zero -o out.npy
1|'/dev/zero' is not a regular file (a character device)|mse-table --dataset /dev/zero --method trig -o out.h5
1|'/dev/zero' is not a regular file (a character device)|mse-table --dataset wine --method trig --check /dev/zero -o out.h5
1|zero/wine.csv' is not a regular file (a character device)|mse-table --dataset wine --data $FX/zero --method trig -o out.h5
1|zero/banknote.txt' is not a regular file (a character device)|uci-classify --dataset banknote --data $FX/zero -o out.h5
1|zero/usps_zip.train.gz' is not a regular file (a character device)|svm-classify --dataset usps --data $FX/zero -o out.h5
1|zero/t10k-images-idx3-ubyte.gz' is not a regular file (a character device)|variance --regime mnist --d 4 --data $FX/zero --L 2 --samples 1 --mc 0 -o out.h5
1|'/dev/zero' is not a regular file (a character device)|dump /dev/zero
1|'/dev/zero' is not a regular file (a character device)|merge out.h5 /dev/zero

# rfx dump
2|needs a file|dump
1|notes.h5|dump $FX/notes.h5
1|empty.h5|dump $FX/empty.h5
1|cut.h5|dump $FX/cut.h5
1|missing.h5|dump missing.h5
2|nosuch|dump $FX/good.h5 nosuch
2|foo|dump $FX/good.h5 pair --where foo=1
2|--bogus|dump $FX/good.h5 --bogus
END

while IFS='|' read -r code frag args <&3; do
	case $code in
	'' | '#'*) continue ;;
	esac
	check "$code" "$frag" "$args"
done 3< "$tmp/catalogue"

# As root every directory is writable: the /proc case above stands in.
mkdir ro
chmod 555 ro
if [ "$(id -u)" -eq 0 ]; then
	skip "-o in a read-only directory: root writes anywhere"
else
	check 1 "cannot create 'ro/out.h5'" "variance --x 1 --y 2 -o ro/out.h5"
fi
chmod 755 ro

ncases=$(grep -c '^[12]|' "$tmp/catalogue")
for c in variance pointwise clustered mse-table uci-classify dump; do
	grep -q "^[12]|[^|]*|$c " "$tmp/catalogue" || echo "$c"
done > "$tmp/uncovered"
[ "$ncases" -ge 40 ] && [ ! -s "$tmp/uncovered" ]
ok $? "the catalogue has $ncases cases (>= 40) and every subcommand" ||
	diag_file "$tmp/uncovered"

done_testing
