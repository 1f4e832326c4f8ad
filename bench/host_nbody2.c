/*
 * N-body over one or two OpenCL devices as a careful user would write it by hand, without
 * CarSh: the kernel of bench/partition.sh's N-body (kernels/part_nbody.cl, built with the
 * same options as flowmodels/part_nbody.xml), one host thread, one context and one queue per
 * device, each device given its half of the bodies. It is what two GPUs can give: the
 * reference of bench/twogpu.sh.
 *
 *   cc -O2 -pthread -o host_nbody2 bench/host_nbody2.c -lOpenCL
 *   host_nbody2 N STEPS RUNS KERNEL.cl [DEV0,DEV1] [DIR]
 *
 * DEV0,DEV1: the two devices' indices in the order of `carsh -c devices` (every platform's
 * devices in turn); default: the first two GPUs, else the first two devices. Runs RUNS times
 * STEPS steps on DEV0 alone, then on both, and prints the median time per step of each and
 * their ratio. With DIR, the bodies are DIR/pos.csv and DIR/vel.csv (partref nbody-gen) and
 * the last two-device run's positions go to DIR/pos_out.csv; else they are made here.
 *
 * What a step moves: nothing on one device (pos and pos_next swap on the device). On two,
 * each device reads its half of pos_next back, and, once both have, writes the other's half
 * into its pos_next; vel stays on the device. Every buffer holds all N bodies and a device
 * launches its half at an offset, so the kernel is the one CarSh runs.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(x)                                                                            \
	do {                                                                                \
		cl_int err_ = (x);                                                          \
		if (err_ != CL_SUCCESS) {                                                   \
			fprintf(stderr, "host_nbody2: %s failed: %d (line %d)\n", #x, err_, \
			        __LINE__);                                                  \
			exit(1);                                                            \
		}                                                                           \
	} while (0)

#define MAXDEV 2
static const float DT = 0.001f, EPS2 = 0.0001f;

/* PoCL's CPU drivers abort when two queues run one kernel's variants at once (see
 * carsh/runtime/launchguard.h): on PoCL the launches take turns; elsewhere they overlap. */
static pthread_mutex_t launch_lock = PTHREAD_MUTEX_INITIALIZER;
static int launches_take_turns;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "host_nbody2: %s %s\n", what, path);
	exit(1);
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;
	char *s;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		die("cannot read", path);
	s = malloc((size_t)n + 1);
	if (!s || fread(s, 1, (size_t)n, f) != (size_t)n)
		die("cannot read", path);
	s[n] = '\0';
	fclose(f);
	return s;
}

static void read_csv4(const char *path, float *v, int n)
{
	FILE *f = fopen(path, "r");

	if (!f)
		die("cannot read", path);
	for (int i = 0; i < 4 * n; i++)
		if (fscanf(f, " %f%*[,\n]", &v[i]) != 1)
			die("too few numbers in", path);
	fclose(f);
}

static void write_csv4(const char *path, const float *v, int n)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die("cannot write", path);
	for (int i = 0; i < n; i++)
		fprintf(f, "%.9g,%.9g,%.9g,%.9g\n", v[4 * i], v[4 * i + 1], v[4 * i + 2],
		        v[4 * i + 3]);
	if (fclose(f))
		die("cannot write", path);
}

/* Every device of every platform, in `carsh -c devices` order; returns how many. */
static cl_uint all_devices(cl_device_id *out, cl_uint max)
{
	cl_platform_id plats[16];
	cl_uint np = 0, n = 0;

	CHECK(clGetPlatformIDs(16, plats, &np));
	for (cl_uint p = 0; p < np && n < max; p++) {
		cl_uint nd = 0;

		if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, max - n, out + n, &nd) ==
		    CL_SUCCESS)
			n += nd;
	}
	return n;
}

