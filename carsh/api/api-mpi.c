/*
 * CaravelaMPI in the embedding API (carsh.h; 004 §4.1, Table 4): a request is a receive, a
 * fire and a send, each phase started when the one before it has ended. The MPI calls are
 * mpi/ranks.c's guest side; a fire is the flow-model's own asynchronous fire, so a request
 * needs no thread: whoever waits for or tests a request moves every pending request on to
 * its next phase (004 §4.1.4: "it executes the next operations of those requests").
 *
 * A stream bound to caller memory is received into and sent from that memory in place (it
 * is the host's between fires); one bound to a carsh_buffer goes through a copy of the
 * request's, written to or read from the device between the phases.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api-int.h"
#include "util/alloc.h"
#include "mpi/ranks.h"

enum req_phase { PH_RECV, PH_FIRE, PH_SEND, PH_DONE };

/* One direction's messages: the transfers, and for each a buffer staged through x[i].data
 * (the request owns the copy and a reference) or NULL. */
struct req_side {
	size_t n;
	struct ranks_xfer *x;
	carsh_buffer **staged;
};

struct carsh_request {
	pthread_mutex_t lock; /* advancing it: its owner's wait and others' progress */
	struct carsh_request *next;
	carsh_flowmodel *fm;
	struct req_side recv, send;
	enum req_phase phase;
	struct ranks_req *mpi; /* the phase's messages in flight */
	int rc;
	struct cs_err err;
};

/* Every request not yet waited for: a flow-model has one at a time, and progress walks
 * them. */
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static carsh_request *pending;
static int world_size;

static __thread struct cs_err last_error;

static int mpi_fail(int code, const struct cs_err *e)
{
	snprintf(last_error.msg, sizeof(last_error.msg), "%s", e->msg);
	return code;
}

static int mpi_failf(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int mpi_failf(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error.msg, sizeof(last_error.msg), fmt, ap);
	va_end(ap);
	return code;
}

const char *carsh_mpi_last_error(void)
{
	return last_error.msg;
}

int carsh_mpi_init(int *rank, int *size)
{
	struct cs_err e;
	int n = 1;

	if (ranks_guest_start(rank, &n, &e))
		return mpi_fail(CARSH_E_MPI, &e);
	world_size = n;
	if (size)
		*size = n;
	return 0;
}

int carsh_mpi_finalize(void)
{
	struct cs_err e;
	int n = 0;

	pthread_mutex_lock(&pending_lock);
	for (carsh_request *r = pending; r; r = r->next)
		n++;
	pthread_mutex_unlock(&pending_lock);
	if (n)
		return mpi_failf(CARSH_E_STATE, "carsh_mpi_finalize: requests are pending: "
		                                "carsh_mpi_wait for them first");
	if (!ranks_guest_started())
		return 0;
	return ranks_guest_finish(&e) ? mpi_fail(CARSH_E_MPI, &e) : 0;
}

/* ---- making a request ---- */

static int stream_message(carsh_flowmodel *fm, const char *name, bool recv, struct ranks_xfer *x,
                          carsh_buffer **staged, struct cs_err *e)
{
	struct fm_stream *s;
	enum arg_kind k;
	size_t i;
	int rc = fm_stream_locked(fm, name, &i, e);

	if (rc)
		return rc;
	k = fm->fm->args[i].kind;
	s = &fm->streams[i];
	if (k != ARG_INOUT && k != (recv ? ARG_INPUT : ARG_OUTPUT))
		return api_fail(e, CARSH_E_ARG, "%s: stream '%s' is an %s: %s", fm->fm->file, name,
		                k == ARG_INPUT ? "Input" : "Output",
		                recv ? "a message is received into an Input or InOut"
		                     : "an Output or InOut is sent");
	if (s->how == FM_UNBOUND)
		return api_fail(e, CARSH_E_STATE,
		                "%s: stream '%s' is not bound: carsh_flowmodel_bind_memory or "
		                "carsh_flowmodel_bind_buffer first",
		                fm->fm->file, name);
	x->bytes = s->bytes;
	if (s->how == FM_MEMORY) {
		x->data = s->host;
		return 0;
	}
	x->data = xmalloc(s->bytes ? s->bytes : 1);
	*staged = s->buf;
	buffer_ref(s->buf);
	return 0;
}

