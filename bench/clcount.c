/*
 * An LD_PRELOAD counter of OpenCL calls, for bench/jobcalls.sh: each process that calls one
 * counts it in a file of its own, CLCOUNT_DIR/cl.PID, a shared mapping (a worker ends with
 * _exit, which runs no destructor that could write the counts out).
 *
 * Each wrapper forwards twelve integer-register-or-stack words to the real function: on
 * x86-64 (System V) that passes every OpenCL entry point counted here unchanged, since none
 * takes more than nine arguments or a floating-point one. It is a measuring tool for that
 * ABI only, not part of carsh.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define CALLS(X)                           \
	X(0, clCreateKernel)               \
	X(1, clSetKernelArg)               \
	X(2, clCreateBuffer)               \
	X(3, clFlush)                      \
	X(4, clFinish)                     \
	X(5, clGetEventInfo)               \
	X(6, clWaitForEvents)              \
	X(7, clRetainMemObject)            \
	X(8, clReleaseMemObject)           \
	X(9, clRetainEvent)                \
	X(10, clReleaseEvent)              \
	X(11, clRetainKernel)              \
	X(12, clReleaseKernel)             \
	X(13, clEnqueueNDRangeKernel)      \
	X(14, clEnqueueWriteBuffer)        \
	X(15, clEnqueueReadBuffer)         \
	X(16, clEnqueueCopyBuffer)         \
	X(17, clEnqueueFillBuffer)         \
	X(18, clGetEventProfilingInfo)     \
	X(19, clEnqueueMarkerWithWaitList) \
	X(20, clGetKernelWorkGroupInfo)    \
	X(21, clEnqueueMapBuffer)          \
	X(22, clEnqueueUnmapMemObject)

typedef long (*fn12)(long, long, long, long, long, long, long, long, long, long, long, long);

static volatile long *counts;
static pid_t counts_pid;

static void counts_open(void)
{
	const char *dir = getenv("CLCOUNT_DIR");
	char path[4096];
	void *m;
	int fd;

	if ((counts && counts_pid == getpid()) || !dir)
		return;
	snprintf(path, sizeof(path), "%s/cl.%d", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (ftruncate(fd, 4096) != 0) {
		close(fd);
		return;
	}
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m != MAP_FAILED) {
		counts = m;
		counts_pid = getpid();
	}
}

#define WRAP(I, NAME)                                                                             \
	long NAME(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j, \
	          long k, long l)                                                                 \
	{                                                                                         \
		static fn12 real;                                                                 \
		if (!real)                                                                        \
			real = (fn12)dlsym(RTLD_NEXT, #NAME);                                     \
		counts_open();                                                                    \
		if (counts)                                                                       \
			__atomic_add_fetch(&counts[I], 1, __ATOMIC_RELAXED);                      \
		return real(a, b, c, d, e, f, g, h, i, j, k, l);                                  \
	}
CALLS(WRAP)
