#!/bin/sh
# Build and run CarSh's libFuzzer targets (see docs/hardening.md). Called by `make fuzz`,
# `make fuzz-build` and `make fuzz-regress` (tests/fuzz/local.mk), which pass:
#   srcdir        the source tree (absolute)
#   FUZZ_CC       a clang with libFuzzer (Debian: clang and libclang-rt-14-dev)
#   FUZZ_CPPFLAGS the library's preprocessor flags; FUZZ_LIBS the libraries it links
#   FUZZ_SOURCES  the library's sources (carsh_libcarsh_la_SOURCES); the readers' layers are
#                 taken from it (util data model graph, the shell parser), not OpenCL's
#   FUZZ_TARGETS  which targets; FUZZ_SECONDS how long each runs; FUZZ_JOBS how many run
#                 at once (default 1)
# Everything is built and kept under tests/fuzz/ of the current (build) directory: objects
# in obj/, the targets fuzz-NAME, the growing corpora in corpus/NAME/ (seeded from the
# shipped files on every run), crashes in crash/NAME/, and each run's log in log/NAME.log.
#
#   fuzz.sh build      compile the targets
#   fuzz.sh run        build, seed, run each target for FUZZ_SECONDS, print the figures
#   fuzz.sh regress    run each target once over tests/fuzz/regress/NAME/ (fixed crashes)
set -eu
: "${srcdir:?}" "${FUZZ_CC:=clang}" "${FUZZ_CPPFLAGS:=}" "${FUZZ_LIBS:=}" "${FUZZ_SOURCES:?}"
: "${FUZZ_TARGETS:=flowmodel exe batch graph pipeline csv shell expr params pgm csvfast npy record}" "${FUZZ_SECONDS:=60}"
: "${FUZZ_JOBS:=1}"
export srcdir FUZZ_CC FUZZ_CPPFLAGS FUZZ_LIBS FUZZ_SOURCES FUZZ_TARGETS FUZZ_SECONDS FUZZ_JOBS
W=tests/fuzz
FLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
mkdir -p "$W/obj" "$W/log"

# Whether SRC is one of the readers' sources the targets link: the layers that parse input,
# and the few pure-C files of higher layers they call (none of them calls OpenCL).
readers_source() {
	case $1 in
	carsh/util/*.c | carsh/data/*.c | carsh/data/*.cc | carsh/model/*.c | carsh/graph/*.c | \
		carsh/shell/parse.c | carsh/exec/jobplan.c | carsh/runtime/plan.c | carsh/runtime/includes.c | \
		carsh/runtime/imageformat.c) return 0 ;;
	esac
	return 1
}

build() {
	command -v "$FUZZ_CC" >/dev/null || {
		echo "fuzz: '$FUZZ_CC' not found: install the Debian packages clang and libclang-rt-14-dev" >&2
		exit 1
	}
	objs=
	for src in $FUZZ_SOURCES; do
		readers_source "$src" || continue
		obj="$W/obj/$(echo "$src" | tr / _ | sed 's/\.cc*$/.o/')"
		objs="$objs $obj"
		# Rebuilt when the source or any header of the tree is newer.
		if [ -f "$obj" ] && [ -z "$(find "$srcdir/$src" "$srcdir/carsh" -name '*.[ch]*' -newer "$obj" | head -1)" ]; then
			continue
		fi
		echo "$src $obj"
	done | xargs -r -n 2 -P 2 sh -c 'cc="$FUZZ_CC"
		# the one C++ file (carsh/data/numconv.cc) with the C++ driver of the same clang
		case $0 in *.cc) cc="${FUZZ_CC}++ -std=gnu++17 -fno-exceptions -fno-rtti" ;; esac
		echo "  FUZZCC $0"; $cc '"$FLAGS -fsanitize=fuzzer-no-link $FUZZ_CPPFLAGS"' -c "$srcdir/$0" -o "$1"'
	for src in $FUZZ_SOURCES; do
		if readers_source "$src"; then echo "$W/obj/$(echo "$src" | tr / _ | sed 's/\.cc*$/.o/')"; fi
	done >"$W/obj/list"
	rm -f "$W/obj/libfuzzcarsh.a"
	ar cr "$W/obj/libfuzzcarsh.a" $(cat "$W/obj/list")
	for t in $FUZZ_TARGETS; do
		echo "  FUZZLD $W/fuzz-$t"
		$FUZZ_CC $FLAGS -fsanitize=fuzzer $FUZZ_CPPFLAGS -I"$srcdir/tests/fuzz" \
			"$srcdir/tests/fuzz/fuzz_$t.c" "$W/obj/libfuzzcarsh.a" $FUZZ_LIBS -lstdc++ -lm -o "$W/fuzz-$t"
	done
}

# The first element of an XML file ('' when none).
root_of() {
	sed -n 's/^[[:space:]]*<\([A-Za-z][A-Za-z]*\).*/\1/p' "$1" | head -1
}

xml_seeds() { # ROOT DIR
	find "$srcdir/flowmodels" "$srcdir/batches" "$srcdir/examples" "$srcdir/tests/data" \
		-name '*.xml' -type f 2>/dev/null | sort | while read -r f; do
		if [ "$(root_of "$f")" = "$1" ]; then
			cp "$f" "$2/seed-$(echo "$f" | cksum | cut -d' ' -f1).xml"
		fi
	done
	return 0
}

