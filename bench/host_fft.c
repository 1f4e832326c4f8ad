/*
 * The FFT image filter (004 §3.6) as a careful user would write it by hand, without CarSh:
 * the same kernels (kernels/fft.cl) in the same order as batches/fft-filter/filter-steps,
 * one context and queue, every buffer on the device, pointer swaps between the steps and no
 * transfer until the end. It is the reference of bench/threads.sh.
 *
 *   cc -O2 -o host_fft bench/host_fft.c -lOpenCL
 *   host_fft N CUT RUNS KERNELS.cl [cpu|gpu] [OUT.csv]
 *
 * Prints "setup MS" (discovery, context, build, buffers, upload of a test picture) and
 * "run MS" for each of RUNS runs of the processing, each ended by clFinish. With OUT.csv,
 * writes the result of the first run.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(x)                                                                         \
	do {                                                                             \
		cl_int err_ = (x);                                                       \
		if (err_ != CL_SUCCESS) {                                                \
			fprintf(stderr, "host_fft: %s failed: %d (line %d)\n", #x, err_, \
			        __LINE__);                                               \
			exit(1);                                                         \
		}                                                                        \
	} while (0)

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;
	char *s;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "host_fft: cannot read %s\n", path);
		exit(1);
	}
	s = malloc((size_t)n + 1);
	if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "host_fft: cannot read %s\n", path);
		exit(1);
	}
	s[n] = '\0';
	fclose(f);
	return s;
}

/* The first device of a type on any platform, or NULL. */
static cl_device_id first_of(cl_device_type type)
{
	cl_platform_id plats[16];
	cl_uint np = 0;

	CHECK(clGetPlatformIDs(16, plats, &np));
	for (cl_uint p = 0; p < np; p++) {
		cl_device_id d;
		cl_uint nd = 0;

		if (clGetDeviceIDs(plats[p], type, 1, &d, &nd) == CL_SUCCESS && nd)
			return d;
	}
	return NULL;
}

/* cpu, gpu, or (as CarSh's default) the first GPU, else the first CPU. */
static cl_device_id pick_device(const char *want)
{
	cl_device_id d = NULL;

	if (!want || strcmp(want, "gpu") == 0)
		d = first_of(CL_DEVICE_TYPE_GPU);
	if (!d && (!want || strcmp(want, "cpu") == 0))
		d = first_of(CL_DEVICE_TYPE_CPU);
	if (!d) {
		fprintf(stderr, "host_fft: no %s device\n", want ? want : "OpenCL");
		exit(1);
	}
	return d;
}

struct fft {
	cl_command_queue q;
	cl_kernel reorder, step, istep, transpose, filter, real;
	cl_mem re, im, re2, im2, stage, stage2, result;
	int n, log2n, cut;
};

static void swap_mem(cl_mem *a, cl_mem *b)
{
	cl_mem t = *a;

	*a = *b;
	*b = t;
}

static void run2d(struct fft *f, cl_kernel k, size_t gx, size_t gy)
{
	size_t g[2] = {gx, gy};

	CHECK(clEnqueueNDRangeKernel(f->q, k, 2, NULL, g, NULL, 0, NULL, NULL));
}

static void reorder(struct fft *f)
{
	CHECK(clSetKernelArg(f->reorder, 0, sizeof(cl_mem), &f->re));
	CHECK(clSetKernelArg(f->reorder, 1, sizeof(cl_mem), &f->im));
	CHECK(clSetKernelArg(f->reorder, 2, sizeof(cl_mem), &f->re2));
	CHECK(clSetKernelArg(f->reorder, 3, sizeof(cl_mem), &f->im2));
	CHECK(clSetKernelArg(f->reorder, 4, sizeof(int), &f->n));
	CHECK(clSetKernelArg(f->reorder, 5, sizeof(int), &f->log2n));
	run2d(f, f->reorder, (size_t)f->n, (size_t)f->n);
	swap_mem(&f->re, &f->re2);
	swap_mem(&f->im, &f->im2);
}

static void transpose(struct fft *f)
{
	CHECK(clSetKernelArg(f->transpose, 0, sizeof(cl_mem), &f->re));
	CHECK(clSetKernelArg(f->transpose, 1, sizeof(cl_mem), &f->im));
	CHECK(clSetKernelArg(f->transpose, 2, sizeof(cl_mem), &f->re2));
	CHECK(clSetKernelArg(f->transpose, 3, sizeof(cl_mem), &f->im2));
	CHECK(clSetKernelArg(f->transpose, 4, sizeof(int), &f->n));
	run2d(f, f->transpose, (size_t)f->n, (size_t)f->n);
	swap_mem(&f->re, &f->re2);
	swap_mem(&f->im, &f->im2);
}

/* log2(n) butterfly stages; the stage index lives on the device, as in the batch. */
static void stages(struct fft *f, cl_kernel k)
{
	/* static: a write that does not block reads its source when it runs, after this returns */
	static const int zero = 0;

	CHECK(clEnqueueWriteBuffer(f->q, f->stage, CL_FALSE, 0, sizeof(int), &zero, 0, NULL, NULL));
	for (int s = 0; s < f->log2n; s++) {
		CHECK(clSetKernelArg(k, 0, sizeof(cl_mem), &f->re));
		CHECK(clSetKernelArg(k, 1, sizeof(cl_mem), &f->im));
		CHECK(clSetKernelArg(k, 2, sizeof(cl_mem), &f->stage));
		CHECK(clSetKernelArg(k, 3, sizeof(cl_mem), &f->re2));
		CHECK(clSetKernelArg(k, 4, sizeof(cl_mem), &f->im2));
		CHECK(clSetKernelArg(k, 5, sizeof(cl_mem), &f->stage2));
		CHECK(clSetKernelArg(k, 6, sizeof(int), &f->n));
		run2d(f, k, (size_t)f->n / 2, (size_t)f->n);
		swap_mem(&f->re, &f->re2);
		swap_mem(&f->im, &f->im2);
		swap_mem(&f->stage, &f->stage2);
	}
	/* the write of stage 0 above must not race the last read of it: in-order queue */
}

