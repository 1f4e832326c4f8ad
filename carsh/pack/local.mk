# pack: scenario-based single-kernel packing (004 §5.3). `+=` only.
carsh_libcarsh_la_SOURCES += \
	carsh/pack/pack.h carsh/pack/pack.c \
	carsh/pack/clsrc.c carsh/pack/clsrc.h \
	carsh/pack/flow.c carsh/pack/scenario.c carsh/pack/emit.c

check_PROGRAMS += tests/unit/check_pack
tests_unit_check_pack_SOURCES = tests/unit/test_pack.c
tests_unit_check_pack_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_pack_LDADD = $(LIBCARSH) $(CHECK_LIBS)

AREA_TESTS += tests/unit/check_pack tests/shell/pack.sh