seed() { # TARGET DIR
	case $1 in
	flowmodel) xml_seeds FlowModel "$2" ;;
	exe) xml_seeds CarshExe "$2" ;;
	batch) xml_seeds CarshBat "$2" ;;
	graph) xml_seeds CarshGraph "$2" ;;
	pipeline) xml_seeds CarshPipeline "$2" ;;
	csv)
		# The first byte picks the type: '\0'+k is scalar k (char ... double).
		i=0
		find "$srcdir/tests/data" "$srcdir/examples" -name '*.csv' -size -8k -type f | sort |
			while read -r f; do
				for k in 1 4 8 9; do
					{ printf "\\$(printf %o "$k")"; cat "$f"; } >"$2/seed-$i-$k.csv"
				done
				i=$((i + 1))
			done
		;;
	shell | expr | params) ;;
	esac
	# Hand-written seeds for what the shipped files lack (shell lines, expressions).
	if [ -d "$srcdir/tests/fuzz/seeds/$1" ]; then
		cp "$srcdir/tests/fuzz/seeds/$1"/* "$2/"
	fi
	if [ "$1" = expr ]; then
		# Every expression the shipped XML files hold.
		find "$srcdir/flowmodels" "$srcdir/batches" "$srcdir/tests/data" -name '*.xml' -type f |
			xargs grep -ho '\(count\|global\|local\|value\|columns\)="[^"]*"' |
			sed 's/^[a-z]*="\(.*\)"$/\1/' | sort -u | while read -r ex; do
				printf '%s' "$ex" >"$2/seed-$(echo "$ex" | cksum | cut -d' ' -f1)"
			done
	fi
	return 0
}

dict_of() {
	case $1 in
	flowmodel | exe | batch | graph | pipeline) echo "$srcdir/tests/fuzz/xml.dict" ;;
	*) echo "$srcdir/tests/fuzz/$1.dict" ;;
	esac
}

maxlen_of() {
	case $1 in
	csv | shell | expr | params | pgm | csvfast | npy | record) echo 4096 ;;
	*) echo 16384 ;;
	esac
}

run_one() { # TARGET
	t=$1
	c="$W/corpus/$t"
	mkdir -p "$c" "$W/crash/$t"
	seed "$t" "$c"
	d=$(dict_of "$t")
	[ -f "$d" ] && d="-dict=$d" || d=
	FUZZ_DIR=$(fuzz_dir "$t") "$W/fuzz-$t" $d -max_total_time="$FUZZ_SECONDS" \
		-max_len="$(maxlen_of "$t")" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$W/crash/$t/" "$c" </dev/null >"$W/log/$t.log" 2>&1 || true
	summary "$t"
}

# Relative files that inputs name are looked up next to the shipped files they came from.
fuzz_dir() {
	case $1 in
	flowmodel) echo "$srcdir/flowmodels" ;;
	exe | batch) echo "$srcdir/batches/fft-filter" ;;
	graph) echo "$srcdir/batches/graphs" ;;
	pipeline) echo "$srcdir/examples/pipeline" ;;
	*) echo . ;;
	esac
}

summary() { # TARGET: one line of figures from the log
	l="$W/log/$1.log"
	last=$(grep -E '^#[0-9]+' "$l" | tail -1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$l")
	secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$l")
	cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p')
	crashes=$(find "$W/crash/$1" -type f | wc -l)
	printf '%-10s execs=%s seconds=%s cov=%s ft=%s corpus=%s crash-files=%s\n' \
		"$1" "${execs:-?}" "${secs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$crashes"
	grep -q 'ERROR: libFuzzer\|ERROR: AddressSanitizer\|runtime error' "$l" &&
		echo "  $1: FOUND A CRASH; see $l and $W/crash/$1/" || true
}

regress() {
	st=0
	for t in $FUZZ_TARGETS; do
		r="$srcdir/tests/fuzz/regress/$t"
		[ -d "$r" ] || continue
		if FUZZ_DIR=$(fuzz_dir "$t") "$W/fuzz-$t" -runs=1 "$r"/* >"$W/log/regress-$t.log" 2>&1; then
			echo "ok: $t: $(ls "$r" | wc -l) fixed crash input(s)"
		else
			echo "FAIL: $t: see $W/log/regress-$t.log"
			st=1
		fi
	done
	return $st
}

case ${1:-run} in
build) build ;;
regress) build && regress ;;
run)
	build
	if [ "$FUZZ_JOBS" -gt 1 ]; then
		for t in $FUZZ_TARGETS; do echo "$t"; done |
			xargs -n 1 -P "$FUZZ_JOBS" sh -c '"$0" one "$1"' "$0"
	else
		for t in $FUZZ_TARGETS; do run_one "$t"; done
	fi
	;;
one) run_one "$2" ;;
summary) for t in $FUZZ_TARGETS; do summary "$t"; done ;;
*)
	echo "usage: fuzz.sh build|run|regress|summary" >&2
	exit 2
	;;
esac
