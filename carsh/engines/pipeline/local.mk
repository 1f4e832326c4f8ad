# The adaptive pipeline engine (000; docs/pipeline.md). `+=` only.

carsh_libcarsh_la_SOURCES += \
	carsh/engines/pipeline/pipemodel.c carsh/engines/pipeline/pipemodel.h \
	carsh/engines/pipeline/pipechain.c carsh/engines/pipeline/pipechain.h \
	carsh/engines/pipeline/pipefit.c carsh/engines/pipeline/pipefit.h \
	carsh/engines/pipeline/pipemove.c carsh/engines/pipeline/pipemove.h \
	carsh/engines/pipeline/pipeconf.c carsh/engines/pipeline/pipeconf.h \
	carsh/engines/pipeline/pipemon.c carsh/engines/pipeline/pipemon.h \
	carsh/engines/pipeline/pipecheck.c carsh/engines/pipeline/pipecheck.h \
	carsh/engines/pipeline/pipeknow.c carsh/engines/pipeline/pipeknow.h \
	carsh/engines/pipeline/pipedev.c carsh/engines/pipeline/pipedev.h \
	carsh/engines/pipeline/pipeitem.c carsh/engines/pipeline/pipeitem.h \
	carsh/engines/pipeline/pipestage.c carsh/engines/pipeline/pipestage.h \
	carsh/engines/pipeline/piperun.c carsh/engines/pipeline/piperun.h \
	carsh/engines/pipeline/pipetrain.c carsh/engines/pipeline/pipetrain.h \
	carsh/engines/pipeline/pipeline.c carsh/engines/pipeline/pipeline.h \
	carsh/engines/pipeline/pipereport.c

# The model's arithmetic (equations 1-10), the configuration names, the monitor: no OpenCL.
check_PROGRAMS += tests/unit/check_pipeline
tests_unit_check_pipeline_SOURCES = tests/unit/test_pipemodel.c
tests_unit_check_pipeline_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_pipeline_LDADD = $(LIBCARSH) $(CHECK_LIBS)
AREA_TESTS += tests/unit/check_pipeline

# The examples' C reference, built like the kernels' arithmetic: no fused multiply-adds.
check_PROGRAMS += tests/tools/piperef
tests_tools_piperef_SOURCES = tests/tools/piperef.c
tests_tools_piperef_CFLAGS = $(AM_CFLAGS) -ffp-contract=off
tests_tools_piperef_LDADD = -lm

# The model replayed offline on recorded trainings (bench/pipeline-model.py).
check_PROGRAMS += tests/tools/pipereplay
tests_tools_pipereplay_SOURCES = tests/tools/pipereplay.c
tests_tools_pipereplay_LDADD = $(LIBCARSH)

dist_flowmodels_DATA += flowmodels/pipe_vivid_gen.xml flowmodels/pipe_vivid_filter.xml \
	flowmodels/pipe_vivid_hist.xml flowmodels/pipe_vivid_classify.xml \
	flowmodels/pipe_srad_gen.xml flowmodels/pipe_srad_extract.xml \
	flowmodels/pipe_srad_stats.xml flowmodels/pipe_srad_coeff.xml \
	flowmodels/pipe_srad_update.xml flowmodels/pipe_srad_compress.xml
dist_kernels_DATA += kernels/pipe_vivid.cl kernels/pipe_srad.cl

# The examples against the C reference under every form of the command; again with carsh -T.
AREA_TESTS += tests/shell/pipeline.sh tests/thread/pipeline.tsh
# The running phase's check with a deliberately wrong prediction (CARSH_PIPELINE_SKEW).
AREA_TESTS += tests/shell/pipecheck.sh tests/thread/pipecheck.tsh
# The model replayed offline on a training (tests/tools/pipereplay, bench/pipeline-model.py).
AREA_TESTS += tests/shell/pipemodel.sh
dist_flowmodels_DATA += flowmodels/pipe_change_gen.xml flowmodels/pipe_change_work.xml \
	flowmodels/pipe_change_fold.xml
dist_kernels_DATA += kernels/pipe_change.cl
