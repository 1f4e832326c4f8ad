# The real-world suite (tests/realworld/README.md): public kernels as their suites ship them,
# checked against rwref, written from the suites' own CPU code.
check_PROGRAMS += tests/realworld/rwref
tests_realworld_rwref_SOURCES = tests/realworld/rwref.c tests/tools/csvread.c tests/tools/csvread.h
tests_realworld_rwref_LDADD = -lm
AREA_TESTS += tests/realworld/run.sh tests/realworld/run-thread.tsh
