/*
 * The embedding API's machines and virtual buffers (carsh.h; docs/api.md): what every
 * machine's handle has (its lock, references and error), the public calls over its ops
 * (api-open.c makes local machines, api-remote.c the server's), and the buffers of a
 * machine on this process's device.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

	if (m->ops->opened(m))
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

void carsh_machine_free(carsh_machine *m)
{
	if (!m || __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	m->ops->close(m);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

const char *carsh_machine_last_error(const carsh_machine *m)
{
	return m ? m->err.msg : "no machine (NULL)";
}

cl_command_queue machine_queue(carsh_machine *m, bool profiling)
{
	cl_command_queue q = profiling ? rt_dev_queue(m->dev) : m->q;
	cl_command_queue last = __atomic_exchange_n(&m->last_q, q, __ATOMIC_ACQ_REL);

	if (last && last != q)
		(void)clFinish(last); /* its failures come back to whoever waits for its work */
	return q;
}

carsh_machine *machine_new(const struct machine_ops *ops)
{
	carsh_machine *m = xcalloc(1, sizeof(*m));

	pthread_mutex_init(&m->lock, NULL);
	m->refs = 1;
	m->ops = ops;
	return m;
}

int carsh_machine_device_count(carsh_machine *m, size_t *n)
{
	if (!m || !n)
		return m ? api_fail(&m->err, CARSH_E_ARG, "carsh_machine_device_count: n is NULL")
		         : CARSH_E_ARG;
	return m->ops->device_count(m, n);
}

int carsh_machine_device_info(carsh_machine *m, size_t i, struct carsh_device_info *out)
{
	if (!m || !out)
		return m ? api_fail(&m->err, CARSH_E_ARG, "carsh_machine_device_info: out is NULL")
		         : CARSH_E_ARG;
	return m->ops->device_info(m, i, out);
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
	int rc;

	if (out)
		*out = NULL;
	if (!m || !out)
		return m ? api_fail(&m->err, CARSH_E_ARG, "carsh_buffer_new: out is NULL")
		         : CARSH_E_ARG;
	if (machine_usable(m, "carsh_buffer_new"))
		return CARSH_E_STATE;
	pthread_mutex_lock(&m->lock);
	rc = m->ops->local_only(&m->err, "carsh_buffer_new");
	pthread_mutex_unlock(&m->lock);
	if (rc)
		return rc;
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
