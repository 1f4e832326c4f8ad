#!/bin/sh
# After make check-valgrind: every memcheck log that is not empty is an error in carsh.
dir="${1:?usage: valgrind-report.sh LOGDIR}"
n=$(find "$dir" -name 'vg.*.log' | wc -l)
bad=$(find "$dir" -name 'vg.*.log' -size +0c | sort)
if [ -n "$bad" ]; then
	for f in $bad; do
		echo "==== $f"
		cat "$f"
	done
	echo "valgrind: $(echo "$bad" | wc -l) of $n carsh processes had memcheck errors"
	exit 1
fi
echo "valgrind: $n carsh processes ran under memcheck, none had an error or a definite leak"
