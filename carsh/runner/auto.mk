# The tests of the per-job device choice `auto` (002 DynPerf/DynEn; docs/auto.md; its
# sources, runner/devplace.c and the profile history data/profstore.c, are listed in
# Makefile.am with their folders'). `+=` only.

# The forecast and the history's arithmetic, hand-computed (no OpenCL).
check_PROGRAMS += tests/unit/check_auto
tests_unit_check_auto_SOURCES = tests/unit/test_auto.c
tests_unit_check_auto_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_auto_LDADD = $(LIBCARSH) $(CHECK_LIBS)
AREA_TESTS += tests/unit/check_auto

# The choice on two PoCL devices, exploration, a busy device avoided, auto:energy refused
# without a counter, devices --profiles, time and jobs; again with carsh -T.
AREA_TESTS += tests/shell/auto.sh tests/thread/auto.tsh

# With the user's server on, the device list from a worker it lends (counted in `server
# status`), and the same placement as with CARSH_SERVER=off (process executor only).
AREA_TESTS += tests/shell/auto-served.sh
