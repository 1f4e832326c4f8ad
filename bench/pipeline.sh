#!/usr/bin/env bash
# Issue "Adaptive pipeline engine" (000): the model's accuracy and its choice, measured. For
# each example instance, `pipeline --validate` trains once (000 §IV-A), predicts every
# configuration (000 §V), then runs every configuration and 000 §VI-B's baseline (stages on
# the device where they trained faster, MG, no fallback) for the same S seconds each (from
# item 0 on), one after the other in one process. The measured throughput is the engine's
# steady-state one (docs/pipeline.md, "Measured throughput"). Printed per instance: every configuration's predicted and
# measured throughput and the error; the chosen configuration against the measured best and
# against the baseline (ratios of throughputs measured in the same run), the noise (the
# chosen configuration measured a second time, last: a configuration within it of the best
# counts as the best), the configurations within 10 % of the model or within that noise of
# it (an error that two runs of one configuration explain is no error of the model), the
# drift (the CPU alone with 1 and nC threads, measured first and again last: how far the
# machine moved while the validation ran), and what the running phase's check would keep from these
# measurements (chosen, the next ones by the model and the baseline; docs/pipeline.md); at
# the end the issue's targets (chosen/baseline >= 1 per instance and 1.15 on average,
# chosen/best >= 0.95). The first items' results are compared with the C reference.
#
# S comes from the budget: a first run per instance trains only (its stream is exactly the
# training's N_s items) and prints its predictions; S is then the time left, less each
# instance's fixed cost (setup and training) and each run's draining (the longest a CPU
# item can take after the last one was taken: one item on one core, or nC items queued for
# the whole CPU), shared equally among the configurations left, between SMIN and SMAX.
# Every command runs under `timeout`: an instance that does not fit is reported as skipped,
# never left half-printed.
#
#   bench/pipeline.sh [--plot DIR]       (--plot: measured against predicted, PNG, gnuplot)
#
# Environment:
#   CARSH      the carsh binary (default $BUILDDIR/carsh/carsh; BUILDDIR defaults to the
#              source tree). A carsh carried to another machine runs with its libcsv.so.3:
#              CARSH=$PWD/.carry/pipe/carsh LD_LIBRARY_PATH=$PWD/.carry/pipe bench/pipeline.sh
#   PIPEREF    tests/tools/piperef, REF tests/tools/ref (default: next to CARSH, then the
#              build tree; else built here with cc from tests/tools/*.c)
#   GPU        what plays 000's GPU, as `pipeline --gpu` takes it: auto (default), none,
#              cpu (a CPU core stands in), or a device selector (NVIDIA)
#   BUDGET_S   seconds for the whole script (default 420)
#   OUT        where the raw results go (default $BUILDDIR/bench-pipeline): per instance the
#              training run's report (plan-NAME.txt), the validation's JSON (NAME.json) and
#              a CSV of it (NAME.csv: config,strict,predicted,measured,error,items,ms,
#              gpu_items,gpu_item_ms,cpu_items,cpu_item_ms: each run's items on the GPU (or
#              GPU-CPU) path and on the CPU path, and their mean time); summary.csv;
#              and all of them again in results.tgz
#   PIPEREPLAY tests/tools/pipereplay (default: next to CARSH, then the build tree): with
#              python3, the report ends with bench/pipeline-model.py over the validations
#              (the model replayed on each one's training; docs/pipeline.md), and each
#              validation's training is printed as "replay:" lines, so that the printed
#              report alone lets a later build's model be replayed on it
#   INSTANCES  which instances, in order (default: srad vivid-ld vivid-hd); SIZE_srad etc.
#              override an instance's parameters (defaults below, with the reasoning)
#   SMIN, SMAX bounds of S in seconds (default 0.05 and 2)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top}
carsh=${CARSH:-$build/carsh/carsh}
out=${OUT:-$build/bench-pipeline}
budget=${BUDGET_S:-420}
gpu=${GPU:-auto}
plot=
case ${1:-} in
--plot) plot=$2 ;;
--plot=*) plot=${1#*=} ;;
-h | --help) sed -n '2,49p' "$0"; exit 0 ;;
"") ;;
*) echo "pipeline.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
esac
t_start=$SECONDS
left() { echo $((budget - (SECONDS - t_start))); }

# The instances and their parameters: bench/pipeline-lib.sh.
. "$top/bench/pipeline-lib.sh"
instances=(${INSTANCES:-srad vivid-ld vivid-hd})

