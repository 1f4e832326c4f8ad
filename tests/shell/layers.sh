#!/bin/sh
# The layering of docs/architecture.md: code calls downward only. Every #include of a header
# in another directory of carsh/ must name a lower layer. The check is also run on a made-up
# upward include, so that a broken awk program cannot pass silently.
. "$TOP_SRCDIR/tests/shell/lib.sh"

# Rank of each directory, highest first (docs/architecture.md, "Layers").
ranks='shell 8
cmd 7
graph 6
pack 6
engines 6
model 5
exec 4
runtime 3
data 2
util 1'

# upward_includes DIR: "FILE: includes LAYER/..." for every include that is not downward.
upward_includes() {
	printf '%s\n' "$ranks" >"$T/ranks"
	for f in "$1"/*/*.[ch]; do
		grep -H '^#include "[a-z]*/' "$f"
	done | awk -v ranks="$T/ranks" '
		BEGIN { while ((getline line < ranks) > 0) { split(line, w, " "); rank[w[1]] = w[2] } }
		{
			n = split(substr($0, 1, index($0, ":") - 1), p, "/"); from = p[n - 1]
			to = $0; sub(/^[^"]*"/, "", to); sub(/\/.*/, "", to)
			if (!(from in rank)) { print substr($0, 1, index($0, ":") - 1) ": directory " from " has no layer"; next }
			if (!(to in rank)) { print $0 ": layer " to " unknown"; next }
			if (from != to && rank[to] >= rank[from])
				print substr($0, 1, index($0, ":") - 1) ": includes " to "/ (" rank[to] " >= " rank[from] ")"
		}'
}

bad=$(upward_includes "$TOP_SRCDIR/carsh")
if [ -z "$bad" ]; then
	pass "every include between carsh/ directories goes down a layer ($(ls "$TOP_SRCDIR"/carsh/*/*.[ch] | wc -l) files)"
else
	fail "includes against the layering:
$bad"
fi

# The same check must catch an upward include (and a sideways one between equal ranks).
mkdir -p "$T/src/model" "$T/src/pack"
printf '#include "cmd/cmd.h"\n' >"$T/src/model/up.c"
printf '#include "graph/adj.h"\n' >"$T/src/pack/side.c"
bad=$(upward_includes "$T/src")
case "$bad" in
*"model/up.c: includes cmd/"*"pack/side.c: includes graph/"*) pass "an upward and a sideways include are reported" ;;
*) fail "the check missed planted includes: '$bad'" ;;
esac

finish
