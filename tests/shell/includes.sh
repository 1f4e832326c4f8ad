#!/bin/sh
# Kernels that include headers (docs/formats.md, "Includes"): `#include "x.h"` and a relative
# -I in <BuildOptions> are found from the kernel's folder wherever carsh runs, and no cache
# (the binary cache on disk, a session's built programs, the parsed-file cache) ever serves
# a program built from an older header, in one session or in two.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
export XDG_CACHE_HOME="$T/cache"
mkdir -p k/sub elsewhere
cat >k/inc.cl <<'CL'
#include "v.h"
#include <w.h>
__kernel void k(__global const float *x, __global float *y)
{
	size_t i = get_global_id(0);
	y[i] = x[i] * W + V;
}
CL
cat >k/inc.xml <<'XML'
<FlowModel name="inc">
  <Param name="N" value="4"/>
  <RuntimeType>OpenCL</RuntimeType>
  <Program>
    <Source file="inc.cl"/>
    <Kernel name="k"/>
    <BuildOptions>-cl-fast-relaxed-math -I sub</BuildOptions>
  </Program>
  <WorkSize global="N"/>
  <Arguments>
    <Input  name="x" type="float" count="N"/>
    <Output name="y" type="float" count="N"/>
  </Arguments>
</FlowModel>
XML
echo '#define V 5.0f' >k/v.h
echo '#define W 2.0f' >k/sub/w.h
printf '1\n2\n3\n4\n' >x.csv
want() { awk -v w="$1" -v v="$2" '{ print $1 * w + v }' x.csv >want; } # W V

# Found from the kernel's folder, not the working directory.
cd elsewhere || exit 1
expect 0 "" "$CARSH" run ../k/inc.xml x=../x.csv y=got.csv
cd "$T" || exit 1
want 2 5
same_file elsewhere/got.csv want "#include \"v.h\" and -I sub are found from the kernel's folder"

# Two sessions: each carsh starts cold and reads the disk cache (the server's warm workers
# keep programs in memory: checked below).
two_sessions() { # W V LABEL CACHE-WORD
	expect 0 "($4)" env CARSH_SERVER=off "$CARSH" -c "time run k/inc.xml x=x.csv y=got.csv"
	want "$1" "$2"
	same_file got.csv want "$3"
}
two_sessions 2 5 "first build" compiled
two_sessions 2 5 "the same headers: the stored binary" "binary cache"
echo '#define V 6.0f' >k/v.h # the same size: only the contents tell
two_sessions 2 6 "an edited header is compiled again" compiled
echo '#define W 3.0f' >k/sub/w.h
two_sessions 3 6 "an edited header of an -I folder is compiled again" compiled
echo '#define V 5.0f' >k/v.h && echo '#define W 2.0f' >k/sub/w.h
two_sessions 2 5 "the first headers again: their binary" "binary cache"
# A header that includes another: the inner one counts too.
echo '#include "inner.h"' >k/v.h && echo '#define V 7.0f' >k/inner.h
two_sessions 2 7 "a header's own include is followed" compiled
echo '#define V 8.0f' >k/inner.h
two_sessions 2 8 "an edited nested header is compiled again" compiled

# One session, with and without the server: the parsed-file cache and the programs a session
# (or a warm worker) keeps see the edit too. Three runs per header, the third through the
# watches the parsed-file cache sets on a file seen unchanged before (util/filewatch.h).
round=0
one_session() { # W V: three runs, each checked
	round=$((round + 1))
	for i in 1 2 3; do send "run k/inc.xml x=x.csv y=got-$round-$i.csv"; done
	send "echo round $round"
	wait_until "round $round" grep -q "^round $round\$" "$T/carsh.out"
	want "$1" "$2"
	for i in 1 2 3; do same_file got-$round-$i.csv want "session, round $round, run $i"; done
}
for server in off on; do
	echo '#define V 1.0f' >k/inner.h
	CARSH_SERVER=$server start_carsh -i
	one_session 2 1
	echo '#define V 2.0f' >k/inner.h
	one_session 2 2
	echo '#define W 4.0f' >k/sub/w.h
	one_session 4 2
	echo '#define W 2.0f' >k/sub/w.h
	one_session 2 2
	stop_carsh
	[ "$CSTATUS" = 0 ] && pass "session with CARSH_SERVER=$server ended well" ||
		fail "session: $CSTATUS $(cat "$T/carsh.err")"
done

# Separate calls through the server's warm workers, which keep their built programs from one
# client's session to the next (docs/server.md): a header edited between two calls is built
# anew (the default executor and -T), and the earlier header's program is right again after.
echo '#define W 2.0f' >k/sub/w.h
for v in 1.0f 3.0f 1.0f 3.0f; do
	echo "#define V $v" >k/inner.h
	"$CARSH" run k/inc.xml x=x.csv y=got.csv >/dev/null 2>&1 || fail "a call of run: status $?"
	want 2 "${v%f}"
	same_file got.csv want "a warm worker across calls, V=$v (default executor)"
	"$CARSH" -T run k/inc.xml x=x.csv y=got.csv >/dev/null 2>&1 || fail "a call of -T run: status $?"
	same_file got.csv want "a warm worker across calls, V=$v (-T)"
done

# An include through a macro cannot be followed: never stored, built every time.
printf '#define HDR "v.h"\n#include HDR\n#define W 2.0f\n' >k/macro.cl
sed -n '3,$p' k/inc.cl >>k/macro.cl
sed 's|inc.cl|macro.cl|' k/inc.xml >k/macro.xml
echo '#define V 5.0f' >k/v.h
expect 0 "(compiled)" env CARSH_SERVER=off "$CARSH" -c "time run k/macro.xml x=x.csv y=got.csv"
expect 0 "(compiled)" env CARSH_SERVER=off "$CARSH" -c "time run k/macro.xml x=x.csv y=got.csv"
want 2 5
same_file got.csv want "#include MACRO is built from source each time, and right"

# A folder the compiler must be told of cannot hold white space.
mkdir "s p" && cp k/inc.cl k/inc.xml k/v.h "s p"/
expect 1 "s p/inc.xml:4: <Program>: #include \"...\": the folder '$T/s p' holds white space, which OpenCL build options cannot carry; move the kernel's files to a folder without it" \
	"$CARSH" run "$T/s p/inc.xml" x=x.csv y=got.csv
finish