[ -x "$carsh" ] || { echo "pipeline.sh: no carsh at $carsh (set CARSH or BUILDDIR)" >&2; exit 2; }
mkdir -p "$out"
# The results go to memory where there is /dev/shm: the serial Output stage writes a file
# per item, and a disk's latency would be the measurement.
work=$(mktemp -d -p "$([ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")")
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$work/cache}

# The references: carried next to carsh, in the build tree, or built now.
tool() { # tool NAME VAR: the path of tests/tools/NAME
	local name=$1 p=${!2:-}
	for p in "$p" "$(dirname "$carsh")/$name" "$build/tests/tools/$name"; do
		[ -n "$p" ] && [ -x "$p" ] && { echo "$p"; return; }
	done
	cc -O2 -ffp-contract=off -o "$work/$name" "$top/tests/tools/$name.c" -lm 2>/dev/null &&
		echo "$work/$name"
}
piperef=$(tool piperef PIPEREF || true)
ref=$(tool ref REF || true)
# The model replayed offline (links libcarsh: found, never built here).
replay=
for p in "${PIPEREPLAY:-}" "$(dirname "$carsh")/pipereplay" "$build/tests/tools/pipereplay"; do
	[ -n "$p" ] && [ -x "$p" ] && { replay=$p; break; }
done
command -v python3 >/dev/null || replay=

# ---- the machine: nC and N_s ----
pipe_machine "$carsh" "$gpu" || exit 1
smin=${SMIN:-0.05}
smax=${SMAX:-2}

echo "# bench/pipeline.sh on $(uname -n), $(date -u +%Y-%m-%dT%H:%MZ), --gpu $gpu, budget ${budget}s"
sed 's/^/# /' <<<"$devs"
echo "# nC = $cores CPU cores$([ "$has_gpu" = 1 ] && echo " and a GPU"): training N_s = $ns items"

pval() { # pval INSTANCE NAME DEFAULT: one of its parameters
	local w
	for w in $(params "$1"); do
		[ "${w%%=*}" = "$2" ] && { echo "${w#*=}"; return; }
	done
	echo "$3"
}

# run_carsh SECONDS OUTFILE ARGS...: carsh pipeline in the work directory, within SECONDS.
run_carsh() {
	local secs=$1 dest=$2 rc=0
	shift 2
	[ "$secs" -gt 5 ] || { echo "(no time left)" | tee "$dest" >"$dest.err"; return 124; }
	(cd "$work" && timeout "$secs" "$carsh" pipeline --no-progress --gpu "$gpu" "$@") \
		>"$dest" 2>"$dest.err" || rc=$?
	return $rc
}

mkdir -p "$work/out"
for inst in "${instances[@]}"; do
	f=${file[$inst]:-}
	[ -n "$f" ] || { echo "pipeline.sh: unknown instance '$inst'" >&2; exit 2; }
	sed "s|../../flowmodels|$top/flowmodels|" "$top/examples/pipeline/$f.xml" >"$work/$f.xml"
done