static void filter(struct fft *f)
{
	CHECK(clSetKernelArg(f->filter, 0, sizeof(cl_mem), &f->re));
	CHECK(clSetKernelArg(f->filter, 1, sizeof(cl_mem), &f->im));
	CHECK(clSetKernelArg(f->filter, 2, sizeof(int), &f->n));
	CHECK(clSetKernelArg(f->filter, 3, sizeof(int), &f->cut));
	run2d(f, f->filter, (size_t)f->n, (size_t)f->n);
}

static void real(struct fft *f)
{
	size_t g = (size_t)f->n * (size_t)f->n;
	float offset = 0.0f;

	CHECK(clSetKernelArg(f->real, 0, sizeof(cl_mem), &f->re));
	CHECK(clSetKernelArg(f->real, 1, sizeof(cl_mem), &f->result));
	CHECK(clSetKernelArg(f->real, 2, sizeof(int), &f->n));
	CHECK(clSetKernelArg(f->real, 3, sizeof(float), &offset));
	CHECK(clEnqueueNDRangeKernel(f->q, f->real, 1, NULL, &g, NULL, 0, NULL, NULL));
}

/* The steps of filter-steps.bat.xml, in order. */
static void process(struct fft *f)
{
	reorder(f);
	stages(f, f->step);
	transpose(f);
	reorder(f);
	stages(f, f->step);
	transpose(f);
	filter(f);
	transpose(f);
	reorder(f);
	stages(f, f->istep);
	transpose(f);
	reorder(f);
	stages(f, f->istep);
	real(f);
	CHECK(clFinish(f->q));
}

static cl_mem buffer(cl_context ctx, size_t bytes)
{
	cl_int err;
	cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);

	CHECK(err);
	return m;
}

static cl_kernel kernel(cl_program p, const char *name)
{
	cl_int err;
	cl_kernel k = clCreateKernel(p, name, &err);

	CHECK(err);
	return k;
}

static void setup(struct fft *f, const char *source_path, const char *device)
{
	cl_device_id dev = pick_device(device);
	const char *src = read_text(source_path);
	size_t bytes = (size_t)f->n * (size_t)f->n * sizeof(float);
	float *pic = malloc(bytes);
	cl_context ctx;
	cl_program prog;
	cl_int err;

	ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	CHECK(err);
	f->q = clCreateCommandQueue(ctx, dev, 0, &err);
	CHECK(err);
	prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
	CHECK(err);
	CHECK(clBuildProgram(prog, 1, &dev, "", NULL, NULL));
	f->reorder = kernel(prog, "fft_reorder");
	f->step = kernel(prog, "fft_step");
	f->istep = kernel(prog, "fft_istep");
	f->transpose = kernel(prog, "fft_transpose");
	f->filter = kernel(prog, "fft_lowpass");
	f->real = kernel(prog, "fft_real");
	f->re = buffer(ctx, bytes);
	f->im = buffer(ctx, bytes);
	f->re2 = buffer(ctx, bytes);
	f->im2 = buffer(ctx, bytes);
	f->result = buffer(ctx, bytes);
	f->stage = buffer(ctx, sizeof(int));
	f->stage2 = buffer(ctx, sizeof(int));
	for (int i = 0; i < f->n * f->n; i++) /* a test picture: a square on a gradient */
		pic[i] = (float)((i % f->n) / 4 + ((i / f->n) % 64 < 32 ? 100 : 0));
	CHECK(clEnqueueWriteBuffer(f->q, f->re, CL_TRUE, 0, bytes, pic, 0, NULL, NULL));
	memset(pic, 0, bytes);
	CHECK(clEnqueueWriteBuffer(f->q, f->im, CL_TRUE, 0, bytes, pic, 0, NULL, NULL));
	free(pic);
}

static void write_result(struct fft *f, const char *path)
{
	size_t count = (size_t)f->n * (size_t)f->n;
	float *v = malloc(count * sizeof(float));
	FILE *out = fopen(path, "w");

	if (!v || !out) {
		fprintf(stderr, "host_fft: cannot write %s\n", path);
		exit(1);
	}
	CHECK(clEnqueueReadBuffer(f->q, f->result, CL_TRUE, 0, count * sizeof(float), v, 0, NULL,
	                          NULL));
	for (size_t i = 0; i < count; i++)
		fprintf(out, "%.9g\n", v[i]);
	fclose(out);
	free(v);
}

int main(int argc, char **argv)
{
	struct fft f = {0};
	int runs;
	double t0;

	if (argc < 5) {
		fprintf(stderr, "usage: host_fft N CUT RUNS KERNELS.cl [cpu|gpu] [OUT.csv]\n");
		return 2;
	}
	f.n = atoi(argv[1]);
	f.cut = atoi(argv[2]);
	runs = atoi(argv[3]);
	for (f.log2n = 0; (1 << f.log2n) < f.n; f.log2n++)
		;
	t0 = now_ms();
	setup(&f, argv[4], argc > 5 ? argv[5] : NULL);
	printf("setup %.3f\n", now_ms() - t0);
	for (int r = 0; r < runs; r++) {
		t0 = now_ms();
		process(&f);
		printf("run %.3f\n", now_ms() - t0);
		if (r == 0 && argc > 6)
			write_result(&f, argv[6]);
	}
	return 0;
}
