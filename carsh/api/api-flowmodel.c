/*
 * The embedding API's flow-models (carsh.h; docs/api.md): the public calls over the
 * machine's ops, and the local machine's (local_flowmodel_ops): 004 Table 1's map and fire over
 * the runtime session, as the thread executor runs a plan (rt_execute), in the caller's own
 * thread. A fire queues the unmapping of the caller's memory and the launch, then a marker
 * whose completion is the fire's; the in-order queue of the device does the rest, so that
 * firing asynchronously needs no thread. Fires queue behind each other as OpenCL's commands
 * do (a hand loop that synchronises at the end): the caller's memory is mapped back once,
 * when the wait (or a test that finds the last fire done) ends them all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api-int.h"
#include "data/types.h"
#include "model/planner.h"
#include "model/xml.h"
#include "util/alloc.h"
#include "util/clock.h"

static carsh_flowmodel *fm_new(carsh_machine *m, struct flowmodel *f)
{
	carsh_flowmodel *fm = xcalloc(1, sizeof(*fm));
	size_t n = f->nargs ? f->nargs : 1;

	pthread_mutex_init(&fm->lock, NULL);
	fm->refs = 1;
	fm->m = m;
	machine_ref(m);
	fm->fm = f;
	fm->streams = xcalloc(n, sizeof(*fm->streams));
	fm->given = xcalloc(n, sizeof(*fm->given));
	return fm;
}

static int flowmodel_parse(const char *xml, const char *name, struct flowmodel **f,
                           struct cs_err *e)
{
	struct xml_doc d;
	struct xml_ctx x;
	xmlNodePtr root;
	int rc;

	if (xml_load_memory(xml, strlen(xml), name, &d, e))
		return -1;
	x = (struct xml_ctx){d.file, d.dir, e};
	root = xmlDocGetRootElement(d.doc);
	if (!xml_is(root, "FlowModel"))
		rc = xml_err(&x, root, "expected a <FlowModel>");
	else
		rc = flowmodel_from_node(&x, root, f);
	xml_free(&d);
	return rc;
}

static int local_make(carsh_machine *m, const char *path, const char *xml, const char *name,
                      carsh_flowmodel **out)
{
	struct flowmodel *f = NULL;
	struct cs_err e;

	if (path ? flowmodel_read(path, &f, &e)
	         : flowmodel_parse(xml, name ? name : "<string>", &f, &e))
		return machine_fail(m, CARSH_E_FILE, &e);
	*out = fm_new(m, f);
	return 0;
}

int carsh_flowmodel_from_file(carsh_machine *m, const char *path, carsh_flowmodel **out)
{
	if (out)
		*out = NULL;
	if (!m)
		return CARSH_E_ARG;
	if (!path || !out)
		return machine_failf(m, CARSH_E_ARG, "carsh_flowmodel_from_file: %s is NULL",
		                     path ? "out" : "path");
	if (machine_usable(m, "carsh_flowmodel_from_file"))
		return CARSH_E_STATE;
	return m->ops->fm->make(m, path, NULL, NULL, out);
}

int carsh_flowmodel_from_string(carsh_machine *m, const char *xml, const char *name,
                                carsh_flowmodel **out)
{
	if (out)
		*out = NULL;
	if (!m)
		return CARSH_E_ARG;
	if (!xml || !out)
		return machine_failf(m, CARSH_E_ARG, "carsh_flowmodel_from_string: %s is NULL",
		                     xml ? "out" : "xml");
	if (machine_usable(m, "carsh_flowmodel_from_string"))
		return CARSH_E_STATE;
	return m->ops->fm->make(m, NULL, xml, name, out);
}

const char *carsh_flowmodel_last_error(const carsh_flowmodel *fm)
{
	return fm ? fm->err.msg : "no flow-model (NULL)";
}

void flowmodel_ref(carsh_flowmodel *fm)
{
	__atomic_add_fetch(&fm->refs, 1, __ATOMIC_RELAXED);
}

/* ---- planning: parameters to a kernel plan ---- */

