#include "engines/energy.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/* The few NVML declarations used (nvml.h is not needed to build). */
typedef int nvml_return;
typedef struct nvml_device *nvml_device;
#define NVML_SUCCESS 0
#define NVML_MAX_DEV 16
#define RAPL_MAX     8

struct nvml_api {
	void *lib;
	nvml_return (*init)(void);
	nvml_return (*count)(unsigned *);
	nvml_return (*by_index)(unsigned, nvml_device *);
	nvml_return (*name)(nvml_device, char *, unsigned);
	nvml_return (*energy)(nvml_device, unsigned long long *);
	nvml_return (*limit)(nvml_device, unsigned *); /* may be missing */
	const char *(*error)(nvml_return);
};

/* NVML is loaded and initialised once and kept for the process: nvmlInit costs tens of
 * milliseconds, and a shell may run hundreds of partition commands. */
static struct nvml_api nv_api;
static char nv_why[160];
static bool nv_ready;
static pthread_once_t nv_once = PTHREAD_ONCE_INIT;

struct energy_meter {
	bool nv_ok;
	nvml_device devs[NVML_MAX_DEV];
	unsigned ndevs;
	unsigned long long nv_start[NVML_MAX_DEV];
	char gpu_note[160];
	/* RAPL packages */
	unsigned nrapl;
	char rapl_path[RAPL_MAX][96];
	unsigned long long rapl_max[RAPL_MAX];
	unsigned long long rapl_start[RAPL_MAX];
	char cpu_note[160];
};

static void *sym(void *lib, const char *a, const char *b)
{
	void *p = dlsym(lib, a);

	return p || !b ? p : dlsym(lib, b);
}

static const char *nv_err(const struct nvml_api *nv, nvml_return r)
{
	return nv->error ? nv->error(r) : "error";
}

