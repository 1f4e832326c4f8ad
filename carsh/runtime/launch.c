/*
 * Running one kernel plan: discovery, device choice, context, build, buffers, the S+1
 * launches with the swap methods of 004 §5.2 (Figure 35: copy host, copy device, swap), and
 * the read-back. When statistics are wanted every command is profiled, and its time goes to
 * one phase of run_stats; otherwise no event is taken (on NVIDIA's driver an event costs as
 * much as a small kernel), and a plain launch of the thread executor goes to the device's
 * feeder.
 */
#include "runtime/runtime.h"
#include "runtime/feeder.h"
#include "runtime/image.h"
#include "runtime/localsize.h"
#include "runtime/session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/clock.h"

/* Events are waited for and released in batches, so that a loop of many thousand swaps does
 * not keep as many events alive. */
#define EVENT_BATCH 256

/* Up to this many arguments a launch's per-argument arrays are its own, not allocated. */
#define FEW_ARGS 16

enum phase { PH_H2D, PH_KERNEL, PH_SWAP, PH_D2H };

struct launch {
	const struct kernel_plan *kp;
	struct run_stats *st;
	const struct rt_devinfo *dev;
	cl_command_queue q;
	cl_kernel kern;
	size_t local[3]; /* the plan's local size, or the one local="device" chose */
	bool has_local;
	cl_mem *given;            /* per argument: the caller's buffer, or NULL */
	bool blocking_writes;     /* host data may be freed as soon as we return */
	bool profile;             /* an event for every command, for run_stats */
	bool args_kept;           /* the kernel holds its arguments already (rt_exec) */
	bool drained;             /* the queue was finished after the last command of ours */
	struct feed_launch *feed; /* the launch for the feeder, when it takes this one */
	size_t feed_used;         /* bytes of its value storage filled */
	cl_mem *in_place;         /* per argument: the buffer made on its host memory, or NULL */
	cl_mem *mem;              /* per argument: bound now; NULL for Constant and Local */
	cl_sampler *samplers;     /* per argument: a <Sampler>'s, made for this launch */
	unsigned char *scratch;   /* copy-host: the host side of the round trip */
	cl_event ev[EVENT_BATCH];
	enum phase ph[EVENT_BATCH];
	size_t nev;
	/* mem, in_place and samplers of a kernel with few arguments (most): a job allocates
	 * nothing for them. */
	cl_mem few_mem[2 * FEW_ARGS];
	cl_sampler few_samplers[FEW_ARGS];
};

/* Work queued and not waited for yet (see rt_exec.pending): its events, or without
 * profiling the device to finish. */
struct rt_pending {
	cl_event *ev;
	enum phase *ph;
	size_t nev;
	char *kernel;
	char *device;
	struct rt_dev *finish;
};

/* "kernel 'k' on DEV: WHAT failed: CL_..." */
static int cl_fail(const struct launch *L, struct cs_err *e, cl_int err, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

static int cl_fail(const struct launch *L, struct cs_err *e, cl_int err, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (L->dev)
		return err_set(e, "kernel '%s' on %s: %s failed: %s", L->kp->kernel, L->dev->name,
		               what, rt_cl_error_name(err));
	return err_set(e, "kernel '%s': %s failed: %s", L->kp->kernel, what, rt_cl_error_name(err));
}

/* ---- profiling events ---- */

static const char *phase_name(enum phase p)
{
	static const char *const names[] = {"host-to-device write", "kernel launch", "swap copy",
	                                    "device-to-host read"};
	return names[p];
}

static double *phase_ms(struct run_stats *st, enum phase p)
{
	switch (p) {
	case PH_H2D:
		return &st->h2d_ms;
	case PH_KERNEL:
		return &st->kernel_ms;
	case PH_SWAP:
		return &st->swap_ms;
	case PH_D2H:
		break;
	}
	return &st->d2h_ms;
}

static int event_time(struct launch *L, cl_event ev, enum phase p, struct cs_err *e)
{
	cl_ulong t0, t1;
	cl_int status;
	cl_int err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status,
	                            NULL);

	if (err != CL_SUCCESS)
		return cl_fail(L, e, err, "clGetEventInfo");
	if (status < 0)
		return cl_fail(L, e, status, "a %s", phase_name(p));
	err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, NULL);
	if (err == CL_SUCCESS)
		err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, NULL);
	if (err != CL_SUCCESS)
		return cl_fail(L, e, err, "clGetEventProfilingInfo");
	*phase_ms(L->st, p) += t1 >= t0 ? (double)(t1 - t0) / 1e6 : 0.0;
	return 0;
}

/* Wait for the pending events, add their times, release them (all of them, even when one
 * reports an error). */
