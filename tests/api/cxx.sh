#!/bin/sh
# carsh.h compiles as C++ (extern "C", no C-only syntax), warning-free; skipped, visibly,
# where the build found no C++ compiler.
. "$TOP_SRCDIR/tests/shell/lib.sh"

cxx=$(sed -n 's/^CXX = //p' "$TOP_BUILDDIR/Makefile")
have=$(sed -n 's/^HAVE_CXX = //p' "$TOP_BUILDDIR/Makefile")
if [ "$have" != yes ]; then
	echo "SKIP: no C++ compiler (configure found none; install g++): carsh.h not compiled as C++"
	exit 77
fi
cat >"$T/use.cpp" <<'CPP'
#include <carsh.h>
#include <cstdio>

int main()
{
	carsh_machine *m = nullptr;
	struct carsh_stats st = {};
	int rc = carsh_machine_open("no-such-device", &m);

	std::printf("%d %s %llu\n", rc, carsh_machine_last_error(m), st.fires);
	carsh_machine_free(m);
	return rc == CARSH_E_DEVICE ? 0 : 1;
}
CPP
# shellcheck disable=SC2086
if $cxx -std=c++11 -Wall -Wextra -pedantic -Werror -I"$TOP_SRCDIR/carsh" -c "$T/use.cpp" \
	-o "$T/use.o" >"$T/cxx.log" 2>&1; then
	pass "carsh.h compiles as C++11 with -Wall -Wextra -pedantic -Werror ($cxx)"
else
	fail "carsh.h as C++: $(cat "$T/cxx.log")"
fi
exit $((FAILS > 0))
