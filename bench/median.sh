# Sourced by bench/featmaps.sh and bench/python.sh: $MEDIAN_AWK holds the
# awk functions both use to report medians over rounds. The items' lines
# are "NAME ms peak_KiB features round"; the program that follows these
# functions fills t[NAME, round] and nr (the number of rounds).
#
#   median(v, n)  the median of v[1..n] (sorts v)
#   med(a, b)     the median over the rounds of a's time over b's, each
#                 ratio taken within one round (b = "": of a's time);
#                 -1 when no round has both

MEDIAN_AWK='
function median(v, n,    i, j, x) {
	for (i = 2; i <= n; i++) {
		x = v[i]
		for (j = i - 1; j >= 1 && v[j] > x; j--)
			v[j + 1] = v[j]
		v[j + 1] = x
	}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function med(a, b,    r, n, v) {
	n = 0
	for (r = 0; r < nr; r++)
		if ((a, r) in t && (b == "" || (b, r) in t))
			v[++n] = b == "" ? t[a, r] : t[a, r] / t[b, r]
	return n ? median(v, n) : -1
}
'
