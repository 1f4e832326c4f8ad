/* The embedding API's machines and virtual buffers (carsh.h; docs/api.md). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "api/api-int.h"
#include "util/alloc.h"

int api_fail(struct cs_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(e, fmt, ap);
	va_end(ap);
	return code;
}

int machine_fail(carsh_machine *m, int code, const struct cs_err *e)
{
	pthread_mutex_lock(&m->lock);
	snprintf(m->err.msg, sizeof(m->err.msg), "%s", e->msg);
	pthread_mutex_unlock(&m->lock);
	return code;
}

int machine_failf(carsh_machine *m, int code, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&m->lock);
	va_start(ap, fmt);
	err_vset(&m->err, fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&m->lock);
	return code;
}

int machine_usable(carsh_machine *m, const char *call)
{
	char why[CS_ERR_MAX];

	if (m->remote || (m->dev && m->q))
		return 0;
	pthread_mutex_lock(&m->lock);
	snprintf(why, sizeof(why), "%s", m->err.msg[0] ? m->err.msg : "no device");
	pthread_mutex_unlock(&m->lock);
	return machine_failf(m, CARSH_E_STATE, "%s: the machine's open failed (%s): open another",
	                     call, why);
}

void machine_ref(carsh_machine *m)
{
	__atomic_add_fetch(&m->refs, 1, __ATOMIC_RELAXED);
}

/* The last reference: rt_session_free waits for the queues, then releases contexts. */
void carsh_machine_free(carsh_machine *m)
{
	if (!m || __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (m->remote)
		remote_close(m);
	if (m->q) {
		(void)clFinish(m->q);
		(void)clReleaseCommandQueue(m->q);
	}
	if (m->rt)
		rt_session_free(m->rt);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

const char *carsh_machine_last_error(const carsh_machine *m)
{
	return m ? m->err.msg : "no machine (NULL)";
}

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

cl_command_queue machine_queue(carsh_machine *m, bool profiling)
{
	cl_command_queue q = profiling ? rt_dev_queue(m->dev) : m->q;
	cl_command_queue last = __atomic_exchange_n(&m->last_q, q, __ATOMIC_ACQ_REL);

	if (last && last != q)
		(void)clFinish(last); /* its failures come back to whoever waits for its work */
	return q;
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

static carsh_machine *machine_new(void)
{
	carsh_machine *m = xcalloc(1, sizeof(*m));

	pthread_mutex_init(&m->lock, NULL);
	m->refs = 1;
	return m;
}

int carsh_machine_open(const char *device, carsh_machine **out)
{
	carsh_machine *m;
	int rc;

	if (!out)
		return CARSH_E_ARG;
	m = machine_new();
	m->rt = rt_session_new();
	*out = m;
	pthread_once(&xml_once, xmlInitParser);
	pthread_mutex_lock(&discovery_lock);
	rc = machine_pick(m, device && device[0] ? device : NULL);
	pthread_mutex_unlock(&discovery_lock);
	return rc;
}

/* Other MPI ranks are reached through CaravelaMPI (api-mpi.c), not as machines: a rank
 * would have to run a serving loop of the program's own (docs/api.md). */
int carsh_machine_open_at(const char *where, const char *device, carsh_machine **out)
{
	if (!out)
		return CARSH_E_ARG;
	if (!where || strcmp(where, "local") == 0)
		return carsh_machine_open(device, out);
	*out = machine_new();
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

int carsh_machine_device_count(carsh_machine *m, size_t *n)
{
	const struct rt_devinfo *devs;
	int rc = 0;

	if (!m || !n)
		return m ? api_fail(&m->err, CARSH_E_ARG, "carsh_machine_device_count: n is NULL")
		         : CARSH_E_ARG;
	if (m->remote)
		return remote_device_count(m, n);
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

int carsh_machine_device_info(carsh_machine *m, size_t i, struct carsh_device_info *out)
{
	const struct rt_devinfo *devs;
	size_t n;
	int rc = 0;

	if (!m || !out)
		return m ? api_fail(&m->err, CARSH_E_ARG, "carsh_machine_device_info: out is NULL")
		         : CARSH_E_ARG;
	if (m->remote)
		return remote_device_info(m, i, out);
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

/* ---- virtual buffers ---- */

void buffer_ref(carsh_buffer *b)
{
	__atomic_add_fetch(&b->refs, 1, __ATOMIC_RELAXED);
}

void carsh_buffer_free(carsh_buffer *b)
{
	if (!b || __atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	(void)clReleaseMemObject(b->mem);
	carsh_machine_free(b->m);
	free(b);
}

size_t carsh_buffer_size(const carsh_buffer *b)
{
	return b ? b->bytes : 0;
}

static int buffer_zero(cl_command_queue q, cl_mem mem, size_t bytes)
{
	static const unsigned char zero;

	if (clEnqueueFillBuffer(q, mem, &zero, 1, 0, bytes, 0, NULL, NULL) != CL_SUCCESS)
		return -1;
	return clFinish(q) == CL_SUCCESS ? 0 : -1;
}

int carsh_buffer_new(carsh_machine *m, size_t bytes, carsh_buffer **out)
{
	cl_int err;
	cl_mem mem;

	if (out)
		*out = NULL;
	if (!m || !out)
		return m ? api_fail(&m->err, CARSH_E_ARG, "carsh_buffer_new: out is NULL")
		         : CARSH_E_ARG;
	if (machine_usable(m, "carsh_buffer_new"))
		return CARSH_E_STATE;
	if (m->remote) {
		pthread_mutex_lock(&m->lock);
		remote_refuse(&m->err, "carsh_buffer_new");
		pthread_mutex_unlock(&m->lock);
		return CARSH_E_STATE;
	}
	if (bytes == 0)
		return machine_failf(m, CARSH_E_SIZE, "carsh_buffer_new: 0 bytes");
	mem = clCreateBuffer(m->dev->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
	if (err != CL_SUCCESS)
		return machine_failf(m, CARSH_E_DEVICE, "carsh_buffer_new: %zu bytes on '%s': %s",
		                     bytes, m->dev->info->name, rt_cl_error_name(err));
	if (buffer_zero(machine_queue(m, false), mem, bytes)) {
		(void)clReleaseMemObject(mem);
		return machine_failf(m, CARSH_E_DEVICE,
		                     "carsh_buffer_new: filling %zu bytes with zeros failed",
		                     bytes);
	}
	*out = xcalloc(1, sizeof(**out));
	**out = (carsh_buffer){.m = m, .refs = 1, .mem = mem, .bytes = bytes};
	machine_ref(m);
	return 0;
}

static int buffer_range(carsh_buffer *b, const char *what, size_t offset, size_t bytes,
                        const void *p)
{
	if (!p)
		return machine_failf(b->m, CARSH_E_ARG, "%s: the memory is NULL", what);
	if (offset > b->bytes || bytes > b->bytes - offset)
		return machine_failf(b->m, CARSH_E_SIZE,
		                     "%s: %zu bytes at offset %zu: the buffer holds %zu", what,
		                     bytes, offset, b->bytes);
	return 0;
}

/* Blocking: after the device work queued before it that uses the buffer (machine_queue
 * keeps the machine's commands in order). */
static int buffer_move(carsh_buffer *b, bool write, size_t offset, void *p, size_t bytes)
{
	const char *what = write ? "carsh_buffer_write" : "carsh_buffer_read";
	cl_command_queue q;
	cl_int err;
	int rc = buffer_range(b, what, offset, bytes, p);

	if (rc || bytes == 0)
		return rc;
	q = machine_queue(b->m, false);
	err = write ? clEnqueueWriteBuffer(q, b->mem, CL_TRUE, offset, bytes, p, 0, NULL, NULL)
	            : clEnqueueReadBuffer(q, b->mem, CL_TRUE, offset, bytes, p, 0, NULL, NULL);
	if (err == CL_SUCCESS)
		return 0;
	return machine_failf(b->m, CARSH_E_DEVICE, "%s: %s", what, rt_cl_error_name(err));
}

int carsh_buffer_write(carsh_buffer *b, size_t offset, const void *src, size_t bytes)
{
	return b ? buffer_move(b, true, offset, (void *)src, bytes) : CARSH_E_ARG;
}

int carsh_buffer_read(carsh_buffer *b, size_t offset, void *dst, size_t bytes)
{
	return b ? buffer_move(b, false, offset, dst, bytes) : CARSH_E_ARG;
}
