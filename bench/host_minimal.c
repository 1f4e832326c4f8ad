/*
 * The hand-written OpenCL host program for the work of
 *     carsh run flowmodels/scale.xml x=in.csv y=-
 * as a user would write it without CarSh: read N floats (one per line), y = 2 * x with
 * kernels/scale.cl on the first GPU (else the first CPU), print y one per line. It is the
 * reference of the benchmark in bench/: same work, no shell.
 *
 *     cc -O2 -o host_minimal bench/host_minimal.c -lOpenCL
 *     ./host_minimal in.csv [kernels/scale.cl]
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                    \
	do {                                                                           \
		cl_int err_ = (call);                                                  \
		if (err_ != CL_SUCCESS) {                                              \
			fprintf(stderr, "host_minimal: %s failed: %d\n", #call, err_); \
			exit(1);                                                       \
		}                                                                      \
	} while (0)

static void die(const char *what)
{
	fprintf(stderr, "host_minimal: %s\n", what);
	exit(1);
}

static float *read_floats(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1024;
	float *v = malloc(cap * sizeof(*v));
	float x;

	if (!f)
		die("cannot open the input file");
	if (!v)
		die("out of memory");
	*n = 0;
	while (fscanf(f, "%f", &x) == 1) {
		if (*n == cap && !(v = realloc(v, (cap *= 2) * sizeof(*v))))
			die("out of memory");
		v[(*n)++] = x;
	}
	if (ferror(f) || !feof(f))
		die("the input holds something that is not a number");
	fclose(f);
	if (*n == 0)
		die("the input is empty");
	return v;
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s;
	long len;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		die("cannot read the kernel file");
	s = malloc((size_t)len + 1);
	if (!s || fread(s, 1, (size_t)len, f) != (size_t)len)
		die("cannot read the kernel file");
	s[len] = '\0';
	fclose(f);
	return s;
}

/* The first device of this type on any platform. */
static int find_device(cl_device_type type, cl_platform_id *plat, cl_device_id *dev)
{
	cl_platform_id ps[16];
	cl_uint np = 0;

	if (clGetPlatformIDs(16, ps, &np) != CL_SUCCESS)
		die("no OpenCL platform");
	for (cl_uint i = 0; i < np && i < 16; i++) {
		if (clGetDeviceIDs(ps[i], type, 1, dev, NULL) == CL_SUCCESS) {
			*plat = ps[i];
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *kfile = argc > 2 ? argv[2] : "kernels/scale.cl";
	cl_platform_id plat;
	cl_device_id dev;
	cl_int err;
	size_t n;
	float a = 2.0f;

	if (argc < 2)
		die("usage: host_minimal INPUT [KERNEL.cl]");
	float *x = read_floats(argv[1], &n);
	float *y = malloc(n * sizeof(*y));
	const char *src = read_text(kfile);

	if (!y)
		die("out of memory");
	if (!find_device(CL_DEVICE_TYPE_GPU, &plat, &dev) &&
	    !find_device(CL_DEVICE_TYPE_CPU, &plat, &dev))
		die("no GPU or CPU OpenCL device");

	cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0};
	cl_context ctx = clCreateContext(props, 1, &dev, NULL, NULL, &err);
	CHECK(err);
	cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
	CHECK(err);

	cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
	CHECK(err);
	if (clBuildProgram(prog, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
		static char log[65536];

		clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
		fprintf(stderr, "host_minimal: build failed:\n%s\n", log);
		return 1;
	}
	cl_kernel k = clCreateKernel(prog, "scale", &err);
	CHECK(err);

	cl_mem dx = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(float),
	                           x, &err);
	CHECK(err);
	cl_mem dy = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, n * sizeof(float), NULL, &err);
	CHECK(err);
	CHECK(clSetKernelArg(k, 0, sizeof(a), &a));
	CHECK(clSetKernelArg(k, 1, sizeof(dx), &dx));
	CHECK(clSetKernelArg(k, 2, sizeof(dy), &dy));
	CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL));
	CHECK(clEnqueueReadBuffer(q, dy, CL_TRUE, 0, n * sizeof(float), y, 0, NULL, NULL));

	for (size_t i = 0; i < n; i++)
		printf("%.9g\n", y[i]);
	if (fflush(stdout) != 0 || ferror(stdout))
		die("cannot write the output");

	clReleaseMemObject(dx);
	clReleaseMemObject(dy);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	free(x);
	free(y);
	free((void *)src);
	return 0;
}