static void nvml_load(void)
{
	struct nvml_api *nv = &nv_api;
	nvml_return r;

	nv->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!nv->lib) {
		snprintf(nv_why, sizeof(nv_why), "no NVML (libnvidia-ml.so.1 not found)");
		return;
	}
	*(void **)&nv->init = sym(nv->lib, "nvmlInit_v2", "nvmlInit");
	*(void **)&nv->count = sym(nv->lib, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
	*(void **)&nv->by_index =
	        sym(nv->lib, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
	*(void **)&nv->name = sym(nv->lib, "nvmlDeviceGetName", NULL);
	*(void **)&nv->energy = sym(nv->lib, "nvmlDeviceGetTotalEnergyConsumption", NULL);
	*(void **)&nv->error = sym(nv->lib, "nvmlErrorString", NULL);
	*(void **)&nv->limit = sym(nv->lib, "nvmlDeviceGetEnforcedPowerLimit", NULL);
	if (!nv->init || !nv->count || !nv->by_index || !nv->name || !nv->energy) {
		snprintf(nv_why, sizeof(nv_why), "NVML lacks nvmlDeviceGetTotalEnergyConsumption");
		return;
	}
	if ((r = nv->init()) != NVML_SUCCESS) {
		snprintf(nv_why, sizeof(nv_why), "NVML: nvmlInit: %s", nv_err(nv, r));
		return;
	}
	nv_ready = true;
}

/* The NVML devices to read: the one named like the OpenCL GPU, else the only one, else all. */
static void nvml_open(struct energy_meter *m, const char *gpu_name)
{
	struct nvml_api *nv = &nv_api;
	unsigned n = 0;
	nvml_return r;

	pthread_once(&nv_once, nvml_load);
	if (!nv_ready) {
		snprintf(m->gpu_note, sizeof(m->gpu_note), "%s", nv_why);
		return;
	}
	if ((r = nv->count(&n)) != NVML_SUCCESS || n == 0) {
		snprintf(m->gpu_note, sizeof(m->gpu_note), "NVML: no device (%s)",
		         r == NVML_SUCCESS ? "count 0" : nv_err(nv, r));
		return;
	}
	if (n > NVML_MAX_DEV)
		n = NVML_MAX_DEV;
	for (unsigned i = 0; i < n && m->ndevs == 0 && gpu_name; i++) {
		char name[96] = "";
		nvml_device d;

		if (nv->by_index(i, &d) == NVML_SUCCESS &&
		    nv->name(d, name, sizeof(name)) == NVML_SUCCESS &&
		    strcmp(name, gpu_name) == 0) {
			m->devs[m->ndevs++] = d;
			snprintf(m->gpu_note, sizeof(m->gpu_note), "NVML: device %u, %.100s", i,
			         name);
		}
	}
	if (m->ndevs == 0 && (n == 1 || !gpu_name))
		for (unsigned j = 0; j < n; j++)
			if (nv->by_index(j, &m->devs[m->ndevs]) == NVML_SUCCESS)
				m->ndevs++;
	if (m->ndevs == 0) {
		snprintf(m->gpu_note, sizeof(m->gpu_note), "NVML: no device named '%.100s'",
		         gpu_name ? gpu_name : "");
		return;
	}
	if (!m->gpu_note[0])
		snprintf(m->gpu_note, sizeof(m->gpu_note), "NVML: %u device%s", m->ndevs,
		         m->ndevs == 1 ? "" : "s (all of them)");
	m->nv_ok = true;
}

static int read_ull(const char *path, unsigned long long *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%llu", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* The top-level powercap zones (packages): intel-rapl:0, intel-rapl:1, ... */
static void rapl_open(struct energy_meter *m)
{
	for (unsigned i = 0; i < RAPL_MAX; i++) {
		char max[128];
		unsigned long long v;

		snprintf(m->rapl_path[m->nrapl], sizeof(m->rapl_path[0]),
		         "/sys/class/powercap/intel-rapl:%u/energy_uj", i);
		snprintf(max, sizeof(max), "/sys/class/powercap/intel-rapl:%u/max_energy_range_uj",
		         i);
		if (read_ull(m->rapl_path[m->nrapl], &v))
			break;
		if (read_ull(max, &m->rapl_max[m->nrapl]))
			m->rapl_max[m->nrapl] = 0;
		m->nrapl++;
	}
	if (m->nrapl)
		snprintf(m->cpu_note, sizeof(m->cpu_note), "RAPL: %u package%s", m->nrapl,
		         m->nrapl == 1 ? "" : "s");
	else
		snprintf(m->cpu_note, sizeof(m->cpu_note),
		         "no RAPL (/sys/class/powercap/intel-rapl:0/energy_uj not readable)");
}

struct energy_meter *energy_open(const char *gpu_name)
{
	struct energy_meter *m = xcalloc(1, sizeof(*m));

	nvml_open(m, gpu_name);
	rapl_open(m);
	return m;
}

void energy_start(struct energy_meter *m)
{
	for (unsigned i = 0; m->nv_ok && i < m->ndevs; i++)
		if (nv_api.energy(m->devs[i], &m->nv_start[i]) != NVML_SUCCESS)
			m->nv_ok = false;
	for (unsigned i = 0; i < m->nrapl; i++)
		if (read_ull(m->rapl_path[i], &m->rapl_start[i]))
			m->nrapl = 0;
}

void energy_stop(struct energy_meter *m, struct energy_reading *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->gpu_note, sizeof(out->gpu_note), "%s", m->gpu_note);
	snprintf(out->cpu_note, sizeof(out->cpu_note), "%s", m->cpu_note);
	if (m->nv_ok) {
		double mj = 0;

		out->gpu_ok = true;
		for (unsigned i = 0; i < m->ndevs; i++) {
			unsigned long long now;

			if (nv_api.energy(m->devs[i], &now) != NVML_SUCCESS) {
				out->gpu_ok = false;
				snprintf(out->gpu_note, sizeof(out->gpu_note),
				         "NVML: reading the energy failed");
				break;
			}
			mj += (double)(now - m->nv_start[i]);
		}
		out->gpu_j = mj / 1000.0;
	}
	if (m->nrapl) {
		double uj = 0;

		out->cpu_ok = true;
		for (unsigned i = 0; i < m->nrapl; i++) {
			unsigned long long now;

			if (read_ull(m->rapl_path[i], &now)) {
				out->cpu_ok = false;
				break;
			}
			/* The counter wraps at max_energy_range_uj. */
			if (now < m->rapl_start[i] && m->rapl_max[i])
				now += m->rapl_max[i];
			uj += (double)(now - m->rapl_start[i]);
		}
		out->cpu_j = uj / 1e6;
	}
}

void energy_close(struct energy_meter *m)
{
	free(m);
}

double energy_power_limit(const struct energy_meter *m, bool gpu, char *note, size_t len)
{
	double cpu = 0, g = 0;
	unsigned n = 0;

	/* Each package's limit lies beside its energy counter. */
	for (unsigned i = 0; i < m->nrapl; i++) {
		size_t dir = strlen(m->rapl_path[i]) - strlen("energy_uj");
		char path[128];
		unsigned long long uw;

		snprintf(path, sizeof(path), "%.*sconstraint_0_power_limit_uw", (int)dir,
		         m->rapl_path[i]);
		if (read_ull(path, &uw) == 0) {
			cpu += (double)uw / 1e6;
			n++;
		}
	}
	for (unsigned i = 0; gpu && m->nv_ok && nv_api.limit && i < m->ndevs; i++) {
		unsigned mw;

		if (nv_api.limit(m->devs[i], &mw) != NVML_SUCCESS) {
			g = 0;
			break;
		}
		g += mw / 1000.0;
	}
	if (n == 0 || n < m->nrapl || (gpu && g <= 0)) {
		snprintf(note, len, "unknown: no %s power limit readable; give --tdp W",
		         n == 0 || n < m->nrapl ? "RAPL" : "NVML");
		return 0;
	}
	if (gpu)
		snprintf(note, len, "%.0f W: RAPL limit of %u package%s + NVML limit %.0f W",
		         cpu + g, n, n == 1 ? "" : "s", g);
	else
		snprintf(note, len, "%.0f W: RAPL limit of %u package%s", cpu, n,
		         n == 1 ? "" : "s");
	return cpu + g;
}
