# The partition engine (003: LogFit, Static, Concord, HDSS; docs/partition.md). `+=` only.
carsh_libcarsh_la_SOURCES += \
	carsh/engines/partition/logfit.c carsh/engines/partition/logfit.h \
	carsh/engines/partition/sched.c carsh/engines/partition/sched.h \
	carsh/engines/partition/sched-int.h carsh/engines/partition/sched-chunk.c \
	carsh/engines/partition/sched-lambda.c carsh/engines/partition/sched-split.c \
	carsh/engines/partition/sched-cost.c carsh/engines/partition/sched-map.c \
	carsh/engines/partition/sched-learn.c carsh/engines/partition/sched-learn.h \
	carsh/engines/partition/sched-logfit-int.h \
	carsh/engines/partition/sched-logfit.c carsh/engines/partition/sched-logfit-cpu.c \
	carsh/engines/partition/sched-static.c carsh/engines/partition/sched-concord.c \
	carsh/engines/partition/sched-hdss.c carsh/engines/partition/sched-marrow.c \
	carsh/engines/partition/gpusplit.c carsh/engines/partition/gpusplit.h \
	carsh/engines/partition/gpus.c carsh/engines/partition/gpus.h \
	carsh/engines/partition/space.c carsh/engines/partition/space.h \
	carsh/engines/partition/kb.c carsh/engines/partition/kb.h \
	carsh/engines/partition/partition.c carsh/engines/partition/partition.h \
	carsh/engines/partition/partition-int.h carsh/engines/partition/part-devices.c \
	carsh/engines/partition/part-buffers.c carsh/engines/partition/part-host.c \
	carsh/engines/partition/part-chunk.c carsh/engines/partition/part-threads.c \
	carsh/engines/partition/part-run.c carsh/engines/partition/part-shares.c \
	carsh/engines/partition/part-sched.c carsh/engines/partition/part-head.c \
	carsh/engines/partition/part-kb.c carsh/engines/partition/part-result.c \
	carsh/engines/partition/report.c

dist_flowmodels_DATA += flowmodels/part_nbody.xml flowmodels/part_spmv.xml \
	flowmodels/part_mandel.xml flowmodels/part_neigh.xml flowmodels/part_jacobi2d.xml
dist_kernels_DATA += kernels/part_nbody.cl kernels/part_spmv.cl kernels/part_mandel.cl \
	kernels/part_neigh.cl kernels/part_jacobi2d.cl

# The benchmarks' C references, generators and the trace checker; the reference's float
# arithmetic is plain float operations, no fused multiply-adds, as the kernels'.
check_PROGRAMS += tests/tools/partref
tests_tools_partref_SOURCES = tests/tools/partref.c
tests_tools_partref_CFLAGS = $(AM_CFLAGS) -ffp-contract=off
tests_tools_partref_LDADD = -lm

# LogFit's arithmetic and the schedulers, with a simulation of the devices (no OpenCL).
check_PROGRAMS += tests/unit/check_partition
tests_unit_check_partition_SOURCES = tests/unit/test_partition.c
tests_unit_check_partition_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_partition_LDADD = $(LIBCARSH) $(CHECK_LIBS)
AREA_TESTS += tests/unit/check_partition

# Every scheduler against the C references on the four benchmarks, traces, errors; again
# with carsh -T.
AREA_TESTS += tests/shell/partition.sh tests/thread/partition.tsh
# Several GPUs: PoCL devices standing in for two GPUs.
AREA_TESTS += tests/shell/partition-mgpu.sh tests/thread/partition-mgpu.tsh

# The schedulers with several GPUs: the split among them, and two GPUs against the oracle.
check_PROGRAMS += tests/unit/check_partition_mgpu
tests_unit_check_partition_mgpu_SOURCES = tests/unit/test_partition_mgpu.c
tests_unit_check_partition_mgpu_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_partition_mgpu_LDADD = $(LIBCARSH) $(CHECK_LIBS)
AREA_TESTS += tests/unit/check_partition_mgpu

# The hand-written two-device N-body (bench/twogpu.sh's reference), and its check on two
# PoCL devices against the C reference.
check_PROGRAMS += bench/host_nbody2
bench_host_nbody2_SOURCES = bench/host_nbody2.c
bench_host_nbody2_CFLAGS = $(AM_CFLAGS) $(OPENCL_CFLAGS) -pthread
bench_host_nbody2_LDADD = $(OPENCL_LIBS) -lpthread
AREA_TESTS += tests/shell/host-nbody2.sh
