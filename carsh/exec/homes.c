/* The process executor's side of resident buffers (exec/homes.h). */
#include "exec/homes.h"

#include <stdlib.h>
#include <string.h>

#include "data/vbuf.h"
#include "data/vpixels.h"
#include "util/clock.h"

static bool bound(const struct job_plan *jp, size_t i)
{
	return jp->binds[i].how == BIND_BUFFER && jp->binds[i].shm;
}

uint64_t homes_holder(struct vhome *h, const struct job_plan *jp)
{
	uint64_t both = 0;

	/* A buffer that is on a device only weighs most: another worker would need it
	 * written back. */
	for (size_t i = 0; h && i < jp->kp.nargs; i++) {
		struct vhome_state st;

		if (!bound(jp, i))
			continue;
		vhome_get(h, jp->binds[i].shm, &st);
		if (st.where == VHOME_DEVICE)
			return st.holder;
		if (st.where == VHOME_BOTH && !both)
			both = st.holder;
	}
	return both;
}

/* The holder's copy written back to shared memory; a holder that cannot (it ended) loses
 * the buffer. */
static int write_back(struct vhome *h, struct workers *w, const char *shm, const char *name,
                      const struct vhome_state *st, struct cs_err *e)
{
	int rc = workers_write_back(w, st->holder, shm, st->gen, e);

	if (rc == 0) {
		vhome_host_current(h, shm);
		return 0;
	}
	/* A worker that is gone took all it held; one that could not write this buffer back
	 * lost this one. */
	if (rc == -2)
		vhome_device_failed(h, shm, st->holder, e->msg);
	else
		vhome_holder_ended(h, st->holder, e->msg);
	return vhome_check(h, shm, name, e);
}

static int prepare_one(struct vhome *h, struct workers *w, uint64_t serial, const char *shm,
                       const char *name, bool reads, struct job_home *home, double *d2h_ms,
                       struct cs_err *e)
{
	struct vhome_state st;
	double t0;

	if (vhome_check(h, shm, name, e))
		return -1;
	vhome_get(h, shm, &st);
	home->gen = st.gen;
	home->here = (st.where == VHOME_DEVICE || st.where == VHOME_BOTH) && st.holder == serial;
	if (!home->here && st.where != VHOME_DEVICE && st.uniform) {
		home->uniform = st.uniform;
		memcpy(home->value, st.value, st.uniform);
	}
	if (!home->here && st.where != VHOME_DEVICE && st.pixels) {
		home->pixels = true;
		home->scalar = st.scalar;
	}
	if (home->here || st.where != VHOME_DEVICE || !reads)
		return 0;
	t0 = clock_ms();
	if (write_back(h, w, shm, name, &st, e))
		return -1;
	*d2h_ms += clock_ms() - t0;
	return 0;
}

int homes_prepare(struct vhome *h, struct workers *w, struct worker *wk, const struct job_plan *jp,
                  struct job_home *homes, double *d2h_ms, struct cs_err *e)
{
	bool any = false;

	for (size_t i = 0; i < jp->kp.nargs; i++) {
		const struct stream_bind *b = &jp->binds[i];

		homes[i] = (struct job_home){0};
		if (!bound(jp, i))
			continue;
		any = true;
		if (h && prepare_one(h, w, worker_serial(wk), b->shm, b->buffer,
		                     arg_is_read(jp->kp.args[i].kind), &homes[i], d2h_ms, e))
			return err_prefix(e, "%s: stream '%s': ", jp->kp.label,
			                  jp->kp.args[i].name);
	}
	/* Its device gets copies now, even if the job fails: they go when the pool ends. */
	if (any)
		worker_hold(wk);
	return 0;
}

