#!/usr/bin/env bash
# Where an item's time goes, per path (issue "Adaptive pipeline engine"): for one instance,
# each configuration in CONFIGS runs once (`--config`, COUNT items, `--json`) and prints its
# throughput, the items that took the GPU (or GPU-CPU) path and the CPU path, and each path's
# mean time per item and per stage (the JSON's gpu_* and cpu_* fields: a stage's time counts
# its inputs' moves, the item's the waits for the GPU and the read-back besides). With
# CARSH_B, a second build runs each configuration right after the first, and the line ends
# with B's throughput over A's and B's GPU-path item time over A's: a change measured against
# the build before it, in the same minutes.
#
#   bench/pipeline-paths.sh
#
# Environment: CARSH (build A), CARSH_B (optional build B), GPU (as bench/pipeline.sh),
# INSTANCE (vivid-ld, vivid-hd, srad or srad2; default vivid-ld), SIZE (its parameters;
# default bench/pipeline-lib.sh's), COUNT (items per run; default 3000), CONFIGS (default:
# CP-CG:n:<first two stages on the GPU> for n = 1 2 4 8, CP-CG:4:<first stage>, DP-CG:1,
# DP-CG:4, DP-MG), OUT (the JSON files; default $BUILDDIR/bench-pipeline-paths).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top}
carsh=${CARSH:-$build/carsh/carsh}
carsh_b=${CARSH_B:-}
out=${OUT:-$build/bench-pipeline-paths}
gpu=${GPU:-auto}
inst=${INSTANCE:-vivid-ld}
count=${COUNT:-3000}
case ${1:-} in -h | --help) sed -n '2,17p' "$0"; exit 0 ;; esac
. "$top/bench/pipeline-lib.sh"
pipe_instance "$inst" pipeline-paths.sh || exit 2
two=11$(printf '%0*d' $((nst - 2)) 0)
one=1$(printf '%0*d' $((nst - 1)) 0)
configs=${CONFIGS:-CP-CG:1:$two CP-CG:2:$two CP-CG:4:$two CP-CG:8:$two CP-CG:4:$one DP-CG:1 DP-CG:4 DP-MG}
mkdir -p "$out"
pipe_workdir "$f"

# one BIN CONFIG JSON: run it; prints "throughput|gpu_items|item_ms|stages|cpu_items|item_ms|stages"
# (stages: comma-separated ms) from the JSON, read as tests/shell/pipeline.sh reads it.
one() {
	(cd "$work" && timeout 120 "$1" pipeline --no-progress --gpu "$gpu" --json --config "$2" \
		"$f.xml" $size COUNT="$count") >"$3" 2>"$3.err" ||
		{ echo "failed: $(tail -c 300 "$3.err")" >&2; return; }
	sed -nE 's/.*"first":0,"items":[0-9]*,"ms":[^,]*,"throughput":([^,]*),.*"gpu_items":([0-9]*),"gpu_item_ms":([^,]*),"gpu_stage_ms":\[([^]]*)\],"cpu_items":([0-9]*),"cpu_item_ms":([^,]*),"cpu_stage_ms":\[([^]]*)\].*/\1|\2|\3|\4|\5|\6|\7/p' "$3" | head -1
}

# show LABEL LINE: one's line, readable.
show() {
	awk -F'|' -v l="$1" 'function ms(v) { return v == "null" ? "-" : sprintf("%.3f", v) }
	function list(s, n, a, i, r) { n = split(s, a, ","); for (i = 1; i <= n; i++) r = r (i > 1 ? " " : "") ms(a[i]); return r }
	NF == 7 { printf "  %s %8.0f items/s; GPU path %5d items %s ms [%s]; CPU path %5d items %s ms [%s]\n",
		l, $1, $2, ms($3), list($4), $5, ms($6), list($7) }
	NF != 7 { printf "  %s failed (standard error above)\n", l }' <<<"$2"
}

echo "# bench/pipeline-paths.sh on $(uname -n), $(date -u +%Y-%m-%dT%H:%MZ): $inst ($size), --gpu $gpu, $count items per run"
echo "# A = $carsh${carsh_b:+, B = $carsh_b}"
n=0
for c in $configs; do
	n=$((n + 1))
	a=$(one "$carsh" "$c" "$out/$n-A.json")
	echo "$c"
	show A "$a"
	[ -n "$carsh_b" ] || continue
	b=$(one "$carsh_b" "$c" "$out/$n-B.json")
	show B "$b"
	awk -F'|' 'NR == 1 { ta = $1; ga = $3 } NR == 2 && NF == 7 && ta > 0 {
		printf "  B/A throughput %.3f, GPU-path item time %s\n", $1 / ta,
			$3 != "null" && ga != "null" && ga > 0 ? sprintf("%.3f", $3 / ga) : "-" }' <<<"$a
$b"
done
