#!/usr/bin/env bash
# Stress of PoCL's kernel cache (docs/hardening.md, "Ctrl-C during a build" and CI).
#
#   bench/kcache-stress.sh ctrlc [TRIES]     (after `make`; CARSH= for another binary)
#     Ctrl-C typed at an interactive carsh (a tmux terminal) at 0 to 1.2 s of a partition
#     whose program no cache holds, TRIES times under each executor: a try fails when the
#     screen does not say "partition: ... interrupted" (a build broken by the key says
#     "Final linking of kernel ... failed" or "unable to rename temporary ...").
#   bench/kcache-stress.sh builders [TRIES]
#     4 carsh at once (2 through the server's workers, 2 under -T) run vadd on a program no
#     one built yet (a #define with the try's number), in one cache and one server directory
#     as the test suite shares them; a try fails when any ends badly or computes another c.
# Each prints "failed: F of TRIES ...".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
carsh=${CARSH:-$top/carsh/carsh}
mode=${1:?ctrlc or builders}
tries=${2:-50}
work=$(mktemp -d)
export CARSH_SERVER_DIR="$work/srv" CARSH_HISTFILE=/dev/null
mkdir -m 700 "$work/srv"
tm() { tmux -S "$work/tmux.sock" -f /dev/null "$@" 2>/dev/null; }
trap 'tm kill-server; "$carsh" server stop >/dev/null 2>&1; rm -rf "$work"' EXIT

# poll N COMMAND...: until COMMAND succeeds, N times at most, 10 ms apart.
poll() {
	local n=$1 i
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.01
	done
	return 1
}
shows() { tm capture-pane -p | grep -q -- "$1"; }
prompt_back() { tm capture-pane -p | sed -n '/^carsh> partition/,$p' | tail -n +2 | grep -q '^carsh>'; }
has_child() { [ -n "$(pgrep -P "$1")" ]; }

ctrlc_try() { # I FLAG: one try; 0 when the run said it was interrupted
	local i=$1 flag=$2 pid
	rm -rf "$work/cache"
	tm new-session -d -x 200 -y 50 env XDG_CACHE_HOME="$work/cache" TERM=xterm \
		sh -c 'trap : INT QUIT; "$0" '"$flag"' -i' "$carsh"
	poll 500 shows '^carsh>$' || return 1
	pid=$(pgrep -P "$(tm display -p '#{pane_pid}')" | head -1)
	tm send-keys -l "partition --no-progress --gpu none --threads 1 --sched cpu --steps 1000000000 $top/tests/data/errors/partrows.xml y=discard"
	tm send-keys Enter
	poll 2000 has_child "$pid"
	sleep "$(awk -v i="$i" 'BEGIN { print (i % 20) * 0.06 }')"
	tm send-keys C-c
	poll 6000 prompt_back
	shows '^carsh: partition: .*interrupted'
	local st=$?
	[ $st = 0 ] || tm capture-pane -p | grep -i 'final linking\|unable to rename\|carsh:' | head -3
	tm kill-server
	return $st
}

builders_try() { # I: one try; 0 when all four computed vadd
	local i=$1 p pids="" st=0
	{
		echo "#define TRY_$i $i"
		cat "$top/kernels/vadd.cl"
	} >"$work/kernels/v$i.cl"
	sed "s|../kernels/vadd.cl|../kernels/v$i.cl|" "$top/flowmodels/vadd.xml" >"$work/fm/v$i.xml"
	for p in 1 2 3 4; do
		if [ $p -le 2 ]; then t=; else t=-T; fi
		"$carsh" $t run "$work/fm/v$i.xml" a="$work/a.csv" b="$work/b.csv" c="$work/c$p.csv" \
			N=1000 2>"$work/err.$p" >/dev/null &
		pids="$pids $!"
	done
	p=0
	for pid in $pids; do
		p=$((p + 1))
		if ! wait "$pid" || ! "$top/tests/tools/ref" cmp "$work/c$p.csv" "$work/c.want" 0 >/dev/null; then
			head -3 "$work/err.$p"
			st=1
		fi
	done
	return $st
}

case $mode in
ctrlc)
	for flag in "" -T; do
		bad=0
		for ((i = 1; i <= tries; i++)); do
			ctrlc_try "$i" "$flag" || bad=$((bad + 1))
		done
		echo "failed: $bad of $tries (Ctrl-C during a fresh partition, carsh $flag)"
	done
	;;
builders)
	export XDG_CACHE_HOME="$work/cache" CARSH_SERVER=on
	mkdir -p "$work/kernels" "$work/fm"
	"$top/tests/tools/ref" gen 1000 1 >"$work/a.csv"
	"$top/tests/tools/ref" gen 1000 2 >"$work/b.csv"
	"$top/tests/tools/ref" vadd "$work/a.csv" "$work/b.csv" >"$work/c.want"
	bad=0
	for ((i = 1; i <= tries; i++)); do
		builders_try "$i" || bad=$((bad + 1))
	done
	echo "failed: $bad of $tries (4 carsh at once on a fresh program, one cache)"
	;;
*)
	echo "usage: $0 ctrlc|builders [TRIES]" >&2
	exit 2
	;;
esac
