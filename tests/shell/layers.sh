#!/bin/sh
# The layering of docs/architecture.md: code calls downward only. Every #include of a header
# in another directory of carsh/, at any depth, must name a lower layer; a file's layer is
# its first directory below carsh/ (carsh.h, the library's public face at the top, counts as
# "api"). Inside one layer a subfolder may include its own files and those of
# the folders above it (engines/partition/ may include engines/energy.h), never a sibling's
# (engines/partition/ never includes engines/pipeline/). The check is also run on made-up
# bad includes, so that a broken awk program cannot pass silently.
. "$TOP_SRCDIR/tests/shell/lib.sh"

# Rank of each layer, highest first (docs/architecture.md, "Layers").
ranks='shell 12
api 11
cmd 10
runner 9
mpi 8
graph 7
pack 7
engines 7
model 6
server 5
exec 4
runtime 3
data 2
util 1'

# bad_includes DIR: "FILE: includes ..." for every include that is not downward.
bad_includes() {
	printf '%s\n' "$ranks" >"$T/ranks"
	(cd "$1" && find . -name '*.[ch]' | sed 's|^\./||' | sort | while read -r f; do
		sed -n 's|^#include "\([a-z][a-z0-9_/.-]*\)".*|\1|p' "$f" | sed "s|^|$f |"
	done) | awk -v ranks="$T/ranks" '
		BEGIN { while ((getline line < ranks) > 0) { split(line, w, " "); rank[w[1]] = w[2] } }
		function dir(path) { return path ~ /\// ? substr(path, 1, match(path, /\/[^\/]*$/) - 1) : "" }
		function layer(d) { return d == "" ? "api" : (index(d, "/") ? substr(d, 1, index(d, "/") - 1) : d) }
		{
			file = $1; inc = $2
			# includes without a folder: the public header, or one of the build (config.h)
			if (inc !~ /\// && inc != "carsh.h") next
			# carsh.h lies at the top of carsh/ but belongs to the api/ folder
			from = dir(file); to = inc == "carsh.h" ? "api" : dir(inc)
			lf = layer(from); lt = layer(to)
			if (!(lf in rank)) { print file ": directory " from " has no layer"; next }
			if (!(lt in rank)) { print file ": includes " inc ": layer " lt " unknown"; next }
			if (lf != lt) {
				if (rank[lt] >= rank[lf])
					print file ": includes " lt "/ (" rank[lt] " >= " rank[lf] ")"
				next
			}
			# same layer: the own folder or one above it
			if (to != from && index(from "/", to "/") != 1)
				print file ": includes " inc ", a sibling folder of the same layer"
		}'
}

# mpi_outside DIR: the files outside DIR/mpi/ that include <mpi.h> (MPI has one room).
mpi_outside() {
	(cd "$1" && grep -rl '^#include <mpi\.h>' --include='*.[ch]' . | sed 's|^\./||' |
		grep -v '^mpi/' | sort)
}

# names_twice DIR: the file names that two source files of DIR share.
names_twice() {
	find "$1" -name '*.[ch]' -o -name '*.cc' | sed 's|.*/||' | sort | uniq -d
}

bad=$(bad_includes "$TOP_SRCDIR/carsh")
nfiles=$(find "$TOP_SRCDIR/carsh" -name '*.[ch]' | wc -l)
if [ -z "$bad" ]; then
	pass "every include between carsh/ folders, at every depth, goes down a layer ($nfiles files)"
else
	fail "includes against the layering:
$bad"
fi

out=$(mpi_outside "$TOP_SRCDIR/carsh")
if [ -z "$out" ]; then
	pass "only carsh/mpi/ includes <mpi.h>"
else
	fail "<mpi.h> outside carsh/mpi/: $out"
fi
twice=$(names_twice "$TOP_SRCDIR/carsh")
if [ -z "$twice" ]; then
	pass "no two files of carsh/ share a name"
else
	fail "file names used twice in carsh/: $twice"
fi

# The same check must catch an upward include, a sideways one between equal ranks, one
# from the top-level public face into the front-end, and one between sibling subfolders.
mkdir -p "$T/src/model" "$T/src/pack" "$T/src/engines/a" "$T/src/engines/b" "$T/src/cmd"
printf '#include "cmd/cmd.h"\n' >"$T/src/model/up.c"
printf '#include "graph/adj.h"\n' >"$T/src/pack/side.c"
printf '#include "shell/script.h"\n' >"$T/src/api.c"
printf '#include "engines/b/x.h"\n#include "engines/e.h"\n' >"$T/src/engines/a/sib.c"
printf '#include "carsh.h"\n' >"$T/src/cmd/public.c"
bad=$(bad_includes "$T/src")
case "$bad" in
*"api.c: includes shell/"*"cmd/public.c: includes api/"*"engines/a/sib.c: includes engines/b/x.h, a sibling"*"model/up.c: includes cmd/"*"pack/side.c: includes graph/"*)
	pass "planted upward, sideways, top-level and sibling includes are reported" ;;
*) fail "the check missed planted includes: '$bad'" ;;
esac
# ... and an <mpi.h> outside mpi/, and a file name used twice.
mkdir -p "$T/src/mpi" "$T/src/exec"
printf '#include <mpi.h>\n' >"$T/src/exec/m.c"
printf '#include <mpi.h>\n' >"$T/src/mpi/m2.c"
printf '\n' >"$T/src/pack/up.c"
out=$(mpi_outside "$T/src")
twice=$(names_twice "$T/src")
[ "$out" = "exec/m.c" ] && pass "a planted <mpi.h> outside mpi/ is reported" ||
	fail "planted <mpi.h>: '$out'"
[ "$twice" = "up.c" ] && pass "a planted file name used twice is reported" ||
	fail "planted twice: '$twice'"
case "$bad" in
*"engines/e.h"*) fail "an include of the own layer's parent folder was reported: '$bad'" ;;
*) pass "a subfolder may include its layer's parent folder" ;;
esac

finish
