/* bench/api.sh's reference: saxpy fired FIRES times on the program's own arrays by a
 * hand-written OpenCL loop, the zero-copy way (CL_MEM_USE_HOST_PTR buffers, unmapped for
 * each launch and mapped back after it: what libcarsh does for caller memory). The device
 * is the one carsh picks by default: the first GPU, else the first CPU.
 *   api_hand KERNEL.cl N FIRES [MODE]  ->  prints the loop's milliseconds; exit 1 on a wrong y
 * MODE, for bench/api.sh's breakdown of what a fire may cost beyond this loop: "plain" (the
 * reference), "profq" (the queue made with CL_QUEUE_PROFILING_ENABLE, no event taken),
 * "setargs" (the three arguments set again before every launch); and "endsync", the loop
 * an OpenCL program writes when it needs y only at the end (the memory handed over before
 * the first launch and mapped back after the last, one clFinish): what queued fires
 * (carsh_flowmodel_fire_async without a wait between) are measured against. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(x)                                                       \
	do {                                                           \
		cl_int e_ = (x);                                       \
		if (e_ != CL_SUCCESS) {                                \
			fprintf(stderr, "api_hand: %s: %d\n", #x, e_); \
			exit(1);                                       \
		}                                                      \
	} while (0)

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static cl_device_id pick(void)
{
	cl_platform_id ps[16];
	cl_uint np = 0, nd;
	cl_device_id d, cpu = NULL;

	CHECK(clGetPlatformIDs(16, ps, &np));
	for (cl_uint i = 0; i < np; i++) {
		if (clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_GPU, 1, &d, &nd) == CL_SUCCESS && nd)
			return d;
		if (!cpu && clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_CPU, 1, &d, &nd) == CL_SUCCESS &&
		    nd)
			cpu = d;
	}
	if (!cpu) {
		fprintf(stderr, "api_hand: no OpenCL device\n");
		exit(1);
	}
	return cpu;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		exit(1);
	s = calloc((size_t)n + 1, 1);
	if (!s || fread(s, 1, (size_t)n, f) != (size_t)n)
		exit(1);
	fclose(f);
	return s;
}

int main(int argc, char **argv)
{
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 4096, bytes = n * sizeof(float);
	long fires = argc > 3 ? atol(argv[3]) : 10000;
	const char *mode = argc > 4 ? argv[4] : "plain";
	int setargs = strcmp(mode, "setargs") == 0;
	int endsync = strcmp(mode, "endsync") == 0;
	const char *src = slurp(argc > 1 ? argv[1] : "kernels/saxpy.cl");
	cl_device_id dev = pick();
	cl_int err;
	cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	cl_command_queue q = clCreateCommandQueue(
	        ctx, dev, strcmp(mode, "profq") == 0 ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
	cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
	float *x, *y, a = 1.0f;
	cl_mem bx, by;
	cl_kernel k;
	double t0;

	if (posix_memalign((void **)&x, 4096, bytes) || posix_memalign((void **)&y, 4096, bytes))
		return 1;
	for (size_t i = 0; i < n; i++)
		x[i] = (float)(i % 8) * 0.25f, y[i] = 1.0f;
	CHECK(clBuildProgram(prog, 1, &dev, "-cl-mad-enable", NULL, NULL));
	k = clCreateKernel(prog, "saxpy", &err);
	CHECK(err);
	bx = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, x, &err);
	by = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, y, &err);
	CHECK(clSetKernelArg(k, 0, sizeof(a), &a));
	CHECK(clSetKernelArg(k, 1, sizeof(bx), &bx));
	CHECK(clSetKernelArg(k, 2, sizeof(by), &by));
	clEnqueueMapBuffer(q, bx, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL,
	                   &err);
	clEnqueueMapBuffer(q, by, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL,
	                   &err);
	t0 = 0;
	for (long f = -1; f < fires; f++) { /* f = -1: the warm-up, not timed */
		if (f == 0)
			t0 = now_ms();
		if (!endsync || f <= 0) {
			CHECK(clEnqueueUnmapMemObject(q, bx, x, 0, NULL, NULL));
			CHECK(clEnqueueUnmapMemObject(q, by, y, 0, NULL, NULL));
		}
		if (setargs) {
			CHECK(clSetKernelArg(k, 0, sizeof(a), &a));
			CHECK(clSetKernelArg(k, 1, sizeof(bx), &bx));
			CHECK(clSetKernelArg(k, 2, sizeof(by), &by));
		}
		CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL));
		if (endsync && f >= 0 && f < fires - 1)
			continue;
		clEnqueueMapBuffer(q, bx, CL_FALSE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL,
		                   NULL, &err);
		CHECK(err);
		clEnqueueMapBuffer(q, by, CL_FALSE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL,
		                   NULL, &err);
		CHECK(err);
		CHECK(clFinish(q));
	}
	printf("%.3f\n", now_ms() - t0);
	for (size_t i = 0; i < n; i++)
		if (y[i] != 1.0f + (float)(fires + 1) * a * x[i]) {
			fprintf(stderr, "api_hand: y[%zu] = %g\n", i, (double)y[i]);
			return 1;
		}
	return 0;
}
