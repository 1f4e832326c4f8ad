#!/bin/sh
# Standard descriptors closed when carsh starts: they stay taken (CarSh's own sockets never
# land on 0-2 to be handed to a job), and a job reading a closed standard input or writing a
# closed standard output fails as with a closed descriptor, exit 1, with the server on and
# off. A server takes back the workers of a client that died with its connection still open.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1

SCALE="$FM/scale.xml"
seq 1 1000 >x.csv

for server in on off; do
	export CARSH_SERVER=$server
	# expect runs its command through no shell: the descriptors are closed by sh -c.
	expect 1 "carsh: $SCALE: stream 'y': <stdout>: Bad file descriptor" \
		timeout 60 sh -c '"$0" run "$1" x=x.csv y=- >&-' "$CARSH" "$SCALE"
	expect 1 "carsh: $SCALE: stream 'y': <stdout>: Bad file descriptor" \
		timeout 60 sh -c '"$0" run "$1" x=- y=- <x.csv >&-' "$CARSH" "$SCALE"
	expect 1 "carsh: $SCALE: stream 'x': <stdin>: Bad file descriptor" \
		timeout 60 sh -c '"$0" run "$1" x=- y=- <&-' "$CARSH" "$SCALE"
	[ ! -s "$OUT" ] && pass "nothing written to standard output (server $server)" ||
		fail "standard output got $(head -c 200 "$OUT")"
	expect 1 "carsh: $SCALE: stream 'x': <stdin>: Bad file descriptor" \
		timeout 60 sh -c '"$0" -c "run $1 x=- y=-; echo after" <&-' "$CARSH" "$SCALE"
	# Standard error closed too: the run still fails, and says nothing anywhere else.
	expect 1 "" timeout 60 sh -c '"$0" run "$1" x=- y=- <&- 2>&-' "$CARSH" "$SCALE"
done
unset CARSH_SERVER

if process_executor && command -v python3 >/dev/null; then
	sock=$("$CARSH" server status | sed -n 's/^socket //p')
	if [ -z "$sock" ]; then
		"$CARSH" server start >/dev/null
		sock=$("$CARSH" server status | sed -n 's/^socket //p')
	fi
	set -- $(python3 "$TOP_SRCDIR/tests/tools/dead-client.py" "$sock")
	holder=${1:-} dead=${2:-none}
	no_lent_to_dead() { ! "$CARSH" server status | grep -q "^lent [0-9]* to $dead\$"; }
	[ -n "$holder" ] || fail "dead-client.py took no worker"
	wait_until "the server to take back the worker of dead client $dead" no_lent_to_dead &&
		pass "the server took back the worker lent to a client that died (pid $dead)"
	[ -n "$holder" ] && kill "$holder"
fi
finish
