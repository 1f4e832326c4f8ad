# Swap pairs (IIR, Jacobi, LU, scenario index): flow-models, references, tests. `+=` only.
# 004 §5.2 (copy host, copy device, swap) and §5.3 (scenario-based execution); docs/swap.md.

dist_flowmodels_DATA += flowmodels/iir_float.xml flowmodels/iir_double.xml \
	flowmodels/jacobi_float.xml flowmodels/jacobi_double.xml \
	flowmodels/lu_float.xml flowmodels/lu_double.xml flowmodels/scenario_abc.xml
dist_kernels_DATA += kernels/iir.cl kernels/jacobi.cl kernels/lu.cl kernels/scenario_abc.cl

check_PROGRAMS += tests/tools/swapref
tests_tools_swapref_SOURCES = tests/tools/swapref.c tests/tools/csvread.c tests/tools/csvread.h
# The reference's float arithmetic is plain float operations, no fused multiply-adds.
tests_tools_swapref_CFLAGS = $(AM_CFLAGS) -ffp-contract=off
tests_tools_swapref_LDADD = -lm

AREA_TESTS += tests/shell/swap.sh