# ---- 1. training only: the predictions size N ----
declare -A ncfg top drain fixed
for inst in "${instances[@]}"; do
	plan=$out/plan-$inst.txt
	echo
	echo "== $inst ($(params "$inst")): training, $ns items"
	if ! run_carsh "$(left)" "$plan" --explain "${file[$inst]}.xml" $(params "$inst") COUNT=$ns; then
		echo "skipped: $(tail -c 300 "$plan.err")"
		continue
	fi
	sed -n '/^training/,/^  CG, n/p;/serial stages/p;/^total/p' "$plan"
	# Configurations, the most items/s predicted, a run's draining (one item on one core,
	# or nC items in turn on the whole CPU), and the fixed cost of a run.
	ncfg[$inst]=$(grep -cE '^  (DP|CP)-' "$plan")
	top[$inst]=$(awk '/^  (DP|CP)-/ && $2 > m { m = $2 } END { printf "%.3f", m }' "$plan")
	drain[$inst]=$(awk -v nc="$cores" '/^  CP-CG:1:0*  / && $2 > 0 { cg = 1 / $2 }
	                                  /^  CP-MG::0*  / && $2 > 0 { mg = nc / $2 }
	                                  END { printf "%.4f", (cg > mg ? cg : mg) }' "$plan")
	fixed[$inst]=$(awk '/^total:/ { for (i = 1; i <= NF; i++) if ($i == "setup") s = $(i + 1) }
	                    /^training 1:/ { t = $0; sub(/.*items, /, "", t); sub(/ ms.*/, "", t) }
	                    /^  (DP|CP)-/ { n++ }
	                    END { printf "%d", (s + t) / 1000 + 0.01 * n + 3 }' "$plan")
done

# ---- 2. S: the seconds each configuration runs ----
s_for() { # s_for INSTANCE: S for it and the instances after it
	local inst=$1 k=0 fix=0 dr=0 seen=0 i
	for i in "${instances[@]}"; do
		[ "$i" = "$inst" ] && seen=1
		[ $seen = 1 ] && [ -n "${ncfg[$i]:-}" ] || continue
		# Every configuration, the baseline, the chosen one again, the CPU alone twice again.
		k=$((k + ${ncfg[$i]} + 4))
		fix=$((fix + ${fixed[$i]}))
		dr=$(awk -v a="$dr" -v n="${ncfg[$i]}" -v d="${drain[$i]}" 'BEGIN { print a + (n + 4) * d }')
	done
	awk -v t="$(left)" -v x="$fix" -v d="$dr" -v k="$k" -v lo="$smin" -v hi="$smax" \
		'BEGIN { s = (0.9 * t - x - d) / k; if (s > hi) s = hi; if (s < lo) s = lo; printf "%.3f", s }'
}

# ---- 3. every configuration, measured ----
: >"$out/summary.csv"
echo "instance,items,configurations,max_error,mean_error,within_10,chosen,chosen_items_s,best,best_items_s,baseline,baseline_items_s,chosen_over_best,chosen_over_baseline,reference,noise,chosen_is_best,tolerance,within_tolerance,checked,checked_over_best,checked_over_baseline" \
	>>"$out/summary.csv"
for inst in "${instances[@]}"; do
	[ -n "${ncfg[$inst]:-}" ] || continue
	json=$out/$inst.json
	secs=$(s_for "$inst")
	# Enough items that no run ends before S: three times the most predicted, and N_s.
	count=$(awk -v s="$secs" -v m="${top[$inst]}" -v ns="$ns" 'BEGIN { n = int(3 * s * m) + 100; print (n > ns ? n : ns) }')
	echo
	echo "== $inst ($(params "$inst")): every configuration for $secs s ($(left) s left," \
		"$(awk -v s="$secs" -v k="${ncfg[$inst]}" -v d="${drain[$inst]}" -v x="${fixed[$inst]}" \
			'BEGIN { printf "%.0f", (k + 1) * (s + d) + x }') s predicted)"
	rm -f "$work"/out/*
	rc=0
	run_carsh "$(left)" "$json" --validate --validate-seconds "$secs" --json "${file[$inst]}.xml" \
		$(params "$inst") COUNT=$count || rc=$?
	if [ $rc != 0 ]; then
		echo "skipped (status $rc$([ $rc = 124 ] && echo ": out of time"); $(left) s left): $(tail -c 300 "$json.err")"
		continue
	fi
	# The validation's runs as CSV: config,strict,predicted,measured,error,items,ms, then
	# each path's items and mean time per item (gpu_items,gpu_item_ms,cpu_items,cpu_item_ms).
	grep -o '{"config":"[^"]*","strict":[a-z]*,[^}]*}' "$json" |
		awk 'function v(k) { if (!match($0, "\"" k "\":[^,]*")) return "null"
		                     s = substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
		                     gsub(/"/, "", s); return s }
		     { print v("config") "," v("strict") "," v("predicted") "," v("throughput") "," \
		             v("error") "," v("items") "," v("ms") "," v("gpu_items") "," \
		             v("gpu_item_ms") "," v("cpu_items") "," v("cpu_item_ms") }' >"$out/$inst.csv"
	printf '  %-24s %12s %12s %9s %7s\n' configuration "predicted/s" "measured/s" error items
	awk -F, '{ e = $5 == "null" ? "" : sprintf("%+7.1f %%", 100 * $5)
	           printf "  %-24s %12s %12.1f %9s %7d\n", $2 == "true" ? "baseline " $1 : $1,
	                  $3 == "null" ? "-" : sprintf("%.1f", $3), $4, e, $6 }' "$out/$inst.csv"
	# The validation's own training, in tests/tools/pipereplay's format.
	[ -n "$replay" ] && python3 "$top/bench/pipeline-model.py" --print-training "$json" |
		sed 's/^/  replay: /'
	v=$(grep -o '"chosen":"[^"]*","best":"[^"]*","baseline":"[^"]*","chosen_over_best":[^,]*,"chosen_over_baseline":[^,}]*' "$json" | tail -1)
	chosen=$(sed -E 's/.*"chosen":"([^"]*)".*/\1/' <<<"$v")
	best=$(sed -E 's/.*"best":"([^"]*)".*/\1/' <<<"$v")
	base=$(sed -E 's/.*"baseline":"([^"]*)".*/\1/' <<<"$v")
	r_best=$(sed -E 's/.*"chosen_over_best":([^,]*).*/\1/' <<<"$v")
	r_base=$(sed -E 's/.*"chosen_over_baseline":([^,}]*).*/\1/' <<<"$v")
	# The noise (the chosen configuration measured twice), and what the running phase's
	# check keeps from these measurements.
	w=$(grep -o '"noise":[^,]*,"chosen_is_best":[a-z]*,"checked":"[^"]*","checked_baseline":[a-z]*,"checked_over_best":[^,]*,"checked_over_baseline":[^,}]*' "$json" | tail -1)
	noise=$(sed -E 's/.*"noise":([^,]*).*/\1/' <<<"$w")
	is_best=$(sed -E 's/.*"chosen_is_best":([a-z]*).*/\1/' <<<"$w")
	checked=$(sed -E 's/.*"checked":"([^"]*)","checked_baseline":([a-z]*).*/\1 \2/' <<<"$w")
	c_best=$(sed -E 's/.*"checked_over_best":([^,]*).*/\1/' <<<"$w")
	c_base=$(sed -E 's/.*"checked_over_baseline":([^,}]*).*/\1/' <<<"$w")
	meas() { awk -F, -v c="$1" -v s="$2" '$1 == c && $2 == s { print $4; exit }' "$out/$inst.csv"; }
	# Items 0, 1 and the last one any run wrote against the C reference.
	n=$(ls "$work/out" | sed -nE 's/.*-([0-9]+)\.csv$/\1/p' | sort -n | tail -1)
	n=$((${n:-1} + 1))
	check=skipped
	if [ -n "$piperef" ] && [ -n "$ref" ]; then
		check=equal
		W=$(pval "$inst" W 256) H=$(pval "$inst" H 256)
		for i in 0 1 $((n - 1)); do
			case ${file[$inst]} in
			vivid) "$piperef" vivid "$W" "$H" "$(pval "$inst" F 16)" "$i" "$work/want.csv"; tol=0 ;;
			srad) "$piperef" srad "$W" "$H" 1 0.5 "$i" "$work/want.csv" "$(pval "$inst" B 4)"; tol=1e-4 ;;
			*) check=skipped; break ;;
			esac
			"$ref" cmp "$work/out/${file[$inst]}-$i.csv" "$work/want.csv" $tol >/dev/null 2>&1 ||
				check="DIFFERENT (item $i)"
		done
	fi
	awk -F, -v inst="$inst" -v items="$n" -v chosen="$chosen" -v best="$best" -v base="$base" \
		-v rb="$r_best" -v rl="$r_base" -v ck="$check" -v noise="$noise" -v isb="$is_best" \
		-v checked="${checked% *}$([ "${checked#* }" = true ] && echo ' (the baseline)')" \
		-v cb="$c_best" -v cl="$c_base" \
		-v lc="$(meas "$chosen" false)" -v lb="$(meas "$best" false)" -v ll="$(meas "$base" true)" '
		$5 != "null" { e = 100 * ($5 < 0 ? -$5 : $5); n++; sum += e; if (e > max) max = e
		               if (e <= 10) within++
		               # within 10 % or within the noise: an error that two runs of one
		               # configuration explain is no error of the model
		               if (e <= tol) owithin++ }
		BEGIN { tol = 100 * noise > 10 ? 100 * noise : 10 }
		END {
			printf "error: max %.1f %%, mean %.1f %%, %d of %d configurations within 10 %%\n",
			       max, sum / n, within, n
			printf "noise %.1f %% (the chosen configuration measured twice); within 10 %% or within the noise (%.1f %%): %d of %d configurations\n",
			       100 * noise, tol, owithin, n
			printf "chosen %s: %.1f items/s; measured best %s: %.1f (chosen/best %.3f%s); baseline %s: %.1f (chosen/baseline %.3f)\n",
			       chosen, lc, best, lb, rb, isb == "true" ? ", within the noise: counts as the best" : "", base, ll, rl
			printf "the running phase'"'"'s check keeps %s: checked/best %.3f, checked/baseline %.3f\n",
			       checked, cb, cl
			printf "results of items 0, 1 and %d against the C reference: %s\n", items - 1, ck
			printf "%s,%d,%d,%.2f,%.2f,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.4f,%s,%.1f,%d,%s,%s,%s\n", inst, items, n, max, sum / n,
			       within, chosen, lc, best, lb, base, ll, rb, rl, ck, noise, isb, tol, owithin,
			       checked, cb, cl >> "'"$out/summary.csv"'"
		}' "$out/$inst.csv"
	# The drift: the CPU alone with 1 and nC threads, measured first and again last.
	grep -o '"drift":\[[^]]*\]' "$json" | tail -1 | grep -o '{[^}]*}' |
		sed -E 's/.*"config":"([^"]*)","start":([^,]*),"end":([^}]*).*/\1 \2 \3/' |
		awk '{ printf "%s %s %.1f and %.1f items/s (%+.1f %%)",
		              (NR == 1 ? "drift: the CPU alone first and last in the validation:" : ","),
		              $1, $2, $3, ($2 > 0 ? 100 * ($3 - $2) / $2 : 0) }
		     END { if (NR) print "" }'
