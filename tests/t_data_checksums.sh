#!/bin/sh
#
# Checks that every file in data/ is the byte-exact copy the manifest
# describes: each file's sha256 is compared with the sha256 block at the end
# of data/MANIFEST.md (the record written when the files were fetched, so
# an independent source), not with data/SHA256SUMS, which is checked against
# the manifest separately. Prints TAP.
#
# The repository is $RFX_TOP, else found from where this script lives: in
# tests/ when run as sh tests/t_data_checksums.sh, in tests/bin/ when make
# has copied it there.

LC_ALL=C
export LC_ALL

if [ -n "$RFX_TOP" ]; then
	top=$RFX_TOP
else
	here=$(cd "$(dirname "$0")" && pwd)
	top=.
	for t in "$here/.." "$here/../.."; do
		if [ -f "$t/data/MANIFEST.md" ]; then
			top=$(cd "$t" && pwd)
			break
		fi
	done
fi
data=$top/data
manifest=$data/MANIFEST.md

if [ ! -f "$manifest" ]; then
	echo "Bail out! cannot open '$manifest'"
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t_data_checksums.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# The lines between the fences that follow the "## sha256" heading.
awk '/^## sha256/ { s = 1; next }
     s && /^```/ { if (body) exit; body = 1; next }
     body && NF { print }' "$manifest" > "$tmp/manifest"

n=$(wc -l < "$tmp/manifest" | tr -d ' ')
# One test per listed file, plus: block well formed, SHA256SUMS agrees,
# nothing in data/ left out of the manifest.
echo "1..$((n + 3))"
i=0
failed=0

ok() {
	i=$((i + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $i - $2"
	else
		echo "not ok $i - $2"
		failed=$((failed + 1))
	fi
}

# 64 lowercase hex digits, two spaces, a plain file name
bad=$(grep -c -v -E '^[0-9a-f]{64}  [A-Za-z0-9._-]+$' "$tmp/manifest")
[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
ok $? "MANIFEST.md's sha256 block lists $n files, all well formed"

while read -r want f; do
	if [ -f "$data/$f" ]; then
		got=$(sha256sum < "$data/$f" | cut -d' ' -f1)
	else
		got="(missing)"
	fi
	[ "$got" = "$want" ]
	ok $? "sha256 $f"
	if [ "$got" != "$want" ]; then
		echo "#     got  $got"
		echo "#     want $want (MANIFEST.md)"
	fi
done < "$tmp/manifest"

# SHA256SUMS (for sha256sum -c) must say exactly what the manifest says.
if [ -f "$data/SHA256SUMS" ]; then
	sort "$data/SHA256SUMS" > "$tmp/sums"
else
	: > "$tmp/sums"
	echo "# cannot open '$data/SHA256SUMS'"
fi
sort "$tmp/manifest" > "$tmp/manifest.sorted"
cmp -s "$tmp/sums" "$tmp/manifest.sorted"
ok $? "data/SHA256SUMS agrees with MANIFEST.md"
diff "$tmp/manifest.sorted" "$tmp/sums" | sed -n 's/^[<>]/#     &/p'

# Every data file is listed (the manifest and SHA256SUMS describe the rest).
for p in "$data"/*; do
	case ${p##*/} in
	MANIFEST.md | SHA256SUMS) ;;
	*) echo "${p##*/}" ;;
	esac
done | sort > "$tmp/present"
cut -d' ' -f3 "$tmp/manifest" | sort > "$tmp/listed"
comm -23 "$tmp/present" "$tmp/listed" > "$tmp/unlisted"
[ ! -s "$tmp/unlisted" ]
ok $? "every file in data/ is listed in MANIFEST.md"
sed 's/^/#     unlisted: /' "$tmp/unlisted"

[ "$failed" -eq 0 ]
