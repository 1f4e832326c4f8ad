#!/usr/bin/env bash
# How far apart repeated measurements of one pipeline land (issue "Adaptive pipeline
# engine"): the model can be no closer to a measurement than two measurements of the same
# thing are to each other. For one instance, REPEAT times each: a training (`--explain`,
# a stream of exactly N_s items) and a run of every configuration in CONFIGS (`--config`,
# steady-state throughput over COUNT_<kind> items). Printed per quantity: the values, and
# max/min - 1, the spread.
#
#   bench/pipeline-spread.sh
#
# Environment: CARSH, GPU (as bench/pipeline.sh), INSTANCE (vivid-ld, vivid-hd, srad or
# srad2; default vivid-ld), SIZE (its parameters; default bench/pipeline-lib.sh's), REPEAT (default 3),
# CONFIGS (default: DP-CG:1 DP-CG:9 DP-CG:17 DP-MG CP-CG:1:000 CP-CG:16:000 CP-MG::000 and
# the two coupled ones CP-CG:9:<first stage on the GPU> and CP-MG::<same>), SECS (about how
# long each run lasts; default 0.5), OUT (default $BUILDDIR/bench-pipeline-spread).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top}
carsh=${CARSH:-$build/carsh/carsh}
out=${OUT:-$build/bench-pipeline-spread}
gpu=${GPU:-auto}
inst=${INSTANCE:-vivid-ld}
repeat=${REPEAT:-3}
secs=${SECS:-0.5}
case ${1:-} in -h | --help) sed -n '2,16p' "$0"; exit 0 ;; esac
. "$top/bench/pipeline-lib.sh"
pipe_instance "$inst" pipeline-spread.sh || exit 2
first=1$(printf '%0*d' $((nst - 1)) 0)
cpu_only=$(printf '%0*d' "$nst" 0)
configs=${CONFIGS:-DP-CG:1 DP-CG:9 DP-CG:17 DP-MG CP-CG:1:$cpu_only CP-CG:16:$cpu_only CP-MG::$cpu_only CP-CG:9:$first CP-MG::$first}
mkdir -p "$out"
pipe_workdir "$f"
pipe_machine "$carsh" "$gpu" || exit 1
echo "# bench/pipeline-spread.sh on $(uname -n), $(date -u +%Y-%m-%dT%H:%MZ): $inst ($size), --gpu $gpu, $repeat times"

spread() { # spread LABEL VALUES...: the values, and max/min - 1
	local label=$1
	shift
	printf '  %-28s' "$label"
	printf ' %10.3f' "$@"
	printf '   spread %s\n' "$(printf '%s\n' "$@" | awk 'NR == 1 || $1 < lo { lo = $1 } $1 > hi { hi = $1 }
		END { printf (lo > 0 ? "%+.1f %%" : "-"), 100 * (hi / lo - 1) }')"
}

# ---- trainings ----
declare -A val
for r in $(seq 1 "$repeat"); do
	(cd "$work" && "$carsh" pipeline --no-progress --gpu "$gpu" --explain "$f.xml" $size COUNT=$ns) \
		>"$out/train-$inst-$r.txt"
	while read -r key v; do val[$key]+="$v "; done < <(awk '
		/^  [a-z]+ +[0-9.]+ +[0-9.]+ +[0-9.-]+/ { print "CG_" $1, $2; print "MG_" $1, $3; if ($4 != "-") print "GPU_" $1, $4 }
		/CG, n threads at once/ { print "T_CG(1)", $10; print "T_CG(nC+1)", $NF }
		/serial stages/ { v = $0; sub(/.*output /, "", v); sub(/;.*/, "", v); print "output", v }
		/<- chosen/ { print "chosen_pred_items_s", $2 }' "$out/train-$inst-$r.txt")
done
echo "training (ms per item, and the chosen configuration's predicted items/s):"
for key in $(printf '%s\n' "${!val[@]}" | sort); do
	# shellcheck disable=SC2086
	spread "$key" ${val[$key]}
done

# ---- runs ----
echo "runs (steady-state items/s):"
for c in $configs; do
	# Items for about SECS seconds, from the last training's prediction.
	pred=$(awk -v c="$c" '$1 == c { print $2; exit }' "$out/train-$inst-$repeat.txt")
	count=$(awk -v p="${pred:-100}" -v s="$secs" 'BEGIN { n = int(p * s); print (n < 40 ? 40 : n) }')
	vals=()
	for r in $(seq 1 "$repeat"); do
		rm -f "$work"/out/*
		if ! (cd "$work" && "$carsh" pipeline --no-progress --gpu "$gpu" --config "$c" "$f.xml" $size \
			COUNT=$count) >"$out/run-$inst-$c-$r.txt" 2>&1; then
			echo "  $c: $(tail -1 "$out/run-$inst-$c-$r.txt")"
			continue 2
		fi
		vals+=("$(sed -nE 's/^running .* ms\): ([0-9.]+) items\/s.*/\1/p' "$out/run-$inst-$c-$r.txt" | head -1)")
	done
	spread "$c ($count items)" "${vals[@]}"
done