done

if [ -n "$plot" ] && command -v gnuplot >/dev/null; then
	mkdir -p "$plot"
	for inst in "${instances[@]}"; do
		[ -s "$out/$inst.csv" ] || continue
		awk -F, '$3 != "null" { print $3, $4 }' "$out/$inst.csv" >"$work/$inst.dat"
		gnuplot <<GP
set terminal pngcairo size 800,700 noenhanced
set output '$plot/pipeline-$inst.png'
set title '$inst ($(params "$inst")), --gpu $gpu, $secs s per configuration, $(uname -n)'
set xlabel 'predicted items/s'
set ylabel 'measured items/s'
set key top left
stats '$work/$inst.dat' using 1:2 nooutput
hi = (STATS_max_x > STATS_max_y ? STATS_max_x : STATS_max_y) * 1.1
set xrange [0:hi]
set yrange [0:hi]
plot x title 'measured = predicted' lw 2, 1.1*x title '+10 %' dt 2 lc rgb 'gray', \\
     0.9*x title '-10 %' dt 2 lc rgb 'gray', '$work/$inst.dat' using 1:2 title 'configurations' pt 7
GP
	done
fi

# The model replayed offline over each validation: within 10 % and errors per configuration
# family and thread band, each path's rate against the model's split, and the model again with
# the CG experiment beside the GPU made up from the validation's own coupled runs (what the
# experiment would give if it measured what they met), and whether the machine moved while
# the validation ran (--drift; bench/pipeline-model.py).
jsons=()
for inst in "${instances[@]}"; do
	[ -s "$out/$inst.csv" ] && jsons+=("$out/$inst.json")