static int message_check(const struct carsh_message *m, struct cs_err *e)
{
	if (m->rank < 0 || m->rank >= world_size)
		return api_fail(e, CARSH_E_ARG,
		                "a message to or from rank %d: the ranks are 0 to %d", m->rank,
		                world_size - 1);
	if (m->tag < 0 || m->tag > 32767)
		return api_fail(e, CARSH_E_ARG, "a message tagged %d: tags are 0 to 32767", m->tag);
	if (!m->stream && !m->data && m->bytes)
		return api_fail(e, CARSH_E_ARG, "a message of %zu bytes at NULL", m->bytes);
	return 0;
}

/* With fm's lock held: the transfers of one side. */
static int side_make(carsh_flowmodel *fm, const struct carsh_message *m, size_t n, bool recv,
                     struct req_side *side, struct cs_err *e)
{
	int rc = 0;

	if (n && !m)
		return api_fail(e, CARSH_E_ARG, "%zu messages at NULL", n);
	side->x = xcalloc(n ? n : 1, sizeof(*side->x));
	side->staged = xcalloc(n ? n : 1, sizeof(*side->staged));
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct ranks_xfer *x = &side->x[i];

		rc = message_check(&m[i], e);
		*x = (struct ranks_xfer){.data = m[i].data,
		                         .bytes = m[i].bytes,
		                         .peer = m[i].rank,
		                         .send = !recv,
		                         .tag = m[i].tag};
		if (rc == 0 && m[i].stream && !fm)
			rc = api_fail(
			        e, CARSH_E_ARG,
			        "a message names stream '%s', but the request has no flow-model",
			        m[i].stream);
		else if (rc == 0 && m[i].stream)
			rc = stream_message(fm, m[i].stream, recv, x, &side->staged[i], e);
		side->n = i + 1;
	}
	return rc;
}

static void side_free(struct req_side *side)
{
	for (size_t i = 0; i < side->n; i++)
		if (side->staged[i]) {
			free(side->x[i].data);
			carsh_buffer_free(side->staged[i]);
		}
	free(side->x);
	free(side->staged);
}