/* Every stream only sized: its memory is bound here. */
static int fm_plan(carsh_flowmodel *fm, struct cs_err *e)
{
	struct plan_env env = {.device_cli = fm->m->device_index};

	if (fm->jp)
		return 0;
	return plan_flowmodel(fm->fm, &fm->params, &env, &fm->jp, e) ? CARSH_E_ARG : 0;
}

static void names_of(const struct flowmodel *f, bool streams, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < (streams ? f->nargs : f->params.n); i++) {
		const char *name = streams ? f->args[i].name : f->params.v[i].name;

		if (streams && !arg_is_stream(f->args[i].kind))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " " : "", name);
		if (used >= len)
			break;
	}
}

int fm_stream_locked(carsh_flowmodel *fm, const char *name, size_t *idx, struct cs_err *e)
{
	const struct fm_arg *a = name ? flowmodel_arg(fm->fm, name, idx) : NULL;
	char names[512];

	if (!name)
		return api_fail(e, CARSH_E_ARG, "%s: the stream's name is NULL", fm->fm->file);
	if (!a || !arg_is_stream(a->kind)) {
		names_of(fm->fm, true, names, sizeof(names));
		return api_fail(e, CARSH_E_NAME, "%s: no stream '%s' (streams: %s)", fm->fm->file,
		                name, names);
	}
	return fm_plan(fm, e);
}

static int local_set_param(carsh_flowmodel *fm, const char *name, const char *value)
{
	struct job_plan *old;
	char names[512];
	int rc = 0;

	pthread_mutex_lock(&fm->lock);
	if (!name || !value)
		rc = api_fail(&fm->err, CARSH_E_ARG, "carsh_flowmodel_set_param: NULL %s",
		              name ? "value" : "name");
	else if (!params_get(&fm->fm->params, name)) {
		names_of(fm->fm, false, names, sizeof(names));
		rc = api_fail(&fm->err, CARSH_E_NAME, "%s: no parameter '%s' (parameters: %s)",
		              fm->fm->file, name, names);
	} else if (fm->in_flight)
		rc = api_fail(&fm->err, CARSH_E_STATE,
		              "%s: a fire is in flight: carsh_flowmodel_wait first", fm->fm->file);
	if (rc == 0) {
		struct params before = PARAMS_INIT;

		params_copy(&before, &fm->params);
		params_set(&fm->params, name, value, "carsh_flowmodel_set_param");
		old = fm->jp;
		fm->jp = NULL;
		rc = fm_plan(fm, &fm->err);
		if (rc) { /* the flow-model stays as it was */
			params_free(&fm->params);
			fm->params = before;
			fm->jp = old;
		} else {
			params_free(&before);
			job_plan_free(old);
			fm->args_kept = false;
		}
	}
	pthread_mutex_unlock(&fm->lock);
	return rc;
}

static int local_stream_bytes(carsh_flowmodel *fm, const char *stream, size_t *bytes)
{
	size_t i;
	int rc;

	pthread_mutex_lock(&fm->lock);
	rc = fm_stream_locked(fm, stream, &i, &fm->err);
	if (rc == 0 && !bytes)
		rc = api_fail(&fm->err, CARSH_E_ARG, "carsh_flowmodel_stream_bytes: bytes is NULL");
	if (rc == 0)
		*bytes = fm->jp->kp.args[i].bytes;
	pthread_mutex_unlock(&fm->lock);
	return rc;
}

/* ---- binding ---- */

