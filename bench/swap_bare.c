/*
 * The reference of bench/swap.sh: the launch loop a programmer would write by hand for a
 * recursive kernel, without CarSh. It builds one kernel from source, creates its buffers
 * from CSV files or constant fills, and times on the wall clock, after a warm-up:
 *
 *   bare     LAUNCHES launches of the kernel with nothing in between, then clFinish:
 *            what one launch of the kernel costs when nothing else is done
 *   rebind   the same with the buffers of the pairs exchanged by clSetKernelArg between
 *            launches (004 §5.2.1, OpenCL case study): a hand-written swap loop
 *   events   rebind, plus what CarSh does to time every launch (carsh/runtime/launch.c):
 *            an event per launch, and every 256 events a wait, the status and the
 *            profiled start and end of each, and its release
 *   kernel   the mean duration of one launch from profiling events (20 launches)
 *
 * and prints one line: "bare US rebind US events US kernel US" (microseconds per launch;
 * each the median of 3 timed loops). The queue has profiling enabled, as CarSh's has.
 *
 *   swap_bare --which
 *       prints "gpu NAME" or "cpu NAME": the device it (and CarSh by default) uses
 *   swap_bare SOURCE KERNEL OPTIONS GLOBAL LAUNCHES ARG... [pair:I:O]...
 *       GLOBAL is "n" or "n,m"; each ARG is one kernel argument, in order:
 *         file:TYPE:PATH          a buffer with the values of a CSV file
 *         fill:TYPE:COUNT:VALUE   a buffer of COUNT elements set to VALUE
 *         int:VALUE               a by-value int
 *       TYPE is float, double or int; pair:I:O exchanges arguments I and O (from 0).
 *
 * The device is the first GPU, else the first CPU device, as in CarSh's default choice.
 *
 *   cc -O2 -o swap_bare bench/swap_bare.c -lOpenCL
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ARGS    32
#define MAX_PAIRS   8
#define TRIALS      3
#define EVENT_BATCH 256

#define CHECK(call)                                                                 \
	do {                                                                        \
		cl_int err_ = (call);                                               \
		if (err_ != CL_SUCCESS) {                                           \
			fprintf(stderr, "swap_bare: %s failed: %d\n", #call, err_); \
			exit(1);                                                    \
		}                                                                   \
	} while (0)

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "swap_bare: %s%s%s\n", what, arg ? ": " : "", arg ? arg : "");
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static char *read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *s;
	long n;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		die("cannot read", path);
	s = malloc((size_t)n + 1);
	if (!s || fread(s, 1, (size_t)n, f) != (size_t)n)
		die("cannot read", path);
	s[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return s;
}

static size_t type_size(const char *t)
{
	if (strcmp(t, "float") == 0 || strcmp(t, "int") == 0)
		return 4;
	if (strcmp(t, "double") == 0)
		return 8;
	die("unknown type (float, double, int)", t);
	return 0;
}

static void store(const char *t, void *dst, size_t i, double v)
{
	if (strcmp(t, "float") == 0)
		((float *)dst)[i] = (float)v;
	else if (strcmp(t, "double") == 0)
		((double *)dst)[i] = v;
	else
		((int *)dst)[i] = (int)v;
}

/* The values of a CSV file, whatever the separators. */
static void *load_csv(const char *t, const char *path, size_t *count)
{
	char *text = read_text(path, NULL), *p = text, *end;
	size_t cap = 1024, n = 0, es = type_size(t);
	unsigned char *v = malloc(cap * es);

	if (!v)
		die("out of memory", NULL);
	for (;;) {
		double x;

		while (*p == ',' || *p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
			p++;
		if (!*p)
			break;
		x = strtod(p, &end);
		if (end == p)
			die("not a number in", path);
		p = end;
		if (n == cap && !(v = realloc(v, (cap *= 2) * es)))
			die("out of memory", NULL);
		store(t, v, n++, x);
	}
	free(text);
	*count = n;
	return v;
}

static void pick_device(cl_device_id *dev, cl_device_type *type)
{
	cl_platform_id plats[16];
	cl_uint np = 0;
	const cl_device_type order[] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_CPU};

	CHECK(clGetPlatformIDs(16, plats, &np));
	for (int o = 0; o < 2; o++)
		for (cl_uint p = 0; p < np; p++) {
			cl_uint nd = 0;

			if (clGetDeviceIDs(plats[p], order[o], 1, dev, &nd) == CL_SUCCESS && nd) {
				*type = order[o];
				return;
			}
		}
	die("no GPU or CPU OpenCL device", NULL);
}

