# Fuzz targets and hardening tests. `+=` only.
#
# make fuzz [FUZZ_SECONDS=N] [FUZZ_TARGETS='csv expr'] [FUZZ_JOBS=2]
#   builds the libFuzzer targets with clang (ASan + UBSan) from the library's sources and
#   runs each for N seconds (tests/fuzz/fuzz.sh; docs/hardening.md). Not part of make check.
# make fuzz-build, make fuzz-regress: build only; run the targets over the crashes fixed.
FUZZ_CC = clang
FUZZ_SECONDS = 60
FUZZ_JOBS = 1
FUZZ_TARGETS = flowmodel exe batch graph pipeline csv shell expr pgm csvfast npy record
FUZZ_ENV = srcdir='$(abs_top_srcdir)' FUZZ_CC='$(FUZZ_CC)' \
	FUZZ_CPPFLAGS='$(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) $(XML_CFLAGS) $(OPENCL_CFLAGS) $(MPI_CFLAGS)' \
	FUZZ_LIBS='$(XML_LIBS) $(CSV_LIBS) $(MPI_LIBS) $(LIBS)' FUZZ_SOURCES='$(carsh_libcarsh_la_SOURCES)' \
	FUZZ_TARGETS='$(FUZZ_TARGETS)' FUZZ_SECONDS='$(FUZZ_SECONDS)' FUZZ_JOBS='$(FUZZ_JOBS)'

fuzz:
	@$(FUZZ_ENV) $(SHELL) $(srcdir)/tests/fuzz/fuzz.sh run
fuzz-build:
	@$(FUZZ_ENV) $(SHELL) $(srcdir)/tests/fuzz/fuzz.sh build
fuzz-regress:
	@$(FUZZ_ENV) $(SHELL) $(srcdir)/tests/fuzz/fuzz.sh regress
fuzz-summary:
	@$(FUZZ_ENV) $(SHELL) $(srcdir)/tests/fuzz/fuzz.sh summary
.PHONY: fuzz fuzz-build fuzz-regress fuzz-summary

# XML safety limits and the fuzzers' findings, as unit tests (part of make check).
check_PROGRAMS += tests/fuzz/check_hardening
tests_fuzz_check_hardening_SOURCES = tests/fuzz/check_hardening.c tests/fuzz/check_regress.c
tests_fuzz_check_hardening_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_fuzz_check_hardening_LDADD = $(LIBCARSH) $(CHECK_LIBS)
AREA_TESTS += tests/fuzz/check_hardening

# The error table: tests/data/errors.tsv is checked row by row and gives docs/errors.md.
AREA_TESTS += tests/shell/errors_table.sh
errors-doc:
	$(SHELL) $(srcdir)/tests/fuzz/errors-doc.sh $(srcdir)/tests/data/errors.tsv >$(srcdir)/docs/errors.md
.PHONY: errors-doc

# Signals, crashes and InOut files (docs/hardening.md).
AREA_TESTS += tests/shell/signals.sh

# make check-valgrind: shell-level tests with every carsh under valgrind's memcheck (see
# tests/fuzz/valgrind-carsh for what is checked and why jobs are slow there), then the unit
# tests in one process each (CK_FORK=no). Not part of make check.
VALGRIND_SHELL_TESTS = tests/shell/errors_table.sh tests/shell/errors.sh tests/shell/grammar.sh \
	tests/shell/cli.sh tests/shell/vbuf.sh tests/shell/signals.sh
VALGRIND_UNIT_TESTS = tests/unit/check_carsh tests/fuzz/check_hardening
VALGRIND_UNIT = CK_FORK=no CK_DEFAULT_TIMEOUT=600 valgrind -q --error-exitcode=1 \
	--leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
	--suppressions=$(abs_top_srcdir)/tests/fuzz/valgrind.supp
check-valgrind: all $(check_PROGRAMS)
	rm -rf tests/tmp/valgrind
	$(MKDIR_P) tests/tmp/valgrind
	st=0; for t in $(VALGRIND_UNIT_TESTS); do \
		echo "valgrind: $$t"; $(VALGRIND_UNIT) ./$$t >tests/tmp/valgrind/$$(basename $$t).out 2>&1 || \
			{ tail -50 tests/tmp/valgrind/$$(basename $$t).out; st=1; }; \
	done; \
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(VALGRIND_SHELL_TESTS)' \
		TESTS_ENVIRONMENT='CARSH_REAL=$(abs_top_builddir)/carsh/carsh; CARSH=$(abs_top_srcdir)/tests/fuzz/valgrind-carsh; CARSH_VG_LOGS=$(abs_top_builddir)/tests/tmp/valgrind; export CARSH CARSH_REAL CARSH_VG_LOGS;' || st=1; \
	$(SHELL) $(srcdir)/tests/fuzz/valgrind-report.sh tests/tmp/valgrind || st=1; \
	exit $$st
.PHONY: check-valgrind
