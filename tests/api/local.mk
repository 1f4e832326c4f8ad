# The embedding API (carsh.h's second half; docs/api.md): unit tests of every call, the
# examples built against an installed tree with pkg-config, a C++ compile of carsh.h.
check_PROGRAMS += tests/api/check_api
tests_api_check_api_SOURCES = tests/api/check_api.c tests/api/check_api_pipeline.c \
	tests/api/check_api_images.c tests/api/check_api_structs.c \
	tests/api/apitest.c tests/api/apitest.h
tests_api_check_api_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_api_check_api_LDADD = $(LIBCARSH) $(CHECK_LIBS)
# Machines on the user's server (carsh_machine_open_at("server")): the suite's server.
check_PROGRAMS += tests/api/check_api_server
tests_api_check_api_server_SOURCES = tests/api/check_api_server.c tests/api/apitest.c \
	tests/api/apitest.h
tests_api_check_api_server_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_api_check_api_server_LDADD = $(LIBCARSH) $(CHECK_LIBS)
AREA_TESTS += tests/api/check_api tests/api/check_api_server tests/api/install.sh tests/api/cxx.sh tests/api/docs.sh \
	tests/api/serverbuild.sh

dist_man_MANS += docs/carsh.3

# CaravelaMPI (004 §4.1): examples/c-api/pingpong.c on two ranks (tests/api/mpi.sh).
check_PROGRAMS += tests/api/pingpong
tests_api_pingpong_SOURCES = examples/c-api/pingpong.c
tests_api_pingpong_LDADD = $(LIBCARSH)
AREA_TESTS += tests/api/mpi.sh
check_PROGRAMS += tests/api/check_mpi
tests_api_check_mpi_SOURCES = tests/api/check_mpi.c
tests_api_check_mpi_LDADD = $(LIBCARSH)
