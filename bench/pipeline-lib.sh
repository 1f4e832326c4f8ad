# Shared by bench/pipeline.sh, pipeline-spread.sh and pipeline-paths.sh (sourced, bash): the
# example instances, their work directory, and the machine's nC and N_s, so that the scripts
# size and train alike.

# The instances. On the H100 machine a GPU stage costs mostly its launch (tens of µs) and a
# core of the 16-core PoCL CPU takes about 0.5 µs per pixel for ViVid's filter with F=16
# (2 ns per multiply-add) and 30 ns per pixel for an SRAD iteration: a small frame gives the
# CPU cores a share of the throughput next to the GPU's (000's low definition; at 128x96 the
# 16 cores gave 8 % of it), a large one leaves it to the GPU (high definition). SRAD's
# serial stage (q0², one work-item) is slow on a GPU and fast on a core, as in 000; its
# output is made small (64 x 64 blocks) so that the serial Output stage (a CSV file per item)
# does not bound every configuration. SIZE_<instance> overrides an instance's parameters.
: "${SIZE_vivid_ld:=W=64 H=48 F=16}"
: "${SIZE_vivid_hd:=W=320 H=240 F=16}"
: "${SIZE_srad:=W=512 H=512 B=64}"
declare -A file=([vivid-ld]=vivid [vivid-hd]=vivid [srad]=srad [srad2]=srad2)
declare -A stages=([vivid-ld]=3 [vivid-hd]=3 [srad]=5 [srad2]=8)

params() { # params INSTANCE: its NAME=VALUE words
	local v="SIZE_${1//-/_}"
	echo "${!v:-}"
}

# pipe_machine CARSH GPU: sets devs (`carsh devices`), cores (nC), has_gpu, maxt (most
# threads) and ns (N_s, as engines/pipeline/pipetrain.c's ptrain_items counts it: 000's, plus 2 for
# each one-item experiment, run 3 times for the median, plus nC - 1 for the CG experiment beside
# the GPU). GPU as `pipeline --gpu` takes it.
pipe_machine() {
	devs=$("$1" devices)
	cores=$(awk '$2 == "cpu" { print $(NF-4); exit }' <<<"$devs")
	[ -n "$cores" ] || { echo "${0##*/}: no OpenCL CPU device:"; echo "$devs"; return 1; } >&2
	case $2 in
	none) has_gpu=0 ;;
	cpu) has_gpu=1 cores=$((cores - 1)) ;;
	auto) has_gpu=$(awk '$2 == "gpu" || $2 == "accelerator" { n++ } END { print n ? 1 : 0 }' <<<"$devs") ;;
	*) has_gpu=1 ;;
	esac
	if [ "$has_gpu" = 1 ]; then
		maxt=$((cores + 1)) ns=$(((cores + 2) * (cores + 1) / 2 + 2 + 6 + (cores >= 2 ? cores - 1 : 0)))
	else
		maxt=$cores ns=$((cores * (cores + 1) / 2 + 1 + 4))
	fi
}

# pipe_instance NAME SCRIPT: sets f (its pipeline's file name), size (SIZE, else its
# parameters) and nst (its stages); an unknown NAME is SCRIPT's error.
pipe_instance() {
	f=${file[$1]:-}
	[ -n "$f" ] || { echo "$2: unknown instance '$1'" >&2; return 2; }
	size=${SIZE:-$(params "$1")}
	nst=${stages[$1]}
}

# pipe_workdir F: sets work, a directory in memory where there is /dev/shm (removed on exit),
# with the pipeline F.xml (its flow-models found in the source tree $top) and out/ in it.
pipe_workdir() {
	work=$(mktemp -d -p "$([ -w /dev/shm ] && echo /dev/shm || echo /tmp)")
	trap 'rm -rf "$work"' EXIT
	export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$work/cache}
	sed "s|../../flowmodels|$top/flowmodels|" "$top/examples/pipeline/$1.xml" >"$work/$1.xml"
	mkdir -p "$work/out"
}