static int stream_map(carsh_flowmodel *fm, struct fm_stream *s, bool block, struct cs_err *e)
{
	cl_int err;
	void *p = clEnqueueMapBuffer(fm->q, s->mem, block ? CL_TRUE : CL_FALSE,
	                             CL_MAP_READ | CL_MAP_WRITE, 0, s->bytes, 0, NULL, NULL, &err);

	if (err != CL_SUCCESS)
		return api_fail(e, CARSH_E_DEVICE, "mapping the caller's memory back: %s",
		                rt_cl_error_name(err));
	/* OpenCL 1.2 (clEnqueueMapBuffer): a CL_MEM_USE_HOST_PTR buffer maps at host_ptr. */
	s->mapped = true;
	return p == s->host ? 0
	                    : api_fail(e, CARSH_E_DEVICE,
	                               "the device mapped the caller's memory "
	                               "elsewhere than at its own address");
}

static int stream_unmap(carsh_flowmodel *fm, struct fm_stream *s, struct cs_err *e)
{
	cl_int err;

	if (s->how != FM_MEMORY || !s->mapped)
		return 0;
	err = clEnqueueUnmapMemObject(fm->q, s->mem, s->host, 0, NULL, NULL);
	if (err != CL_SUCCESS)
		return api_fail(e, CARSH_E_DEVICE, "handing the caller's memory to the device: %s",
		                rt_cl_error_name(err));
	s->mapped = false;
	return 0;
}

/* The caller's memory is up to date when the queue is done: unmapping is the last use. */
static void stream_unbind(carsh_flowmodel *fm, size_t i)
{
	struct fm_stream *s = &fm->streams[i];
	struct cs_err ignored;

	fm->args_kept = false;
	if (s->how == FM_MEMORY) {
		fm->q = machine_queue(fm->m, fm->profile);
		(void)stream_unmap(fm, s, &ignored);
		(void)clFinish(fm->q);
		(void)clReleaseMemObject(s->mem);
	} else if (s->how == FM_BUFFER) {
		carsh_buffer_free(s->buf);
	}
	*s = (struct fm_stream){.how = FM_UNBOUND};
	fm->given[i] = NULL;
}

static int size_check(carsh_flowmodel *fm, size_t i, size_t bytes, struct cs_err *e)
{
	const struct kernel_arg *a = &fm->jp->kp.args[i];
	char tn[160];

	if (bytes == a->bytes)
		return 0;
	if (a->record)
		snprintf(tn, sizeof(tn), "struct %s of %zu bytes", a->record->name,
		         a->record->size);
	else
		type_name(a->type, tn, sizeof(tn));
	return api_fail(e, CARSH_E_SIZE, "%s: stream '%s' is %zu bytes (%zu %s), not %zu",
	                fm->fm->file, a->name, a->bytes, a->count, tn, bytes);
}

static int bind_check(carsh_flowmodel *fm, const char *stream, size_t bytes, size_t *i)
{
	int rc = fm_stream_locked(fm, stream, i, &fm->err);

	if (rc == 0 && fm->in_flight)
		rc = api_fail(&fm->err, CARSH_E_STATE,
		              "%s: a fire is in flight: carsh_flowmodel_wait first", fm->fm->file);
	if (rc == 0 && fm->in_pipeline)
		rc = api_fail(
		        &fm->err, CARSH_E_STATE,
		        "%s: a stage of an implemented pipeline: its streams are the pipeline's",
		        fm->fm->file);
	return rc ? rc : size_check(fm, *i, bytes, &fm->err);
}

static int bind_memory_locked(carsh_flowmodel *fm, size_t i, void *mem, size_t bytes)
{
	struct fm_stream *s = &fm->streams[i];
	cl_int err;
	cl_mem buf = clCreateBuffer(fm->m->dev->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes,
	                            mem, &err);

	if (err != CL_SUCCESS)
		return api_fail(&fm->err, CARSH_E_DEVICE,
		                "%s: stream '%s': clCreateBuffer(CL_MEM_USE_HOST_PTR): %s",
		                fm->fm->file, fm->fm->args[i].name, rt_cl_error_name(err));
	stream_unbind(fm, i);
	*s = (struct fm_stream){.how = FM_MEMORY, .host = mem, .bytes = bytes, .mem = buf};
	fm->given[i] = buf;
	fm->q = machine_queue(fm->m, fm->profile);
	if (stream_map(fm, s, true, &fm->err) == 0)
		return 0;
	stream_unbind(fm, i);
	return CARSH_E_DEVICE;
}

