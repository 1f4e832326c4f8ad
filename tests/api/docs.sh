#!/bin/sh
# Every function carsh.h declares is in the man page carsh(3) and in docs/api.md's or the
# man page's text, so that a new call cannot ship undocumented.
. "$TOP_SRCDIR/tests/shell/lib.sh"

funcs=$(sed -n 's/^[a-z].*[ *]\(carsh_[a-z_]*\)(.*/\1/p' "$TOP_SRCDIR/carsh/carsh.h" | sort -u)
n=$(printf '%s\n' "$funcs" | wc -l)
missing=""
for f in $funcs; do
	grep -q "$f" "$TOP_SRCDIR/docs/carsh.3" || missing="$missing $f"
done
if [ "$n" -ge 40 ] && [ -z "$missing" ]; then
	pass "all $n functions of carsh.h are in carsh(3)"
else
	fail "carsh(3) lacks:$missing ($n functions found in carsh.h)"
fi
exit $((FAILS > 0))