struct bench {
	cl_context ctx;
	cl_command_queue q;
	cl_kernel k;
	cl_uint dims;
	size_t global[2];
	cl_mem mem[MAX_ARGS];
	int npairs;
	int pair[MAX_PAIRS][2];
};

static void set_mem(struct bench *b, int i)
{
	CHECK(clSetKernelArg(b->k, (cl_uint)i, sizeof(cl_mem), &b->mem[i]));
}

static void launch(struct bench *b, cl_event *ev)
{
	CHECK(clEnqueueNDRangeKernel(b->q, b->k, b->dims, NULL, b->global, NULL, 0, NULL, ev));
}

/* CarSh's bookkeeping (runtime/launch.c): the status and the profiled start and end of
 * every event, in batches of EVENT_BATCH. */
static void events_flush(cl_event *ev, size_t *nev)
{
	if (*nev)
		CHECK(clWaitForEvents((cl_uint)*nev, ev));
	for (size_t i = 0; i < *nev; i++) {
		cl_int status;
		cl_ulong t0, t1;

		CHECK(clGetEventInfo(ev[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status),
		                     &status, NULL));
		CHECK(clGetEventProfilingInfo(ev[i], CL_PROFILING_COMMAND_START, sizeof(t0), &t0,
		                              NULL));
		CHECK(clGetEventProfilingInfo(ev[i], CL_PROFILING_COMMAND_END, sizeof(t1), &t1,
		                              NULL));
		CHECK(clReleaseEvent(ev[i]));
	}
	*nev = 0;
}

enum mode { BARE, REBIND, EVENTS };

/* One timed loop: microseconds per launch. */
static double loop_us(struct bench *b, long launches, enum mode mode)
{
	cl_event ev[EVENT_BATCH];
	size_t nev = 0;
	double t0 = now_us();

	for (long r = 0; r < launches; r++) {
		if (mode == EVENTS) {
			launch(b, &ev[nev++]);
			if (nev == EVENT_BATCH)
				events_flush(ev, &nev);
		} else {
			launch(b, NULL);
		}
		if (mode != BARE && r + 1 < launches)
			for (int p = 0; p < b->npairs; p++) {
				cl_mem t = b->mem[b->pair[p][0]];

				b->mem[b->pair[p][0]] = b->mem[b->pair[p][1]];
				b->mem[b->pair[p][1]] = t;
				set_mem(b, b->pair[p][0]);
				set_mem(b, b->pair[p][1]);
			}
	}
	CHECK(clFinish(b->q));
	events_flush(ev, &nev);
	return (now_us() - t0) / (double)launches;
}

static double median_us(struct bench *b, long launches, enum mode mode)
{
	double t[TRIALS];

	for (int i = 0; i < TRIALS; i++)
		t[i] = loop_us(b, launches, mode);
	qsort(t, TRIALS, sizeof(t[0]), cmp_double);
	return t[TRIALS / 2];
}

static double kernel_us(struct bench *b)
{
	double sum = 0;

	for (int i = 0; i < 20; i++) {
		cl_event ev;
		cl_ulong t0, t1;

		launch(b, &ev);
		CHECK(clWaitForEvents(1, &ev));
		CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(t0), &t0,
		                              NULL));
		CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, NULL));
		CHECK(clReleaseEvent(ev));
		sum += (double)(t1 - t0) / 1e3;
	}
	return sum / 20;
}