void homes_settle(struct vhome *h, struct worker *wk, const struct job_plan *jp, int status,
                  bool launched, const char *device, const char *how)
{
	uint64_t serial = worker_serial(wk);

	if (!h)
		return;
	if (worker_dead(wk)) {
		vhome_holder_ended(h, serial, how);
		return;
	}
	for (size_t i = 0; i < jp->kp.nargs; i++) {
		const char *shm = jp->binds[i].shm;

		if (!bound(jp, i))
			continue;
		/* A job that failed before its kernels ran changed nothing; after, what it
		 * wrote on the device is not to be trusted. Shared memory it never writes. */
		if (status != 0 && launched && arg_is_written(jp->kp.args[i].kind))
			vhome_device_failed(h, shm, serial, how);
		if (status != 0)
			continue;
		if (arg_is_written(jp->kp.args[i].kind))
			vhome_device_wrote(h, shm, serial, device);
		else
			vhome_device_read(h, shm, serial, device);
	}
}

void homes_assume(struct vhome *h, struct worker *wk, const struct job_plan *jp,
                  struct vhome_state *before)
{
	uint64_t serial = worker_serial(wk);

	/* A buffer bound to two streams: the second's state before is the first's after;
	 * homes_undo restores from the last back, so it ends at the first's before. */
	for (size_t i = 0; i < jp->kp.nargs; i++)
		if (bound(jp, i))
			vhome_device_use(h, jp->binds[i].shm, serial,
			                 arg_is_written(jp->kp.args[i].kind), &before[i]);
}

void homes_undo(struct vhome *h, const struct job_plan *jp, const struct vhome_state *before)
{
	for (size_t i = jp->kp.nargs; i-- > 0;)
		if (bound(jp, i))
			vhome_restore(h, jp->binds[i].shm, &before[i]);
}

int homes_check_plan(struct vhome *h, const struct job_plan *jp, struct cs_err *e)
{
	for (size_t i = 0; h && i < jp->kp.nargs; i++)
		if (bound(jp, i) && vhome_check(h, jp->binds[i].shm, jp->binds[i].buffer, e))
			return err_prefix(e, "%s: stream '%s': ", jp->kp.label,
			                  jp->kp.args[i].name);
	return 0;
}

int homes_value_to_host(struct vhome *h, const char *shm, const char *name, struct cs_err *e)
{
	struct vhome_state st;

	if (!h)
		return 0;
	vhome_get(h, shm, &st);
	if (!st.value_only)
		return 0;
	if (vbuf_fill_pattern(shm, st.value, st.uniform, e))
		return err_prefix(e, "virtual buffer '%s': ", name);
	vhome_host_value_written(h, shm);
	return 0;
}

int homes_to_host(struct vhome *h, struct workers *w, const char *shm, const char *name,
                  struct cs_err *e)
{
	struct vhome_state st;

	if (!h)
		return 0;
	if (vhome_check(h, shm, name, e))
		return -1;
	vhome_get(h, shm, &st);
	if (st.pixels) {
		if (vpixels_widen(shm, st.scalar, e))
			return err_prefix(e, "virtual buffer '%s': ", name);
		vhome_host_widened(h, shm);
		return 0;
	}
	if (st.value_only)
		return homes_value_to_host(h, shm, name, e);
	if (st.where != VHOME_DEVICE)
		return 0;
	return write_back(h, w, shm, name, &st, e);
}

int homes_pixels(struct vhome *h, struct workers *w, const char *shm, const char *name, bool narrow,
                 struct cs_err *e)
{
	struct vhome_state st;
	struct cs_err why;
	int rc;

	if (!h)
		return 0;
	if (vhome_check(h, shm, name, e))
		return -1;
	vhome_get(h, shm, &st);
	if (st.pixels)
		return 1;
	if (!narrow || st.where != VHOME_DEVICE)
		return 0;
	/* A worker that could not (its device has no use for the kernels, say) still holds
	 * the copy, and writes it back as usual; one that ended took it. */
	rc = workers_narrow(w, st.holder, shm, st.gen, &why);
	if (rc == -1)
		vhome_holder_ended(h, st.holder, why.msg);
	return rc == 0 ? 1 : 0;
}

int homes_all_to_host(struct vhome *h, struct workers *w, struct cs_err *e)
{
	char **shms;
	size_t n = h ? vhome_on_devices(h, &shms) : 0;
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		if (rc == 0 && homes_to_host(h, w, shms[i], shms[i], e))
			rc = -1;
		free(shms[i]);
	}
	if (n)
		free(shms);
	return rc;
}