done
if [ -n "$replay" ] && [ ${#jsons[@]} -gt 0 ]; then
	echo
	echo "== the model offline (bench/pipeline-model.py --paths --residuals --beside-from-stream --drift, $replay)"
	python3 "$top/bench/pipeline-model.py" --paths --residuals --beside-from-stream --drift \
		--replay "this build=$replay" "${jsons[@]}" ||
		echo "(bench/pipeline-model.py failed)"
fi

echo
echo "== summary ($((SECONDS - t_start)) s; raw results in $out)"
awk -F, 'NR > 1 { printf "%-9s N %3d: max error %6.1f %%, mean %5.1f %%, %3d/%-3d within 10 %%, noise %.1f %%: %d/%d within 10 %% or the noise; chosen/best %.3f%s, chosen/baseline %.3f; checked %s: /best %.3f, /baseline %.3f; reference %s\n",
                  $1, $2, $4, $5, $6, $3, 100 * $16, $19, $3, $13, $17 == "true" ? " (within the noise)" : "", $14, $20, $21, $22, $15
                  r += $14; c += $22; k++; o += $3; ow += $19 }
         END { if (k) printf "average chosen/baseline: %.3f, checked/baseline: %.3f (000 §VI-B: +20 %% on average; the issue asks >= 1.15); within 10 %% or the noise, %d of %d (%.0f %%; the issue asks >= 80 %%)\n", r / k, c / k, ow, o, o ? 100 * ow / o : 0 }' \
	"$out/summary.csv"

# Every raw result in one file: a machine that hands back only a few files returns them all.
(cd "$out" && tar czf results.tgz --exclude=results.tgz -- *) &&
	echo "raw results packed in $out/results.tgz" ||
	echo "(packing $out/results.tgz failed)"