static void pick_devices(const char *list, cl_device_id pick[MAXDEV])
{
	cl_device_id all[64];
	cl_uint n = all_devices(all, 64), k = 0;

	if (list) {
		unsigned a, b;

		if (sscanf(list, "%u,%u", &a, &b) != 2 || a >= n || b >= n || a == b)
			die("two different device indices wanted, not", list);
		pick[0] = all[a];
		pick[1] = all[b];
		return;
	}
	for (cl_uint i = 0; i < n && k < MAXDEV; i++) {
		cl_device_type t;

		CHECK(clGetDeviceInfo(all[i], CL_DEVICE_TYPE, sizeof(t), &t, NULL));
		if (t & CL_DEVICE_TYPE_GPU)
			pick[k++] = all[i];
	}
	if (k == MAXDEV)
		return;
	if (n < MAXDEV)
		die("two OpenCL devices wanted:", "POCL_DEVICES=\"basic basic\" gives two");
	pick[0] = all[0];
	pick[1] = all[1];
}

/* One device's state: its context, queue, kernel and buffers of all N bodies. */
struct dev {
	cl_device_id id;
	cl_context ctx;
	cl_command_queue q;
	cl_kernel k;
	cl_mem pos, vel, pos_next, vel_next;
};

struct run {
	struct dev *dev;
	int ndev, n, steps;
	float *pos, *vel; /* the host's bodies: the start, then the positions at each step */
	pthread_barrier_t bar;
};

static void dev_open(struct dev *d, const char *src, int n)
{
	const char *opts = "-cl-fp32-correctly-rounded-divide-sqrt";
	size_t bytes = (size_t)n * 4 * sizeof(float);
	cl_program prog;
	cl_int err;

	d->ctx = clCreateContext(NULL, 1, &d->id, NULL, NULL, &err);
	CHECK(err);
	d->q = clCreateCommandQueue(d->ctx, d->id, 0, &err);
	CHECK(err);
	prog = clCreateProgramWithSource(d->ctx, 1, &src, NULL, &err);
	CHECK(err);
	if (clBuildProgram(prog, 1, &d->id, opts, NULL, NULL) != CL_SUCCESS) {
		char log[4096] = "";

		(void)clGetProgramBuildInfo(prog, d->id, CL_PROGRAM_BUILD_LOG, sizeof(log), log,
		                            NULL);
		fprintf(stderr, "host_nbody2: build failed:\n%s\n", log);
		exit(1);
	}
	d->k = clCreateKernel(prog, "part_nbody", &err);
	CHECK(err);
	CHECK(clReleaseProgram(prog));
	d->pos = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
	CHECK(err);
	d->vel = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
	CHECK(err);
	d->pos_next = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
	CHECK(err);
	d->vel_next = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
	CHECK(err);
}

static void dev_close(struct dev *d)
{
	CHECK(clReleaseMemObject(d->pos));
	CHECK(clReleaseMemObject(d->vel));
	CHECK(clReleaseMemObject(d->pos_next));
	CHECK(clReleaseMemObject(d->vel_next));
	CHECK(clReleaseKernel(d->k));
	CHECK(clReleaseCommandQueue(d->q));
	CHECK(clReleaseContext(d->ctx));
}

static void swap_mem(cl_mem *a, cl_mem *b)
{
	cl_mem t = *a;

	*a = *b;
	*b = t;
}

static void body_range(const struct run *r, int k, int *lo, int *hi)
{
	*lo = (int)((long)r->n * k / r->ndev);
	*hi = (int)((long)r->n * (k + 1) / r->ndev);
}

static void launch(struct dev *d, int n, int lo, int hi)
{
	size_t off = (size_t)lo, g = (size_t)(hi - lo);

	CHECK(clSetKernelArg(d->k, 0, sizeof(cl_mem), &d->pos));
	CHECK(clSetKernelArg(d->k, 1, sizeof(cl_mem), &d->vel));
	CHECK(clSetKernelArg(d->k, 2, sizeof(cl_mem), &d->pos_next));
	CHECK(clSetKernelArg(d->k, 3, sizeof(cl_mem), &d->vel_next));
	CHECK(clSetKernelArg(d->k, 4, sizeof(int), &n));
	CHECK(clSetKernelArg(d->k, 5, sizeof(float), &DT));
	CHECK(clSetKernelArg(d->k, 6, sizeof(float), &EPS2));
	CHECK(clEnqueueNDRangeKernel(d->q, d->k, 1, &off, &g, NULL, 0, NULL, NULL));
}