static int events_flush(struct launch *L, struct cs_err *e)
{
	int rc = 0;
	cl_int err;

	if (L->nev == 0)
		return 0;
	err = clWaitForEvents((cl_uint)L->nev, L->ev);
	/* On CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST the failed event says which one. */
	if (err != CL_SUCCESS && err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
		rc = cl_fail(L, e, err, "clWaitForEvents");
	for (size_t i = 0; i < L->nev; i++) {
		if (rc == 0 && event_time(L, L->ev[i], L->ph[i], e) != 0)
			rc = -1;
		/* A release failure cannot be acted upon, and the event is gone either way. */
		(void)clReleaseEvent(L->ev[i]);
	}
	L->nev = 0;
	if (rc == 0 && err != CL_SUCCESS)
		rc = cl_fail(L, e, err, "clWaitForEvents");
	return rc;
}

/* Where a command's event goes: nowhere without profiling. */
static cl_event *event_slot(const struct launch *L, cl_event *ev)
{
	return L->profile ? ev : NULL;
}

static int event_add(struct launch *L, cl_event ev, enum phase p, struct cs_err *e)
{
	if (!L->profile)
		return 0;
	L->ev[L->nev] = ev;
	L->ph[L->nev] = p;
	L->nev++;
	return L->nev == EVENT_BATCH ? events_flush(L, e) : 0;
}

/* ---- checks before any buffer exists: a clear message instead of a CL error code ---- */

/* The first Local argument's line: where local memory is asked for. */
static int first_local_line(const struct kernel_plan *kp)
{
	for (size_t i = 0; i < kp->nargs; i++)
		if (kp->args[i].kind == ARG_LOCAL)
			return kp->args[i].line;
	return kp->args_line;
}

static int check_streams(struct launch *L, cl_context ctx, struct cs_err *e)
{
	const struct kernel_plan *kp = L->kp;
	cl_ulong local_mem, local_sum = 0;

	for (size_t i = 0; i < kp->nargs; i++) {
		const struct kernel_arg *a = &kp->args[i];

		if (a->image_dims && rt_image_check(ctx, L->dev, a, e))
			return kernel_plan_err_at(kp, a->line, e);

		if (arg_is_stream(a->kind) && a->bytes > L->dev->max_alloc) {
			err_set(e,
			        "stream '%s' needs %zu bytes; device '%s' allows at most "
			        "%llu per buffer",
			        a->name, a->bytes, L->dev->name,
			        (unsigned long long)L->dev->max_alloc);
			return kernel_plan_err_at(kp, a->line, e);
		}
		if (a->kind == ARG_LOCAL)
			local_sum += a->bytes;
	}
	local_mem = L->dev->local_mem;
	if (local_sum > local_mem) {
		err_set(e, "Local arguments need %llu bytes; device '%s' has %llu of local memory",
		        (unsigned long long)local_sum, L->dev->name, (unsigned long long)local_mem);
		return kernel_plan_err_at(kp, first_local_line(kp), e);
	}
	return 0;
}

static int check_local(struct launch *L, struct cs_err *e)
{
	const struct kernel_plan *kp = L->kp;
	size_t group = 1, kmax;
	cl_int err;

	for (unsigned d = 0; d < kp->dims; d++) {
		if (kp->local[d] == 0)
			return err_set(e, "local size 0 in dimension %u", d);
		if (kp->local[d] > L->dev->max_item_sizes[d])
			return err_set(e,
			               "local size %zu in dimension %u exceeds the maximum %zu of "
			               "device '%s'",
			               kp->local[d], d, L->dev->max_item_sizes[d], L->dev->name);
		if (kp->global[d] % kp->local[d] != 0)
			return err_set(e,
			               "work size %zu is not divisible by local size %zu in "
			               "dimension %u",
			               kp->global[d], kp->local[d], d);
		group *= kp->local[d];
	}
	err = clGetKernelWorkGroupInfo(L->kern, L->dev->device, CL_KERNEL_WORK_GROUP_SIZE,
	                               sizeof(kmax), &kmax, NULL);
	if (err != CL_SUCCESS)
		return cl_fail(L, e, err, "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
	if (group > L->dev->max_work_group || group > kmax)
		return err_set(e,
		               "a work-group of %zu work-items is too large: kernel '%s' on "
		               "device '%s' allows at most %zu",
		               group, kp->kernel, L->dev->name,
		               kmax < L->dev->max_work_group ? kmax : L->dev->max_work_group);
	return 0;
}

static int check_work(struct launch *L, struct cs_err *e)
{
	const struct kernel_plan *kp = L->kp;

	if (kp->dims < 1 || kp->dims > 3)
		return err_set(e, "work size has %u dimensions; 1 to 3 are possible", kp->dims);
	for (unsigned d = 0; d < kp->dims; d++)
		if (kp->global[d] == 0)
			return err_set(e, "work size 0 in dimension %u", d);
	if (kp->swap_count < 0)
		return err_set(e, "swap count %lld is negative", kp->swap_count);
	L->has_local = kp->has_local || kp->local_device;
	memcpy(L->local, kp->local, sizeof(L->local));
	if ((kp->has_local && check_local(L, e)) ||
	    (kp->local_device &&
	     rt_local_for_device(L->kern, L->dev, kp->dims, kp->global, L->local, e))) {
		if (kp->worksize_line)
			err_prefix(e, "<WorkSize>: ");
		return kernel_plan_err_at(kp, kp->worksize_line, e);
	}
	return 0;
}

/* Both sides of a pair are streams of one size, and an argument is in at most one pair:
 * with shared members, exchanging buffers and copying them would give different data. */
static int check_pairs(struct launch *L, struct cs_err *e)
{
	const struct kernel_plan *kp = L->kp;
	unsigned char few[FEW_ARGS] = {0};
	unsigned char *used = kp->nargs <= FEW_ARGS ? few : xcalloc(kp->nargs, 1);
	int rc = 0;

	for (size_t p = 0; p < kp->npairs && rc == 0; p++) {
		size_t in = kp->pairs[p].input, out = kp->pairs[p].output;

		if (in >= kp->nargs || out >= kp->nargs)
			rc = err_set(e, "swap pair %zu names argument %zu; the kernel has %zu", p,
			             in >= kp->nargs ? in : out, kp->nargs);
		else if (in == out || !arg_is_stream(kp->args[in].kind) ||
		         !arg_is_stream(kp->args[out].kind))
			rc = err_set(e, "swap pair '%s'/'%s': both must be different streams",
			             kp->args[in].name, kp->args[out].name);
		else if ((kp->args[in].image_dims || kp->args[out].image_dims) &&
		         (kp->swap_method != SWAP_SWAP ||
		          kp->args[in].image_dims != kp->args[out].image_dims ||
		          kp->args[in].image_order != kp->args[out].image_order ||
		          kp->args[in].image_type != kp->args[out].image_type ||
		          kp->args[in].width != kp->args[out].width ||
		          kp->args[in].height != kp->args[out].height))
			rc = err_set(
			        e,
			        "swap pair '%s'/'%s': images change places with "
			        "method=\"swap\" only, and only with an image of the same size "
			        "and format",
			        kp->args[in].name, kp->args[out].name);
		else if (kp->args[in].bytes != kp->args[out].bytes)
			rc = err_set(e,
			             "swap pair '%s'/'%s': sizes differ (%zu and %zu bytes); "
			             "swapped streams must have the same size",
			             kp->args[in].name, kp->args[out].name, kp->args[in].bytes,
			             kp->args[out].bytes);
		else if (used[in] || used[out])
			rc = err_set(e, "argument '%s' is in more than one swap pair",
			             kp->args[used[in] ? in : out].name);
		else
			used[in] = used[out] = 1;
	}
	if (used != few)
		free(used);
	return rc;
}

/* ---- buffers and arguments ---- */

static int set_stream_arg(struct launch *L, size_t i, struct cs_err *e)
{
	cl_int err;

	if (L->feed) { /* a given buffer, borrowed (runtime/feeder.h) */
		L->feed->args[i] = (struct feed_arg){FEED_MEM, sizeof(cl_mem), L->mem[i], NULL};
		return 0;
	}
	err = clSetKernelArg(L->kern, (cl_uint)i, sizeof(cl_mem), &L->mem[i]);

	if (err != CL_SUCCESS)
		return cl_fail(L, e, err, "clSetKernelArg(%zu, '%s')", i, L->kp->args[i].name);
	return 0;
}

static bool in_a_pair(const struct kernel_plan *kp, size_t i)
{
	for (size_t p = 0; p < kp->npairs; p++)
		if (kp->pairs[p].input == i || kp->pairs[p].output == i)
			return true;
	return false;
}

/* A CPU device can work on a virtual buffer's shared memory itself: no copy in, no copy
 * out. Not for swap pairs: copy-device writes into the input, which is mapped read-only. */
static bool use_in_place(const struct launch *L, size_t i)
{
	const struct kernel_arg *a = &L->kp->args[i];

	return a->host_shared && !a->image_dims && (L->dev->type & CL_DEVICE_TYPE_CPU) &&
	       !in_a_pair(L->kp, i);
}

static int create_in_place(struct launch *L, cl_context ctx, size_t i, struct cs_err *e)
{
	const struct kernel_arg *a = &L->kp->args[i];
	cl_int err;

	L->mem[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, a->bytes, a->host,
	                           &err);
	if (err != CL_SUCCESS) {
		L->mem[i] = NULL;
		return cl_fail(L, e, err, "clCreateBuffer(CL_MEM_USE_HOST_PTR) for stream '%s'",
		               a->name);
	}
	L->in_place[i] = L->mem[i];
	return 0;
}

/* An image bound to a virtual buffer: its pixels come from the buffer's device copy (an
 * Output too, which starts as its buffer, as a buffer-bound Output does). */
static int image_from_given(struct launch *L, size_t i, struct cs_err *e)
{
	cl_event ev = NULL;
	cl_int err = rt_image_from_buffer(L->q, L->given[i], L->mem[i], &L->kp->args[i],
	                                  event_slot(L, &ev));

	if (err != CL_SUCCESS)
		return cl_fail(L, e, err, "clEnqueueCopyBufferToImage for stream '%s'",
		               L->kp->args[i].name);
	return event_add(L, ev, PH_H2D, e);
}

/* ... and written back into it after the runs: the buffer stays the caller's. */
static int images_to_given(struct launch *L, struct cs_err *e)
{
	for (size_t i = 0; L->given && i < L->kp->nargs; i++) {
		const struct kernel_arg *a = &L->kp->args[i];
		cl_event ev = NULL;
		cl_int err;

		if (!a->image_dims || !L->given[i] || !arg_is_written(a->kind))
			continue;
		err = rt_image_to_buffer(L->q, L->mem[i], L->given[i], a, event_slot(L, &ev));
		if (err != CL_SUCCESS)
			return cl_fail(L, e, err, "clEnqueueCopyImageToBuffer of stream '%s'",
			               a->name);
		if (event_add(L, ev, PH_D2H, e) != 0)
			return -1;
	}
	return 0;
}

static int create_stream(struct launch *L, cl_context ctx, size_t i, struct cs_err *e)
{
	const struct kernel_arg *a = &L->kp->args[i];
	cl_event ev = NULL;
	cl_int err;

	if (L->given && L->given[i] && !a->image_dims) {
		L->mem[i] = L->given[i]; /* the caller's: borrowed, no OpenCL call (see given) */
		return 0;
	}
	if (use_in_place(L, i))
		return create_in_place(L, ctx, i, e);
	if (a->image_dims)
		L->mem[i] = rt_image_create(ctx, a, &err);
	else
		L->mem[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, a->bytes, NULL, &err);
	if (err != CL_SUCCESS) {
		L->mem[i] = NULL;
		return cl_fail(L, e, err, "%s for stream '%s' (%zu bytes)",
		               a->image_dims ? "clCreateImage" : "clCreateBuffer", a->name,
		               a->bytes);
	}
	if (a->image_dims && L->given && L->given[i])
		return image_from_given(L, i, e);
	if (a->kind == ARG_OUTPUT && !a->host_start)
		return 0;
	if (!a->host)
		return err_set(e, "%s '%s' has no data", arg_kind_name(a->kind), a->name);
	if (a->image_dims)
		err = rt_image_write(L->q, L->mem[i], a, L->blocking_writes, a->host,
		                     event_slot(L, &ev));
	else
		err = clEnqueueWriteBuffer(L->q, L->mem[i], L->blocking_writes ? CL_TRUE : CL_FALSE,
		                           0, a->bytes, a->host, 0, NULL, event_slot(L, &ev));
	if (err != CL_SUCCESS)
		return cl_fail(L, e, err, "%s for stream '%s'",
		               a->image_dims ? "clEnqueueWriteImage" : "clEnqueueWriteBuffer",
		               a->name);
	return event_add(L, ev, PH_H2D, e);
}

/* Values go one after the other into the launch's storage (sized by value_bytes). */
static int feed_value_arg(struct launch *L, size_t i, size_t bytes, const void *value)
{
	struct feed_arg *a = &L->feed->args[i];

	*a = (struct feed_arg){value ? FEED_VALUE : FEED_LOCAL, bytes, NULL, NULL};
	if (value) {
		memcpy(L->feed->values + L->feed_used, value, bytes);
		a->value = L->feed->values + L->feed_used;
		L->feed_used += bytes;
	}
	return 0;
}

/* A <Sampler>: made in the job's context, released with the launch's buffers. */
static int set_sampler_arg(struct launch *L, cl_context ctx, size_t i, struct cs_err *e)
{
	const struct kernel_arg *a = &L->kp->args[i];
	cl_int err;

	L->samplers[i] = rt_sampler_create(ctx, a, &err);
	if (err != CL_SUCCESS) {
		L->samplers[i] = NULL;
		return cl_fail(L, e, err, "clCreateSampler for '%s'", a->name);
	}
	err = clSetKernelArg(L->kern, (cl_uint)i, sizeof(cl_sampler), &L->samplers[i]);
	if (err != CL_SUCCESS)
		return cl_fail(L, e, err, "clSetKernelArg(%zu, Sampler '%s')", i, a->name);
	return 0;
}

static int set_value_arg(struct launch *L, size_t i, struct cs_err *e)
{
	const struct kernel_arg *a = &L->kp->args[i];
	/* Local: only the size, the memory is the work-group's. */
	const void *value = a->kind == ARG_LOCAL ? NULL : a->value;
	cl_int err;

	if (L->feed)
		return feed_value_arg(L, i, a->bytes, value);
	err = clSetKernelArg(L->kern, (cl_uint)i, a->bytes, value);

	if (err != CL_SUCCESS)
		return cl_fail(L, e, err, "clSetKernelArg(%zu, %s '%s', %zu bytes)", i,
		               arg_kind_name(a->kind), a->name, a->bytes);
	return 0;
}

static int launch_buffers(struct launch *L, cl_context ctx, struct cs_err *e)
{
	const struct kernel_plan *kp = L->kp;
	size_t scratch = 0;

	if (kp->nargs <= FEW_ARGS) { /* zeroed with the launch */
		L->mem = L->few_mem;
		L->in_place = L->few_mem + FEW_ARGS;
		L->samplers = L->few_samplers;
	} else {
		L->mem = xcalloc(kp->nargs, sizeof(*L->mem));
		L->in_place = xcalloc(kp->nargs, sizeof(*L->in_place));
		L->samplers = xcalloc(kp->nargs, sizeof(*L->samplers));
	}
	for (size_t i = 0; i < kp->nargs; i++) {
		int rc = arg_is_stream(kp->args[i].kind)
		                 ? create_stream(L, ctx, i, e) ||
		                           (!L->args_kept && set_stream_arg(L, i, e))
		         : kp->args[i].is_sampler ? set_sampler_arg(L, ctx, i, e)
		                                  : !L->args_kept && set_value_arg(L, i, e);

		if (rc != 0)
			return -1;
	}
	if (kp->swap_method != SWAP_COPY_HOST || kp->swap_count == 0)
		return 0;
	for (size_t p = 0; p < kp->npairs; p++)
		if (kp->args[kp->pairs[p].output].bytes > scratch)
			scratch = kp->args[kp->pairs[p].output].bytes;
	L->scratch = data_alloc(scratch, 1, "copy-host swap buffer", e);
	return L->scratch ? 0 : -1;
}

/* ---- the launches and the swaps between them ---- */

/* 004 §5.2 "swap": exchange the buffers by re-setting the arguments; no data moves. */
static int swap_rebind(struct launch *L, const struct swap_pair_idx *pr, struct cs_err *e)
{
	cl_mem t = L->mem[pr->input];

	L->mem[pr->input] = L->mem[pr->output];
	L->mem[pr->output] = t;
	if (set_stream_arg(L, pr->input, e) != 0 || set_stream_arg(L, pr->output, e) != 0)
		return -1;
	return 0;
}

/* 004 §5.2 "copy device": clEnqueueCopyBuffer output -> input, on the device. */
static int swap_copy_device(struct launch *L, const struct swap_pair_idx *pr, struct cs_err *e)
{
	size_t bytes = L->kp->args[pr->output].bytes;
	cl_event ev = NULL;
	cl_int err = clEnqueueCopyBuffer(L->q, L->mem[pr->output], L->mem[pr->input], 0, 0, bytes,
	                                 0, NULL, event_slot(L, &ev));

	if (err != CL_SUCCESS)
		return cl_fail(L, e, err, "clEnqueueCopyBuffer '%s' -> '%s'",
		               L->kp->args[pr->output].name, L->kp->args[pr->input].name);
	return event_add(L, ev, PH_SWAP, e);
}

/* 004 §5.2 "copy host": the output travels to host memory and back. Both transfers block,
 * so the data really is on the host in between, as in Figure 35(a), and the one scratch
 * buffer serves every pair. */
static int swap_copy_host(struct launch *L, const struct swap_pair_idx *pr, struct cs_err *e)
{
	const struct kernel_arg *in = &L->kp->args[pr->input], *out = &L->kp->args[pr->output];
	cl_event ev = NULL;
	cl_int err = clEnqueueReadBuffer(L->q, L->mem[pr->output], CL_TRUE, 0, out->bytes,
	                                 L->scratch, 0, NULL, event_slot(L, &ev));

	if (err != CL_SUCCESS)
		return cl_fail(L, e, err, "clEnqueueReadBuffer of '%s' for copy-host", out->name);
	if (event_add(L, ev, PH_SWAP, e) != 0)
		return -1;
	err = clEnqueueWriteBuffer(L->q, L->mem[pr->input], CL_TRUE, 0, in->bytes, L->scratch, 0,
	                           NULL, event_slot(L, &ev));
	if (err != CL_SUCCESS)
		return cl_fail(L, e, err, "clEnqueueWriteBuffer of '%s' for copy-host", in->name);
	return event_add(L, ev, PH_SWAP, e);
}

static int swap_one(struct launch *L, const struct swap_pair_idx *pr, struct cs_err *e)
{
	switch (L->kp->swap_method) {
	case SWAP_SWAP:
		return swap_rebind(L, pr, e);
	case SWAP_COPY_DEVICE:
		return swap_copy_device(L, pr, e);
	case SWAP_COPY_HOST:
		break;
	}
	return swap_copy_host(L, pr, e);
}

static int swap_all(struct launch *L, struct cs_err *e)
{
	const struct kernel_plan *kp = L->kp;
	double t0 = clock_ms();

	for (size_t p = 0; p < kp->npairs; p++)
		if (swap_one(L, &kp->pairs[p], e) != 0)
			return -1;
	/* Re-binding has no command to profile: the host clock measures it. */
	if (kp->swap_method == SWAP_SWAP)
		L->st->swap_ms += clock_ms() - t0;
	return 0;
}

static int launch_runs(struct launch *L, struct cs_err *e)
{
	const struct kernel_plan *kp = L->kp;

	for (long long r = 0; r <= kp->swap_count; r++) {
		cl_event ev = NULL;
		cl_int err = clEnqueueNDRangeKernel(L->q, L->kern, kp->dims, NULL, kp->global,
		                                    L->has_local ? L->local : NULL, 0, NULL,
		                                    event_slot(L, &ev));

		if (err != CL_SUCCESS)
			return cl_fail(L, e, err, "clEnqueueNDRangeKernel (run %lld of %lld)",
			               r + 1, kp->swap_count + 1);
		L->st->launches++;
		if (event_add(L, ev, PH_KERNEL, e) != 0)
			return -1;
		if (r < kp->swap_count && swap_all(L, e) != 0)
			return -1;
	}
	return 0;
}

/* Each output argument's current buffer holds its latest data (after a swap, that is the
 * buffer bound to it now). An Output without a host buffer (<Discard/>) is not read. */
/* The kernel wrote the host memory in place; mapping it is what OpenCL requires before the
 * host may read it (for PoCL's CPU device it moves nothing). */
static int sync_in_place(struct launch *L, size_t i, struct cs_err *e)
{
	const struct kernel_arg *a = &L->kp->args[i];
	cl_int err;
	void *p = clEnqueueMapBuffer(L->q, L->mem[i], CL_TRUE, CL_MAP_READ, 0, a->bytes, 0, NULL,
	                             NULL, &err);

	if (err != CL_SUCCESS)
		return cl_fail(L, e, err, "clEnqueueMapBuffer of stream '%s'", a->name);
	err = clEnqueueUnmapMemObject(L->q, L->mem[i], p, 0, NULL, NULL);
	if (err != CL_SUCCESS)
		return cl_fail(L, e, err, "clEnqueueUnmapMemObject of stream '%s'", a->name);
	return 0;
}

static int launch_read_back(struct launch *L, struct cs_err *e)
{
	const struct kernel_plan *kp = L->kp;
	cl_int err;

	for (size_t i = 0; i < kp->nargs; i++) {
		const struct kernel_arg *a = &kp->args[i];
		cl_event ev = NULL;

		if ((a->kind != ARG_OUTPUT && a->kind != ARG_INOUT) || !a->host ||
		    (L->given && L->given[i]))
			continue;
		if (L->in_place[i] && L->mem[i] == L->in_place[i]) {
			if (sync_in_place(L, i, e))
				return -1;
			continue;
		}
		if (a->image_dims)
			err = rt_image_read(L->q, L->mem[i], a, a->host, event_slot(L, &ev));
		else
			err = clEnqueueReadBuffer(L->q, L->mem[i], CL_FALSE, 0, a->bytes, a->host,
			                          0, NULL, event_slot(L, &ev));
		if (err != CL_SUCCESS)
			return cl_fail(L, e, err, "%s of stream '%s'",
			               a->image_dims ? "clEnqueueReadImage" : "clEnqueueReadBuffer",
			               a->name);
		if (event_add(L, ev, PH_D2H, e) != 0)
			return -1;
	}
	err = clFinish(L->q);
	if (err != CL_SUCCESS)
		return cl_fail(L, e, err, "clFinish");
	L->drained = true;
	return events_flush(L, e);
}

/* Every path ends here. Buffers are released (each holds one reference of ours: queued
 * commands keep theirs until they complete). With wait the queue is drained first, since a
 * pending transfer may still use the caller's host buffers. */
static bool is_given(const struct launch *L, cl_mem m)
{
	for (size_t i = 0; L->given && i < L->kp->nargs; i++)
		if (L->given[i] == m)
			return true;
	return false;
}

static void launch_release(struct launch *L, bool wait)
{
	feed_launch_free(L->feed);
	if (wait && L->q && !L->drained)
		(void)clFinish(L->q);
	for (size_t i = 0; i < L->nev; i++)
		(void)clReleaseEvent(L->ev[i]);
	L->nev = 0;
	/* Swaps move buffers between arguments: what is released is what was made here. */
	for (size_t i = 0; L->mem && i < L->kp->nargs; i++)
		if (L->mem[i] && !is_given(L, L->mem[i]))
			(void)clReleaseMemObject(L->mem[i]);
	for (size_t i = 0; L->samplers && i < L->kp->nargs; i++)
		if (L->samplers[i])
			(void)clReleaseSampler(L->samplers[i]);
	if (L->mem != L->few_mem) {
		free(L->mem);
		free(L->samplers);
		free(L->in_place);
	}
	free(L->scratch);
}

static bool has_host_sink(const struct kernel_plan *kp, cl_mem *const given)
{
	for (size_t i = 0; i < kp->nargs; i++)
		if (arg_is_written(kp->args[i].kind) && kp->args[i].host && !(given && given[i]))
			return true;
	return false;
}

/* The buffers bound at the end, for the caller's own arguments: one of given (borrowed), or
 * — after a swap with a stream of the runtime's — a buffer made here, with a reference. */
static void report_final(struct launch *L, cl_mem *final)
{
	for (size_t i = 0; final && i < L->kp->nargs; i++) {
		final[i] = NULL;
		if (!L->given || !L->given[i] || !L->mem[i])
			continue;
		if (L->kp->args[i].image_dims) { /* its image was copied back into it */
			final[i] = L->given[i];
			continue;
		}
		if (is_given(L, L->mem[i]) || clRetainMemObject(L->mem[i]) == CL_SUCCESS)
			final[i] = L->mem[i];
	}
}

static int keep_pending(struct launch *L, struct rt_exec *x)
{
	struct rt_pending *p;

	/* Without events only finishing the queue tells that the work is done. */
	if (!L->profile) {
		x->unfinished = x->dev;
		return 0;
	}
	p = xcalloc(1, sizeof(*p));
	/* The queue is in order: its last command completing means the whole job is done. */
	if (L->nev && clRetainEvent(L->ev[L->nev - 1]) == CL_SUCCESS)
		x->done = L->ev[L->nev - 1];
	if (L->nev) {
		p->ev = xmalloc(L->nev * sizeof(*p->ev));
		p->ph = xmalloc(L->nev * sizeof(*p->ph));
		memcpy(p->ev, L->ev, L->nev * sizeof(*L->ev));
		memcpy(p->ph, L->ph, L->nev * sizeof(*L->ph));
		p->kernel = xstrdup(L->kp->kernel);
		p->device = xstrdup(L->dev->name);
	}
	p->nev = L->nev;
	L->nev = 0;
	x->pending = p;
	return 0;
}

/* Every stream a buffer of the caller's, and no swaps: the buffers bound are given's. A
 * sampler, and an image copied from its buffer, are made for each launch, so their plan is
 * never one of these. */
static bool given_only(const struct rt_exec *x)
{
	if (x->kp->swap_count != 0 || !x->given)
		return false;
	for (size_t i = 0; i < x->kp->nargs; i++)
		if ((arg_is_stream(x->kp->args[i].kind) && !x->given[i]) ||
		    x->kp->args[i].is_sampler || x->kp->args[i].image_dims)
			return false;
	return true;
}

/* One plain launch, handed to the device's feeder (rt_exec.feed). */
static bool feedable(const struct rt_exec *x, bool wait)
{
	return x->feed && !wait && rt_feeder_wanted(x->dev->info) && given_only(x);
}

static struct feed_launch *feed_new(const struct rt_exec *x, const struct launch *L)
{
	const struct kernel_plan *kp = x->kp;
	size_t values = 0;
	struct feed_launch *fl;

	for (size_t i = 0; i < kp->nargs; i++)
		if (!arg_is_stream(kp->args[i].kind) && kp->args[i].kind != ARG_LOCAL)
			values += kp->args[i].bytes;
	fl = feed_launch_new((cl_uint)kp->nargs, values);
	fl->kernel = x->kern->k;
	fl->name = x->kern->name;
	fl->dims = kp->dims;
	fl->has_local = L->has_local;
	memcpy(fl->global, kp->global, sizeof(fl->global));
	memcpy(fl->local, L->local, sizeof(fl->local));
	return fl;
}

static int feed_run(struct launch *L, struct rt_exec *x, struct cs_err *e)
{
	struct feed_launch *fl = L->feed;

	L->feed = NULL;
	L->st->launches++;
	return rt_feed_launch(x->dev, fl, e);
}

int rt_execute(struct rt_exec *x, struct run_stats *st, struct cs_err *e)
{
	struct launch L = {.kp = x->kp,
	                   .st = st,
	                   .dev = x->dev->info,
	                   .kern = x->kern->k,
	                   .given = x->given,
	                   .profile = x->profile,
	                   .args_kept = x->args_kept && !x->feed && given_only(x)};
	bool wait = x->wait;
	int rc;

	x->pending = NULL;
	x->unfinished = NULL;
	x->done = NULL;
	pthread_mutex_lock(&x->kern->lock);
	rc = check_streams(&L, x->dev->ctx, e) || check_work(&L, e) || check_pairs(&L, e);
	if (rc == 0 && x->stage)
		rc = x->stage(x->stage_arg, e);
	/* Only after staging are the host buffers of the outputs known. */
	wait = wait || has_host_sink(x->kp, x->given);
	L.blocking_writes = !wait;
	if (rc == 0 && feedable(x, wait))
		L.feed = feed_new(x, &L);
	else
		L.q = x->q ? x->q : rt_dev_queue(x->dev); /* after what the feeder still has */
	if (rc == 0)
		rc = launch_buffers(&L, x->dev->ctx, e);
	if (rc == 0)
		rc = L.feed ? feed_run(&L, x, e) : launch_runs(&L, e) || images_to_given(&L, e);
	if (rc == 0)
		rc = wait ? launch_read_back(&L, e) : keep_pending(&L, x);
	if (rc == 0)
		report_final(&L, x->final);
	pthread_mutex_unlock(&x->kern->lock);
	launch_release(&L, wait || rc != 0);
	if (rc != 0)
		kernel_plan_err_label(x->kp, e);
	return rc ? -1 : 0;
}

struct rt_pending *rt_pending_finish(struct rt_dev *d)
{
	struct rt_pending *p = xcalloc(1, sizeof(*p));

	p->finish = d;
	return p;
}

bool rt_pending_finishes(const struct rt_pending *p, const struct rt_dev *d)
{
	return p->finish == d;
}

int rt_pending_harvest(struct rt_pending *p, struct run_stats *st, struct cs_err *e)
{
	struct launch L = {.st = st, .nev = p->nev};
	struct kernel_plan kp = {.kernel = p->kernel};
	struct cs_err dev_err;
	struct rt_devinfo dev;
	int rc;

	snprintf(dev.name, sizeof(dev.name), "%s", p->device ? p->device : "");
	L.kp = &kp;
	L.dev = &dev;
	L.profile = true;
	if (p->nev) {
		memcpy(L.ev, p->ev, p->nev * sizeof(*p->ev));
		memcpy(L.ph, p->ph, p->nev * sizeof(*p->ph));
	}
	rc = events_flush(&L, e);
	if (p->finish && rt_dev_finish(p->finish, rc ? &dev_err : e) && rc == 0)
		rc = -1;
	free(p->ev);
	free(p->ph);
	free(p->kernel);
	free(p->device);
	free(p);
	return rc;
}

int rt_run_plan_on(struct rt_session *s, const struct kernel_plan *kp, rt_stage_fn stage,
                   void *stage_arg, struct run_stats *st, struct cs_err *e)
{
	struct rt_exec x = {
	        .kp = kp, .wait = true, .profile = true, .stage = stage, .stage_arg = stage_arg};
	double t0 = clock_ms();
	int rc;

	memset(st, 0, sizeof(*st));
	rc = rt_session_device(s, kp, &x.dev, st, e);
	if (rc == 0)
		rc = rt_session_kernel(s, x.dev, kp, &x.kern, st, e);
	if (rc == 0)
		rc = rt_execute(&x, st, e);
	else
		kernel_plan_err_label(kp, e);
	st->wall_ms = clock_ms() - t0;
	return rc ? -1 : 0;
}

int rt_run_plan(const struct kernel_plan *kp, rt_stage_fn stage, void *stage_arg,
                struct run_stats *st, struct cs_err *e)
{
	struct rt_session *s = rt_session_new();
	int rc = rt_run_plan_on(s, kp, stage, stage_arg, st, e);

	rt_session_free(s);
	return rc;
}
