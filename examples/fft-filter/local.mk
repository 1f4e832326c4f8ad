# The 2D-FFT image filter example (004 §3.6): PGM support, kernels, flow-models, batch,
# the independent reference and the tests. Included by Makefile.am; `+=` only.

dist_flowmodels_DATA += flowmodels/fft_reorder.xml flowmodels/fft_step.xml \
	flowmodels/fft_istep.xml flowmodels/fft_transpose.xml flowmodels/fft_lowpass.xml \
	flowmodels/fft_highpass.xml flowmodels/fft_real.xml
dist_kernels_DATA += kernels/fft.cl

check_PROGRAMS += tests/unit/check_pgm tests/tools/fftref
tests_unit_check_pgm_SOURCES = tests/unit/test_pgm.c tests/unit/scratch.c tests/unit/scratch.h
tests_unit_check_pgm_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_pgm_LDADD = $(LIBCARSH) $(CHECK_LIBS)
tests_tools_fftref_SOURCES = tests/tools/fftref.c tests/tools/csvread.c tests/tools/csvread.h
tests_tools_fftref_LDADD = -lm

AREA_TESTS += tests/unit/check_pgm tests/shell/fft.sh