static int local_bind_memory(carsh_flowmodel *fm, const char *stream, void *mem, size_t bytes)
{
	size_t i;
	int rc;

	pthread_mutex_lock(&fm->lock);
	rc = bind_check(fm, stream, bytes, &i);
	if (rc == 0 && !mem)
		rc = api_fail(&fm->err, CARSH_E_ARG, "%s: stream '%s': the memory is NULL",
		              fm->fm->file, stream);
	if (rc == 0)
		rc = bind_memory_locked(fm, i, mem, bytes);
	pthread_mutex_unlock(&fm->lock);
	return rc;
}

int fm_bind_buffer_locked(carsh_flowmodel *fm, size_t i, carsh_buffer *b, struct cs_err *e)
{
	if (b->m != fm->m)
		return api_fail(e, CARSH_E_ARG, "%s: stream '%s': the buffer is another machine's",
		                fm->fm->file, fm->fm->args[i].name);
	buffer_ref(b);
	stream_unbind(fm, i);
	fm->streams[i] =
	        (struct fm_stream){.how = FM_BUFFER, .bytes = b->bytes, .mem = b->mem, .buf = b};
	fm->given[i] = b->mem;
	return 0;
}

int carsh_flowmodel_bind_buffer(carsh_flowmodel *fm, const char *stream, carsh_buffer *b)
{
	size_t i;
	int rc;

	if (!fm)
		return CARSH_E_ARG;
	pthread_mutex_lock(&fm->lock);
	rc = fm->m->ops->local_only(&fm->err, "carsh_flowmodel_bind_buffer");
	if (rc == 0 && !b)
		rc = api_fail(&fm->err, CARSH_E_ARG, "%s: the buffer is NULL", fm->fm->file);
	else if (rc == 0)
		rc = bind_check(fm, stream, b->bytes, &i);
	if (rc == 0)
		rc = fm_bind_buffer_locked(fm, i, b, &fm->err);
	pthread_mutex_unlock(&fm->lock);
	return rc;
}

/* ---- firing ---- */

/* Every stream bound, at the size the parameters give now (they may have changed). */
static int fire_check(carsh_flowmodel *fm, struct cs_err *e)
{
	int rc = fm_plan(fm, e);

	for (size_t i = 0; rc == 0 && i < fm->fm->nargs; i++) {
		if (!arg_is_stream(fm->fm->args[i].kind))
			continue;
		if (fm->streams[i].how == FM_UNBOUND)
			return api_fail(
			        e, CARSH_E_STATE,
			        "%s: stream '%s' is not bound: carsh_flowmodel_bind_memory or "
			        "carsh_flowmodel_bind_buffer first",
			        fm->fm->file, fm->fm->args[i].name);
		rc = size_check(fm, i, fm->streams[i].bytes, e);
	}
	return rc;
}

/* A kernel object of the session's program, the flow-model's alone (see own). */
static int own_kernel(carsh_flowmodel *fm, const struct rt_kernel *shared, struct cs_err *e)
{
	cl_program prog;
	cl_int err = clGetKernelInfo(shared->k, CL_KERNEL_PROGRAM, sizeof(prog), &prog, NULL);

	if (err == CL_SUCCESS)
		fm->own.k = clCreateKernel(prog, shared->name, &err);
	if (err != CL_SUCCESS) {
		fm->own.k = NULL;
		return api_fail(e, CARSH_E_DEVICE, "%s: kernel '%s': clCreateKernel failed: %s",
		                fm->fm->file, shared->name, rt_cl_error_name(err));
	}
	fm->own.name = shared->name;
	pthread_mutex_init(&fm->own.lock, NULL);
	fm->kern = &fm->own;
	return 0;
}