/* Device k's part of a step: its half, its half back to the host, the others' halves in. */
static void step(struct run *r, int k)
{
	struct dev *d = &r->dev[k];
	size_t b4 = 4 * sizeof(float);
	int lo, hi;

	body_range(r, k, &lo, &hi);
	if (launches_take_turns) {
		pthread_mutex_lock(&launch_lock);
		launch(d, r->n, lo, hi);
		CHECK(clFinish(d->q));
		pthread_mutex_unlock(&launch_lock);
	} else
		launch(d, r->n, lo, hi);
	if (r->ndev > 1) {
		CHECK(clEnqueueReadBuffer(d->q, d->pos_next, CL_TRUE, lo * b4, (hi - lo) * b4,
		                          r->pos + 4 * lo, 0, NULL, NULL));
		pthread_barrier_wait(&r->bar);
		for (int o = 0; o < r->ndev; o++) {
			int olo, ohi;

			if (o == k)
				continue;
			body_range(r, o, &olo, &ohi);
			CHECK(clEnqueueWriteBuffer(d->q, d->pos_next, CL_FALSE, olo * b4,
			                           (ohi - olo) * b4, r->pos + 4 * olo, 0, NULL,
			                           NULL));
		}
	}
	CHECK(clFinish(d->q));
	swap_mem(&d->pos, &d->pos_next);
	swap_mem(&d->vel, &d->vel_next);
	/* No device may write the host's positions of the next step before all have read
	 * this one's. */
	if (r->ndev > 1)
		pthread_barrier_wait(&r->bar);
}

struct worker {
	struct run *r;
	int k;
	double ms;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->r;
	struct dev *d = &r->dev[w->k];
	size_t bytes = (size_t)r->n * 4 * sizeof(float);
	double t;

	CHECK(clEnqueueWriteBuffer(d->q, d->pos, CL_TRUE, 0, bytes, r->pos, 0, NULL, NULL));
	CHECK(clEnqueueWriteBuffer(d->q, d->vel, CL_TRUE, 0, bytes, r->vel, 0, NULL, NULL));
	pthread_barrier_wait(&r->bar);
	t = now_ms();
	for (int s = 0; s < r->steps; s++)
		step(r, w->k);
	w->ms = now_ms() - t;
	return NULL;
}

/* One run of r->steps steps on r->ndev devices from the bodies in pos0/vel0; its time
 * (ms) from the first thread's start to the last one's end. With out, the final positions
 * (each device's half) go there. */
