#!/bin/sh
# Every example command line of README.md and docs/carsh.1 runs as written, from a fresh
# copy of the tree (flowmodels, kernels, batches, examples), with `carsh` on the PATH, and
# exits 0 within a bounded time. Example lines are those of code blocks (README: indented or
# fenced; the man page: between .nf and .fi) that run carsh; the build line is left out.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
mkdir bin tree
ln -s "$CARSH" bin/carsh
for d in flowmodels kernels batches examples; do cp -R "$TOP_SRCDIR/$d" tree/; done
mkdir tree/carsh && ln -s "$CARSH" tree/carsh/carsh
PATH="$T/bin:$PATH"
export PATH

readme_lines() {
	awk '/^```/ { fenced = !fenced; next } fenced || /^    / { print }' "$TOP_SRCDIR/README.md"
}
man_lines() {
	awk '/^\.nf/ { on = 1; next } /^\.fi/ { on = 0 } on' "$TOP_SRCDIR/docs/carsh.1" | sed 's/\\-/-/g'
}
{ readme_lines; man_lines; } | sed 's/^ *//; s/  *# .*$//' |
	grep -E '(^|[|;&] *)(\./carsh/)?carsh( |$)' | grep -v 'install-deps' >examples.txt
[ "$(wc -l <examples.txt)" -ge 8 ] && pass "found $(wc -l <examples.txt) examples" ||
	fail "too few examples: $(cat examples.txt)"
n=0
while IFS= read -r line; do
	n=$((n + 1))
	rm -rf run && mkdir run && (cd tree && cp -R . ../run)
	(cd run && timeout 300 sh -c "$line" </dev/null >"$OUT" 2>"$ERR")
	rc=$?
	[ $rc -eq 0 ] && pass "example $n: $line" ||
		fail "example $n exits $rc: $line: $(head -c 600 "$ERR")"
done <examples.txt
# The flagship from another directory: its picture is found beside the batch, its result
# written here.
rm -rf elsewhere && mkdir elsewhere
(cd elsewhere && timeout 300 carsh "$T/tree/batches/fft-filter/fft-filter.bat.xml" </dev/null >"$OUT" 2>"$ERR")
[ $? -eq 0 ] && [ -s elsewhere/filtered.pgm ] && pass "the flagship runs from any directory" ||
	fail "flagship elsewhere: $(head -c 600 "$ERR")"
finish
