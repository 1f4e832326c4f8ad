# Pipeline graphs (Algorithm 1, PEA-ST, DOT; their reader is model/graph.c): sources and tests.
# Add sources with carsh_libcarsh_la_SOURCES +=, check programs with check_PROGRAMS +=,
# shell tests with AREA_TESTS +=.
AREA_TESTS =

carsh_libcarsh_la_SOURCES += \
	carsh/graph/adj.c carsh/graph/adj.h \
	carsh/graph/validate.c carsh/graph/validate.h \
	carsh/graph/cycles.c carsh/graph/cycles.h \
	carsh/graph/cyclesort.c carsh/graph/reduce.c \
	carsh/graph/deadlock.c carsh/graph/deadlock.h \
	carsh/graph/spantree.c carsh/graph/spantree.h \
	carsh/graph/peast.c carsh/graph/rootsel.c carsh/graph/peast.h \
	carsh/graph/batchgen.c carsh/graph/batchgen.h \
	carsh/graph/dot.c carsh/graph/dotbatch.c carsh/graph/dot.h

# Buffer rings of a running graph (the runner behind `run GRAPH.xml` is runner/graphrun.c).
carsh_libcarsh_la_SOURCES += carsh/graph/ring.c carsh/graph/ring.h

check_PROGRAMS += tests/unit/check_graph
tests_unit_check_graph_SOURCES = tests/unit/test_graph.c tests/unit/test_graph_cycles.c \
	tests/unit/test_graph_peast.c tests/unit/test_graph_out.c tests/unit/graph_suites.h
tests_unit_check_graph_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_graph_LDADD = $(LIBCARSH) $(CHECK_LIBS)

AREA_TESTS += tests/unit/check_graph tests/shell/graphs.sh

# The shipped graphs' flow-models and kernels, the k-means reference, the runner's tests.
dist_flowmodels_DATA += flowmodels/kmeans_init.xml flowmodels/kmeans_set_group.xml \
	flowmodels/kmeans_set_new_center.xml flowmodels/kmeans_change_color.xml
dist_kernels_DATA += kernels/kmeans.cl
check_PROGRAMS += tests/tools/kmeansref
tests_tools_kmeansref_SOURCES = tests/tools/kmeansref.c
AREA_TESTS += tests/shell/graph-run.sh tests/shell/graph-kmeans.sh tests/shell/graph-fft.sh