static double run_once(struct run *r, const float *pos0, const float *vel0, float *out)
{
	struct worker w[MAXDEV];
	pthread_t th[MAXDEV];
	size_t bytes = (size_t)r->n * 4 * sizeof(float);
	double ms = 0;

	memcpy(r->pos, pos0, bytes);
	memcpy(r->vel, vel0, bytes);
	if (pthread_barrier_init(&r->bar, NULL, (unsigned)r->ndev))
		die("cannot make", "a barrier");
	for (int k = 0; k < r->ndev; k++) {
		w[k] = (struct worker){r, k, 0};
		if (pthread_create(&th[k], NULL, work, &w[k]))
			die("cannot start", "a thread");
	}
	for (int k = 0; k < r->ndev; k++) {
		pthread_join(th[k], NULL);
		if (w[k].ms > ms)
			ms = w[k].ms;
	}
	pthread_barrier_destroy(&r->bar);
	for (int k = 0; out && k < r->ndev; k++) {
		struct dev *d = &r->dev[k];
		int lo, hi;

		body_range(r, k, &lo, &hi);
		CHECK(clEnqueueReadBuffer(d->q, d->pos, CL_TRUE, lo * 4 * sizeof(float),
		                          (size_t)(hi - lo) * 4 * sizeof(float), out + 4 * lo, 0,
		                          NULL, NULL));
	}
	return ms;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Without DIR: a deterministic cloud of bodies. */
static void make_bodies(float *pos, float *vel, int n)
{
	unsigned s = 12345;

	for (int i = 0; i < 4 * n; i++) {
		s = s * 1103515245u + 12345u;
		float u = (float)((s >> 8) & 0xffff) / 65536.0f;

		if (i % 4 == 3)
			pos[i] = 0.05f + 0.1f * u, vel[i] = 0;
		else
			pos[i] = u - 0.5f, vel[i] = 0.01f * (u - 0.5f);
	}
}

int main(int argc, char **argv)
{
	struct dev devs[MAXDEV];
	cl_device_id ids[MAXDEV];
	struct run r;
	double med[MAXDEV + 1];
	int runs;

	if (argc < 5 || argc > 7) {
		fprintf(stderr, "usage: host_nbody2 N STEPS RUNS KERNEL.cl [DEV0,DEV1] [DIR]\n");
		return 2;
	}
	memset(&r, 0, sizeof(r));
	r.n = atoi(argv[1]);
	r.steps = atoi(argv[2]);
	runs = atoi(argv[3]);
	if (r.n < 2 || r.steps < 1 || runs < 1)
		die("N >= 2, STEPS >= 1 and RUNS >= 1 wanted, not", argv[1]);
	char *src = read_text(argv[4]);
	const char *dir = argc > 6 ? argv[6] : NULL;
	size_t bytes = (size_t)r.n * 4 * sizeof(float);
	float *pos0 = malloc(bytes), *vel0 = malloc(bytes), *out = malloc(bytes);

	r.pos = malloc(bytes);
	r.vel = malloc(bytes);
	if (!pos0 || !vel0 || !out || !r.pos || !r.vel)
		die("out of memory for", argv[1]);
	if (dir) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/pos.csv", dir);
		read_csv4(path, pos0, r.n);
		snprintf(path, sizeof(path), "%s/vel.csv", dir);
		read_csv4(path, vel0, r.n);
	} else
		make_bodies(pos0, vel0, r.n);
	pick_devices(argc > 5 && strcmp(argv[5], "-") ? argv[5] : NULL, ids);
	for (int k = 0; k < MAXDEV; k++) {
		char name[256] = "";

		devs[k].id = ids[k];
		cl_platform_id plat;
		char pname[256] = "";

		CHECK(clGetDeviceInfo(ids[k], CL_DEVICE_NAME, sizeof(name), name, NULL));
		CHECK(clGetDeviceInfo(ids[k], CL_DEVICE_PLATFORM, sizeof(plat), &plat, NULL));
		CHECK(clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof(pname), pname, NULL));
		if (strstr(pname, "Portable Computing Language"))
			launches_take_turns = 1;
		printf("device %d: %s\n", k, name);
		dev_open(&devs[k], src, r.n);
	}
	r.dev = devs;
	for (r.ndev = 1; r.ndev <= MAXDEV; r.ndev++) {
		double *t = malloc((size_t)runs * sizeof(double));

		if (!t)
			die("out of memory for", "times");
		(void)run_once(&r, pos0, vel0, NULL); /* warm-up: first launches, clocks */
		for (int i = 0; i < runs; i++)
			t[i] = run_once(&r, pos0, vel0, r.ndev == MAXDEV ? out : NULL) / r.steps;
		qsort(t, (size_t)runs, sizeof(double), cmp_double);
		med[r.ndev] = runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
		printf("%d device%s: %.3f ms per step (median of %d runs of %d steps, N %d)\n",
		       r.ndev, r.ndev == 1 ? "" : "s", med[r.ndev], runs, r.steps, r.n);
		free(t);
	}
	printf("ratio 1 device / 2 devices: %.3f\n", med[1] / med[2]);
	if (dir) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/pos_out.csv", dir);
		write_csv4(path, out, r.n);
	}
	for (int k = 0; k < MAXDEV; k++)
		dev_close(&devs[k]);
	free(src);
	free(pos0);
	free(vel0);
	free(out);
	free(r.pos);
	free(r.vel);
	return 0;
}
