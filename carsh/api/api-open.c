/*
 * Opening a machine (carsh.h; docs/api.md): where it is chooses its ops. A local machine
 * (its ops are here and in api-flowmodel.c) runs on one device of this process, picked by
 * the rules of `--device`; a server machine's are api-remote.c's.
 */
#include <stdio.h>
#include <string.h>

#include <libxml/parser.h>

#include "api/api-int.h"

static bool local_opened(const carsh_machine *m)
{
	return m->dev && m->q;
}

/* rt_session_free waits for the queues, then releases contexts. */
static void local_close(carsh_machine *m)
{
	if (m->q) {
		(void)clFinish(m->q);
		(void)clReleaseCommandQueue(m->q);
	}
	if (m->rt)
		rt_session_free(m->rt);
}

static int local_device_count(carsh_machine *m, size_t *n)
{
	const struct rt_devinfo *devs;
	int rc = 0;

	pthread_mutex_lock(&m->lock);
	if (rt_session_devices(m->rt, &devs, n, &m->err))
		rc = CARSH_E_DEVICE;
	pthread_mutex_unlock(&m->lock);
	return rc;
}

static void device_info(const struct rt_devinfo *d, bool selected, struct carsh_device_info *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", d->name);
	snprintf(out->vendor, sizeof(out->vendor), "%s", d->vendor);
	snprintf(out->platform, sizeof(out->platform), "%s", d->platform_name);
	out->type = rt_device_type_name(d->type);
	out->compute_units = d->compute_units;
	out->global_mem = d->global_mem;
	out->max_alloc = d->max_alloc;
	out->selected = selected;
}

static int local_device_info(carsh_machine *m, size_t i, struct carsh_device_info *out)
{
	const struct rt_devinfo *devs;
	size_t n;
	int rc = 0;

	pthread_mutex_lock(&m->lock);
	if (rt_session_devices(m->rt, &devs, &n, &m->err))
		rc = CARSH_E_DEVICE;
	else if (i >= n)
		rc = api_fail(&m->err, CARSH_E_NAME, "device %zu: the machine has %zu device(s)", i,
		              n);
	else
		device_info(&devs[i], m->dev && m->dev->info == &devs[i], out);
	pthread_mutex_unlock(&m->lock);
	return rc;
}

/* Device memory of this process is what a local machine has. */
static int local_only(struct cs_err *e, const char *call)
{
	(void)e;
	(void)call;
	return 0;
}

static const struct machine_ops local_ops = {
        .opened = local_opened,
        .close = local_close,
        .device_count = local_device_count,
        .device_info = local_device_info,
        .local_only = local_only,
        .fm = &local_flowmodel_ops,
};

static int machine_plain_queue(carsh_machine *m)
{
	cl_int err;

	m->q = clCreateCommandQueue(m->dev->ctx, m->dev->info->device, 0, &err);
	if (err == CL_SUCCESS)
		return 0;
	m->q = NULL;
	return machine_failf(m, CARSH_E_DEVICE, "device '%s': clCreateCommandQueue failed: %s",
	                     m->dev->info->name, rt_cl_error_name(err));
}

/* The device is chosen once, by the rules of `--device` (runtime.h), and named by its index
 * in every plan, so that each flow-model of the machine runs on it whatever its
 * <RuntimeType device=...> says. */
static int machine_pick(carsh_machine *m, const char *device)
{
	const struct rt_devinfo *devs;
	struct kernel_plan kp = {.label = "carsh_machine_open"};
	struct run_stats st = {0};
	size_t n, chosen;

	if (rt_session_devices(m->rt, &devs, &n, &m->err) ||
	    rt_device_pick(devs, n, NULL, device, NULL, &chosen, &m->err))
		return CARSH_E_DEVICE;
	snprintf(m->device_index, sizeof(m->device_index), "%d", devs[chosen].index);
	kp.device_cli = m->device_index;
	if (rt_session_device(m->rt, &kp, &m->dev, &st, &m->err))
		return CARSH_E_DEVICE;
	return machine_plain_queue(m);
}

/* Two threads discovering devices at once in a process that has not done so yet made
 * PoCL 3 find no device in one of them, or crash: the first discovery of the process is
 * made by one thread at a time. libxml2 (before 2.11) asks for xmlInitParser once before
 * threads parse. */
static pthread_mutex_t discovery_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t xml_once = PTHREAD_ONCE_INIT;

int carsh_machine_open(const char *device, carsh_machine **out)
{
	carsh_machine *m;
	int rc;

	if (!out)
		return CARSH_E_ARG;
	m = machine_new(&local_ops);
	m->rt = rt_session_new();
	*out = m;
	pthread_once(&xml_once, xmlInitParser);
	pthread_mutex_lock(&discovery_lock);
	rc = machine_pick(m, device && device[0] ? device : NULL);
	pthread_mutex_unlock(&discovery_lock);
	return rc;
}

/* A server machine starts as a local one without a device, and takes the server's ops once
 * it has a server's worker to ask (remote_open). Other MPI ranks are reached through CaravelaMPI
 * (api-mpi.c), not as machines: a rank would have to run a serving loop of the program's own
 * (docs/api.md). */
int carsh_machine_open_at(const char *where, const char *device, carsh_machine **out)
{
	if (!out)
		return CARSH_E_ARG;
	if (!where || strcmp(where, "local") == 0)
		return carsh_machine_open(device, out);
	*out = machine_new(&local_ops);
	if (strcmp(where, "server") == 0)
		return remote_open(*out, device && device[0] ? device : NULL);
	if (strncmp(where, "rank:", 5) == 0)
		return machine_failf(*out, CARSH_E_ARG,
		                     "%s: an MPI rank is not a machine: CaravelaMPI (carsh_mpi_*) "
		                     "moves streams between the ranks' own machines",
		                     where);
	return machine_failf(*out, CARSH_E_ARG,
	                     "carsh_machine_open_at: no place '%s' (places: local, server)", where);
}
