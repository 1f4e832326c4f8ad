#!/bin/sh
# `carsh server stop|status` finds only its own build's server (the socket's name carries
# the build, docs/server.md): with another build's server running (as a program that embeds
# the library and names another carsh starts one), it says which build it looked for and
# that other builds' servers are there, and leaves that server running.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

CARSH_SERVER_DIR="$T/srv"
export CARSH_SERVER_DIR
mkdir -m 700 other
cp "$TOP_BUILDDIR/carsh/carsh" other/carsh # another inode: another build
expect 0 "" other/carsh server start
other_pid=$(sed 's/.*pid //' "$OUT")
real=$(readlink -f "$TOP_BUILDDIR/carsh/carsh")
expect 0 "" "$CARSH" server stop
grep -q "^no carsh server running for this build ($real, build [0-9a-f]\{16\}); $T/srv holds 1 socket of other builds' servers (each build talks only to its own: stop one with its own carsh)\$" "$OUT" &&
	pass "stop names the build it looked for and the other build's server" ||
	fail "stop said: $(cat "$OUT")"
expect 1 "carsh: server status: no carsh server running for this build ($real, build " \
	"$CARSH" server status
expect 0 "" other/carsh server status
grep -q "^pid $other_pid\$" "$OUT" && pass "the other build's server still runs" ||
	fail "other server: $(cat "$OUT")"
expect 0 "" other/carsh server stop
grep -q "^carsh server (pid $other_pid) stopped\$" "$OUT" || fail "other stop: $(cat "$OUT")"
expect 0 "" "$CARSH" server stop
grep -q "^no carsh server running for this build ($real, build [0-9a-f]\{16\})\$" "$OUT" &&
	pass "with no server at all, stop names only its build" || fail "stop said: $(cat "$OUT")"
finish