static void make_arg(struct bench *b, int i, const char *spec)
{
	char *s = strdup(spec), *f[4] = {NULL};
	int nf = 0;
	cl_int err;

	if (!s)
		die("out of memory", NULL);
	for (char *tok = strtok(s, ":"); tok && nf < 4; tok = strtok(NULL, ":"))
		f[nf++] = tok;
	if (nf == 2 && strcmp(f[0], "int") == 0) {
		int v = atoi(f[1]);

		CHECK(clSetKernelArg(b->k, (cl_uint)i, sizeof(v), &v));
	} else if ((nf == 3 && strcmp(f[0], "file") == 0) ||
	           (nf == 4 && strcmp(f[0], "fill") == 0)) {
		size_t n, es = type_size(f[1]);
		void *host;

		if (strcmp(f[0], "fill") == 0) {
			n = strtoul(f[2], NULL, 10);
			host = malloc(n * es);
			if (!host || n == 0)
				die("bad fill", spec);
			for (size_t j = 0; j < n; j++)
				store(f[1], host, j, strtod(f[3], NULL));
		} else {
			host = load_csv(f[1], f[2], &n);
		}
		b->mem[i] = clCreateBuffer(b->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * es,
		                           host, &err);
		CHECK(err);
		set_mem(b, i);
		free(host);
	} else {
		die("bad argument (file:TYPE:PATH, fill:TYPE:COUNT:VALUE, int:VALUE)", spec);
	}
	free(s);
}

int main(int argc, char **argv)
{
	struct bench b = {0};
	cl_device_id dev;
	cl_device_type type;
	char name[256];
	const char *src_text;
	cl_program prog;
	cl_int err;
	long launches;
	int nargs = 0;

	pick_device(&dev, &type);
	CHECK(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof(name), name, NULL));
	if (argc == 2 && strcmp(argv[1], "--which") == 0) {
		printf("%s %s\n", type == CL_DEVICE_TYPE_GPU ? "gpu" : "cpu", name);
		return 0;
	}
	if (argc < 7)
		die("usage: swap_bare --which | SOURCE KERNEL OPTIONS GLOBAL LAUNCHES ARG... "
		    "[pair:I:O]...",
		    NULL);
	launches = atol(argv[5]);
	if (launches < 1)
		die("LAUNCHES must be at least 1", argv[5]);
	b.dims = sscanf(argv[4], "%zu,%zu", &b.global[0], &b.global[1]) == 2 ? 2 : 1;
	b.ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	CHECK(err);
	b.q = clCreateCommandQueue(b.ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
	CHECK(err);
	src_text = read_text(argv[1], NULL);
	prog = clCreateProgramWithSource(b.ctx, 1, &src_text, NULL, &err);
	CHECK(err);
	if (clBuildProgram(prog, 1, &dev, argv[3], NULL, NULL) != CL_SUCCESS)
		die("build failed", argv[1]);
	b.k = clCreateKernel(prog, argv[2], &err);
	CHECK(err);
	for (int a = 6; a < argc; a++) {
		if (strncmp(argv[a], "pair:", 5) == 0) {
			if (b.npairs == MAX_PAIRS ||
			    sscanf(argv[a] + 5, "%d:%d", &b.pair[b.npairs][0],
			           &b.pair[b.npairs][1]) != 2)
				die("bad pair", argv[a]);
			b.npairs++;
		} else {
			if (nargs == MAX_ARGS)
				die("too many arguments", NULL);
			make_arg(&b, nargs++, argv[a]);
		}
	}
	for (int p = 0; p < b.npairs; p++)
		for (int s = 0; s < 2; s++)
			if (b.pair[p][s] < 0 || b.pair[p][s] >= nargs || !b.mem[b.pair[p][s]])
				die("a pair names an argument that is not a buffer", NULL);
	/* Warm-up: the first launches compile for the work-group size, fault pages in. */
	(void)loop_us(&b, launches < 10 ? launches : 10, BARE);
	{
		double bare = median_us(&b, launches, BARE);
		double rebind = median_us(&b, launches, REBIND);
		double events = median_us(&b, launches, EVENTS);
		double kern = kernel_us(&b);

		printf("bare %.3f rebind %.3f events %.3f kernel %.3f\n", bare, rebind, events,
		       kern);
	}
	for (int i = 0; i < nargs; i++)
		if (b.mem[i])
			clReleaseMemObject(b.mem[i]);
	clReleaseKernel(b.k);
	clReleaseProgram(prog);
	clReleaseCommandQueue(b.q);
	clReleaseContext(b.ctx);
	return 0;
}