static int fm_kernel(carsh_flowmodel *fm, struct cs_err *e)
{
	struct rt_kernel *shared;
	int rc;

	if (fm->kern)
		return 0;
	rt_guest_builds(true);
	rc = rt_session_kernel(fm->m->rt, fm->m->dev, &fm->jp->kp, &shared, &fm->rs, e);
	rt_guest_builds(false);
	return rc ? CARSH_E_DEVICE : own_kernel(fm, shared, e);
}

/* The caller's memory back, queued (not blocking) after the work before it. */
static int map_all(carsh_flowmodel *fm, struct cs_err *e)
{
	int rc = 0;

	for (size_t i = 0; i < fm->fm->nargs; i++)
		if (fm->streams[i].how == FM_MEMORY && !fm->streams[i].mapped &&
		    stream_map(fm, &fm->streams[i], false, rc ? &(struct cs_err){""} : e))
			rc = CARSH_E_DEVICE;
	return rc;
}

static int fire_queue(carsh_flowmodel *fm, struct rt_pending **pending, struct cs_err *e)
{
	struct rt_exec x = {.dev = fm->m->dev,
	                    .kern = fm->kern,
	                    .kp = &fm->jp->kp,
	                    .given = fm->given,
	                    .profile = fm->profile,
	                    .q = fm->q,
	                    .args_kept = fm->args_kept};
	int rc = 0;

	for (size_t i = 0; i < fm->fm->nargs && rc == 0; i++)
		rc = stream_unmap(fm, &fm->streams[i], e);
	if (rc == 0 && rt_execute(&x, &fm->rs, e))
		rc = CARSH_E_DEVICE;
	fm->args_kept = rc == 0;
	*pending = x.pending;
	return rc;
}

static int fire_end(carsh_flowmodel *fm, struct cs_err *e);

/* The marker after the latest fire, for carsh_flowmodel_test: the queue is in order, so its
 * completion is every queued fire's. Made when a test first wants it, not at each fire (a
 * command more per fire); the wait finishes the queue. */
static void mark_last(carsh_flowmodel *fm)
{
	cl_event ev;

	if (fm->done)
		(void)clReleaseEvent(fm->done);
	fm->done = NULL;
	if (clEnqueueMarkerWithWaitList(fm->q, 0, NULL, &ev) == CL_SUCCESS)
		fm->done = ev;
}

/* Queued fires are ended first where the next cannot follow them: a full queue (as a full
 * OpenCL queue blocks), or another command queue (profiling turned on or off between). */
static int make_room(carsh_flowmodel *fm, cl_command_queue q, struct cs_err *e)
{
	if (fm->queued == 0 || (fm->queued < FM_QUEUE_MAX && q == fm->q))
		return 0;
	return fire_end(fm, e);
}

/* An asynchronous fire needs an event to test; a synchronous one finishes the queue. */
static int fire_begin(carsh_flowmodel *fm, bool async, struct cs_err *e)
{
	struct rt_pending *pending = NULL;
	cl_command_queue q;
	int rc = fire_check(fm, e);

	if (rc == 0)
		rc = fm_kernel(fm, e);
	q = rc ? NULL : machine_queue(fm->m, fm->profile);
	if (rc == 0)
		rc = make_room(fm, q, e);
	if (rc)
		return rc;
	fm->fire_start[fm->queued] = clock_ms();
	fm->q = q;
	rc = fire_queue(fm, &pending, e);
	if (rc) { /* what was queued is waited for, not left running; the failed fire not counted */
		if (pending)
			(void)rt_pending_harvest(pending, &fm->rs, &(struct cs_err){""});
		fm->in_flight = true;
		(void)fire_end(fm, &(struct cs_err){""});
		return rc;
	}
	fm->pending[fm->queued++] = pending;
	fm->in_flight = true;
	/* A test's marker comes after the latest fire, when one is wanted. */
	if (fm->done)
		(void)clReleaseEvent(fm->done);
	fm->done = NULL;
	/* A synchronous fire gives the memory back at once; queued ones, once, at the end. */
	if (async)
		(void)clFlush(fm->q);
	else if ((rc = map_all(fm, e)) != 0)
		(void)fire_end(fm, &(struct cs_err){""});
	return rc;
}

