#!/bin/sh
# Write docs/errors.md from tests/data/errors.tsv to standard output (make errors-doc).
# tests/shell/errors_table.sh checks every row, and that docs/errors.md is this output.
set -eu
tsv="${1:?usage: errors-doc.sh tests/data/errors.tsv}"
cat <<'HEAD'
# Errors: bad input and what carsh says

Every row is a bad input — a file, a command, data or the environment — with the exact text
carsh writes on standard error and its exit status. `make check` runs every row
(`tests/shell/errors_table.sh`) in a directory holding copies of `tests/data/bad/`,
`tests/data/errors/` and `x8.csv` (the numbers 1 to 8), and checks both. This page is
generated from the same source, `tests/data/errors.tsv` (`make errors-doc`), so the two
cannot drift: the test fails when they differ.

`…` stands for text that depends on the machine (device names, paths, compiler output). Exit
statuses: 0 success (a warning only), 1 failure, 2 usage or syntax, 127 not found, 128+N a
job killed by signal N (docs/architecture.md). Every message is one line, except where the
OpenCL compiler or getopt adds its own. `with_small_shm` runs the command with a 1 MiB
`/dev/shm` of its own (unshare(1)); the test skips that row where it cannot mount one.
`as_nobody` runs it as the user nobody when the test runs as root (setpriv(1)), as
permissions do not stop root; the test skips that row where it cannot. `with_mpi N` runs it
on N MPI ranks (`tests/tools/mpi-run`, docs/scale-out.md); the test skips that row where
carsh was built without MPI.

HEAD
awk -F '\t' '
function cell(s) {
	gsub(/\|/, "\\|", s)
	gsub(/\{\.\.\.\}/, "…", s)
	return s
}
/^#/ || NF == 0 { next }
{
	n++
	kind[n] = $1; count[$1]++
	msg = cell($3)
	gsub(/\\n/, "` ⏎ `", msg)
	row[n] = sprintf("| %d | %s | `%s` | %s | `%s` |", n, $1, cell($4), $2, msg)
}
END {
	printf "%d rows:", n
	split("file data command environment", order, " ")
	for (i = 1; i <= 4; i++)
		printf " %d %s%s", count[order[i]], order[i], i < 4 ? "," : ".\n\n"
	print "| # | kind | command | exit | standard error |"
	print "|---|---|---|---|---|"
	for (i = 1; i <= n; i++)
		print row[i]
}' "$tsv"