static void request_free(carsh_request *r)
{
	ranks_req_free(r->mpi);
	side_free(&r->recv);
	side_free(&r->send);
	carsh_flowmodel_free(r->fm);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* ---- the phases ---- */

static int staged_move(struct req_side *side, bool to_device, struct cs_err *e)
{
	for (size_t i = 0; i < side->n; i++) {
		carsh_buffer *b = side->staged[i];
		int rc;

		if (!b)
			continue;
		rc = to_device ? carsh_buffer_write(b, 0, side->x[i].data, side->x[i].bytes)
		               : carsh_buffer_read(b, 0, side->x[i].data, side->x[i].bytes);
		if (rc)
			return api_fail(e, rc, "%s", carsh_machine_last_error(b->m));
	}
	return 0;
}

static int fm_fail(carsh_request *r, int rc)
{
	return api_fail(&r->err, rc, "%s", carsh_flowmodel_last_error(r->fm));
}

/* Start the phase from, or the first after it that has something to do. */
static int enter(carsh_request *r, enum req_phase from)
{
	r->phase = from;
	if (r->phase == PH_RECV && r->recv.n)
		return ranks_guest_post(r->recv.x, r->recv.n, &r->mpi, &r->err) ? CARSH_E_MPI : 0;
	if (r->phase == PH_RECV)
		r->phase = PH_FIRE;
	if (r->phase == PH_FIRE && r->fm) {
		int rc = carsh_flowmodel_fire_async(r->fm);

		return rc ? fm_fail(r, rc) : 0;
	}
	if (r->phase == PH_FIRE)
		r->phase = PH_SEND;
	if (r->phase == PH_SEND && r->send.n) {
		int rc = staged_move(&r->send, false, &r->err);

		if (rc == 0 && ranks_guest_post(r->send.x, r->send.n, &r->mpi, &r->err))
			rc = CARSH_E_MPI;
		return rc;
	}
	r->phase = PH_DONE;
	return 0;
}

/* The messages of the phase in flight: *over when they are complete. */
static int messages_over(carsh_request *r, bool block, bool *over)
{
	int rc =
	        block ? ranks_guest_wait(r->mpi, &r->err) : ranks_guest_test(r->mpi, over, &r->err);

	if (rc)
		return CARSH_E_MPI;
	if (block)
		*over = true;
	if (*over) {
		ranks_req_free(r->mpi);
		r->mpi = NULL;
	}
	return 0;
}

/* Move r on as far as it goes now (or, with block, through its current phase). A failure
 * ends the request with its message. With r->lock held. */
static void advance(carsh_request *r, bool block)
{
	bool over = false;
	int done = 0, rc = 0;

	if (r->phase == PH_DONE)
		return;
	if (r->phase == PH_FIRE) {
		rc = block ? carsh_flowmodel_wait(r->fm) : carsh_flowmodel_test(r->fm, &done);
		if (rc)
			rc = fm_fail(r, rc);
		else if (block || done)
			rc = enter(r, PH_SEND);
	} else {
		rc = messages_over(r, block, &over);
		if (rc == 0 && over && r->phase == PH_RECV)
			rc = staged_move(&r->recv, true, &r->err);
		if (rc == 0 && over)
			rc = enter(r, r->phase + 1);
	}
	if (rc) {
		r->rc = rc;
		r->phase = PH_DONE;
	}
}

/* Every pending request but mine moves on; one that another thread advances now is left. */
static void progress_others(carsh_request *mine, bool *alone)
{
	*alone = true;
	pthread_mutex_lock(&pending_lock);
	for (carsh_request *r = pending; r; r = r->next) {
		if (r == mine)
			continue;
		*alone = false;
		if (pthread_mutex_trylock(&r->lock) == 0) {
			advance(r, false);
			pthread_mutex_unlock(&r->lock);
		}
	}
	pthread_mutex_unlock(&pending_lock);
}

static void unlist(carsh_request *r)
{
	pthread_mutex_lock(&pending_lock);
	for (carsh_request **p = &pending; *p; p = &(*p)->next)
		if (*p == r) {
			*p = r->next;
			break;
		}
	pthread_mutex_unlock(&pending_lock);
}

/* ---- the calls ---- */

/* Listed, and locked, before it is made: no other request on fm can start meanwhile, and no
 * other thread's progress touches it. It is made outside the list's lock, since a first
 * fire builds the program. */
static int request_list(carsh_request *r, carsh_flowmodel *fm)
{
	bool busy = false;

	pthread_mutex_lock(&pending_lock);
	for (carsh_request *p = pending; p && fm; p = p->next)
		busy |= p->fm == fm;
	if (!busy) {
		pthread_mutex_lock(&r->lock);
		if (fm)
			flowmodel_ref(fm);
		r->fm = fm;
		r->next = pending;
		pending = r;
	}
	pthread_mutex_unlock(&pending_lock);
	return busy ? mpi_failf(CARSH_E_STATE,
	                        "%s: a request on it is pending: carsh_mpi_wait for it first",
	                        fm->fm->file)
	            : 0;
}

/* With r->lock held: the messages, then the first phase. */
static int request_make(carsh_request *r, const struct carsh_message *recv, size_t nrecv,
                        const struct carsh_message *send, size_t nsend)
{
	int rc;

	if (r->fm)
		pthread_mutex_lock(&r->fm->lock);
	rc = side_make(r->fm, recv, nrecv, true, &r->recv, &r->err);
	if (rc == 0)
		rc = side_make(r->fm, send, nsend, false, &r->send, &r->err);
	if (r->fm)
		pthread_mutex_unlock(&r->fm->lock);
	return rc ? rc : enter(r, PH_RECV);
}

static int request_start(carsh_flowmodel *fm, const struct carsh_message *recv, size_t nrecv,
                         const struct carsh_message *send, size_t nsend, carsh_request **out)
{
	carsh_request *r;
	int rc;

	if (!out)
		return mpi_failf(CARSH_E_ARG, "carsh_mpi: the request pointer is NULL");
	*out = NULL;
	if (fm && fm->m->ops->local_only(&(struct cs_err){""}, "carsh_mpi"))
		return mpi_failf(CARSH_E_STATE,
		                 "carsh_mpi: a server machine's flow-model: CaravelaMPI fires "
		                 "flow-models of local machines");
	if (!ranks_guest_started())
		return mpi_failf(CARSH_E_STATE, "MPI is not started: carsh_mpi_init first");
	r = xcalloc(1, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	if ((rc = request_list(r, fm)) != 0) {
		pthread_mutex_destroy(&r->lock);
		free(r);
		return rc;
	}
	rc = request_make(r, recv, nrecv, send, nsend);
	pthread_mutex_unlock(&r->lock);
	if (rc) {
		unlist(r);
		mpi_fail(rc, &r->err);
		request_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int carsh_mpi_irecvsend(carsh_flowmodel *fm, const struct carsh_message *recv, size_t nrecv,
                        const struct carsh_message *send, size_t nsend, carsh_request **req)
{
	return request_start(fm, recv, nrecv, send, nsend, req);
}

int carsh_mpi_irecv(carsh_flowmodel *fm, const struct carsh_message *recv, size_t nrecv,
                    carsh_request **req)
{
	return request_start(fm, recv, nrecv, NULL, 0, req);
}

int carsh_mpi_isend(carsh_flowmodel *fm, const struct carsh_message *send, size_t nsend,
                    carsh_request **req)
{
	return request_start(fm, NULL, 0, send, nsend, req);
}

static int finish(carsh_request **req)
{
	carsh_request *r = *req;
	int rc = r->rc;

	unlist(r);
	*req = NULL;
	if (rc)
		mpi_fail(rc, &r->err);
	request_free(r);
	return rc;
}

/* A wait blocks in its own phase when nothing else is pending, or when that phase is a fire
 * (which ends by itself); else it polls, so that a message another pending request of this
 * process is yet to send (after its fire) still goes out. */
int carsh_mpi_wait(carsh_request **req)
{
	static const struct timespec pause = {0, 50 * 1000};
	carsh_request *r;
	bool alone;

	if (!req)
		return mpi_failf(CARSH_E_ARG, "carsh_mpi_wait: req is NULL");
	if (!(r = *req))
		return 0;
	for (;;) {
		progress_others(r, &alone);
		pthread_mutex_lock(&r->lock);
		advance(r, alone || r->phase == PH_FIRE);
		if (r->phase == PH_DONE) {
			pthread_mutex_unlock(&r->lock);
			return finish(req);
		}
		pthread_mutex_unlock(&r->lock);
		if (!alone)
			nanosleep(&pause, NULL);
	}
}

int carsh_mpi_test(carsh_request **req, int *done)
{
	carsh_request *r;
	bool alone;

	if (!req || !done)
		return mpi_failf(CARSH_E_ARG, "carsh_mpi_test: %s is NULL", req ? "done" : "req");
	*done = 1;
	if (!(r = *req))
		return 0;
	progress_others(r, &alone);
	pthread_mutex_lock(&r->lock);
	advance(r, false);
	*done = r->phase == PH_DONE;
	pthread_mutex_unlock(&r->lock);
	return *done ? finish(req) : 0;
}

int carsh_mpi_recvsend(carsh_flowmodel *fm, const struct carsh_message *recv, size_t nrecv,
                       const struct carsh_message *send, size_t nsend)
{
	carsh_request *r;
	int rc = request_start(fm, recv, nrecv, send, nsend, &r);

	return rc ? rc : carsh_mpi_wait(&r);
}

int carsh_mpi_recv(carsh_flowmodel *fm, const struct carsh_message *recv, size_t nrecv)
{
	return carsh_mpi_recvsend(fm, recv, nrecv, NULL, 0);
}

int carsh_mpi_send(carsh_flowmodel *fm, const struct carsh_message *send, size_t nsend)
{
	return carsh_mpi_recvsend(fm, NULL, 0, send, nsend);
}