/* The queued fires are over: the caller's memory back, their profiles harvested, counted. */
static int fire_end(carsh_flowmodel *fm, struct cs_err *e)
{
	int rc = map_all(fm, e);
	cl_int err = clFinish(fm->q);
	double now;

	if (err != CL_SUCCESS && rc == 0)
		rc = api_fail(e, CARSH_E_DEVICE, "%s: the fire failed on the device: %s",
		              fm->fm->file, rt_cl_error_name(err));
	for (unsigned i = 0; i < fm->queued; i++) {
		if (fm->pending[i] &&
		    rt_pending_harvest(fm->pending[i], &fm->rs, rc ? &(struct cs_err){""} : e))
			rc = rc ? rc : CARSH_E_DEVICE;
		fm->pending[i] = NULL;
	}
	if (fm->done)
		(void)clReleaseEvent(fm->done);
	fm->done = NULL;
	now = clock_ms();
	for (unsigned i = 0; i < fm->queued; i++) {
		fm->last_fire_ms = now - fm->fire_start[i];
		fm->fire_ms += fm->last_fire_ms;
	}
	fm->fires += rc == 0 ? fm->queued : 0;
	fm->queued = 0;
	fm->in_flight = false;
	return rc;
}

int fm_fire_locked(carsh_flowmodel *fm, struct cs_err *e)
{
	int rc = fire_begin(fm, false, e);

	return rc ? rc : fire_end(fm, e);
}

static int local_fire(carsh_flowmodel *fm, bool async)
{
	int rc;

	pthread_mutex_lock(&fm->lock);
	rc = async ? fire_begin(fm, true, &fm->err) : fm_fire_locked(fm, &fm->err);
	pthread_mutex_unlock(&fm->lock);
	return rc;
}

static int local_wait(carsh_flowmodel *fm)
{
	int rc;

	pthread_mutex_lock(&fm->lock);
	rc = fm->in_flight ? fire_end(fm, &fm->err) : 0;
	pthread_mutex_unlock(&fm->lock);
	return rc;
}

static int local_test(carsh_flowmodel *fm, int *done)
{
	cl_int status = CL_COMPLETE;
	int rc = 0;

	pthread_mutex_lock(&fm->lock);
	if (!done)
		rc = api_fail(&fm->err, CARSH_E_ARG, "carsh_flowmodel_test: done is NULL");
	else if (fm->in_flight && !fm->done)
		mark_last(fm);
	if (rc == 0 && fm->in_flight && fm->done &&
	    (clFlush(fm->q) != CL_SUCCESS ||
	     clGetEventInfo(fm->done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status,
	                    NULL) != CL_SUCCESS))
		status = CL_COMPLETE; /* let the wait report it */
	if (rc == 0) {
		*done = !fm->in_flight || status == CL_COMPLETE || status < 0;
		if (fm->in_flight && *done)
			rc = fire_end(fm, &fm->err);
	}
	pthread_mutex_unlock(&fm->lock);
	return rc;
}

static int local_set_profiling(carsh_flowmodel *fm, int on)
{
	pthread_mutex_lock(&fm->lock);
	fm->profile = on != 0;
	pthread_mutex_unlock(&fm->lock);
	return 0;
}

