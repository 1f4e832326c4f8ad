# The suite's input generator: n deterministic pseudo-random numbers, one a line, from the
# Park-Miller generator (exact in awk's doubles).
#   awk -v n=N [-v seed=S] [-v lo=A] [-v hi=B] [-v integer=1] -f gen.awk
# Floats are uniform in [lo, hi) printed with 6 significant digits, so that carsh and the
# reference read the same values; integer=1 gives integers lo .. hi-1.
BEGIN {
	if (seed == "") seed = 1
	if (lo == "") lo = 0
	if (hi == "") hi = 1
	x = seed % 2147483647
	if (x <= 0) x += 2147483646
	for (i = 0; i < n; i++) {
		x = (x * 16807) % 2147483647
		u = x / 2147483647
		if (integer) printf "%d\n", lo + int((hi - lo) * u)
		else printf "%.6g\n", lo + (hi - lo) * u
	}
}