static int local_stats(carsh_flowmodel *fm, struct carsh_stats *out)
{
	pthread_mutex_lock(&fm->lock);
	if (!out) {
		pthread_mutex_unlock(&fm->lock);
		return api_fail(&fm->err, CARSH_E_ARG, "carsh_flowmodel_stats: out is NULL");
	}
	*out = (struct carsh_stats){.fires = fm->fires,
	                            .launches = (unsigned long long)fm->rs.launches,
	                            .fire_ms = fm->fire_ms,
	                            .last_fire_ms = fm->last_fire_ms,
	                            .build_ms = fm->rs.build_ms,
	                            .cache_hit = fm->rs.cache_hit,
	                            .kernel_ms = fm->rs.kernel_ms};
	snprintf(out->device, sizeof(out->device), "%s", fm->m->dev->label);
	pthread_mutex_unlock(&fm->lock);
	return 0;
}

static void local_fini(carsh_flowmodel *fm)
{
	if (fm->in_flight)
		(void)fire_end(fm, &fm->err);
	for (size_t i = 0; i < fm->fm->nargs; i++)
		stream_unbind(fm, i);
	if (fm->own.k) {
		(void)clReleaseKernel(fm->own.k);
		pthread_mutex_destroy(&fm->own.lock);
	}
	job_plan_free(fm->jp);
	flowmodel_free(fm->fm);
	params_free(&fm->params);
	free(fm->streams);
	free(fm->given);
}

const struct flowmodel_ops local_flowmodel_ops = {
        .make = local_make,
        .fini = local_fini,
        .set_param = local_set_param,
        .stream_bytes = local_stream_bytes,
        .bind_memory = local_bind_memory,
        .fire = local_fire,
        .wait = local_wait,
        .test = local_test,
        .set_profiling = local_set_profiling,
        .stats = local_stats,
};

/* ---- the public calls: their arguments checked, the machine's ops called ---- */

int carsh_flowmodel_set_param(carsh_flowmodel *fm, const char *name, const char *value)
{
	if (!fm)
		return CARSH_E_ARG;
	return fm->m->ops->fm->set_param(fm, name, value);
}

int carsh_flowmodel_stream_bytes(carsh_flowmodel *fm, const char *stream, size_t *bytes)
{
	if (!fm)
		return CARSH_E_ARG;
	return fm->m->ops->fm->stream_bytes(fm, stream, bytes);
}

int carsh_flowmodel_bind_memory(carsh_flowmodel *fm, const char *stream, void *mem, size_t bytes)
{
	if (!fm)
		return CARSH_E_ARG;
	return fm->m->ops->fm->bind_memory(fm, stream, mem, bytes);
}

int carsh_flowmodel_fire(carsh_flowmodel *fm)
{
	if (!fm)
		return CARSH_E_ARG;
	return fm->m->ops->fm->fire(fm, false);
}

int carsh_flowmodel_fire_async(carsh_flowmodel *fm)
{
	if (!fm)
		return CARSH_E_ARG;
	return fm->m->ops->fm->fire(fm, true);
}

int carsh_flowmodel_wait(carsh_flowmodel *fm)
{
	if (!fm)
		return CARSH_E_ARG;
	return fm->m->ops->fm->wait(fm);
}

int carsh_flowmodel_test(carsh_flowmodel *fm, int *done)
{
	if (!fm)
		return CARSH_E_ARG;
	return fm->m->ops->fm->test(fm, done);
}

int carsh_flowmodel_set_profiling(carsh_flowmodel *fm, int on)
{
	if (!fm)
		return CARSH_E_ARG;
	return fm->m->ops->fm->set_profiling(fm, on);
}

int carsh_flowmodel_stats(carsh_flowmodel *fm, struct carsh_stats *out)
{
	if (!fm)
		return CARSH_E_ARG;
	return fm->m->ops->fm->stats(fm, out);
}

void carsh_flowmodel_free(carsh_flowmodel *fm)
{
	if (!fm || __atomic_sub_fetch(&fm->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	fm->m->ops->fm->fini(fm);
	pthread_mutex_destroy(&fm->lock);
	carsh_machine_free(fm->m);
	free(fm);
}
