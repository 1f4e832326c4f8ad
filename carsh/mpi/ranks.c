/* The MPI ranks (mpi/ranks.h). Everything that calls MPI is in the HAVE_MPI half. */
#include "mpi/ranks.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "util/alloc.h"
#include "util/fork.h"
#include "mpi/rankwatch.h"

#ifdef HAVE_MPI
#include <mpi.h>
#endif

static bool started; /* a rank of an MPI job (ranks_started) */
static bool mpi_on;  /* and MPI_Init_thread was called: not on a job of one rank */
static bool pending; /* MPI_Init_thread put off until the rank first needs MPI */
static int size = 1, rank, local_rank;
static int fatal_fd = 2; /* this rank's own standard error, kept for ranks_fatal */
static void (*cleanup_hook)(void);

bool ranks_launched(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]))
			return true;
	return false;
}

bool ranks_started(void)
{
	return started;
}

void ranks_wait_lost(void)
{
	rankwatch_wait_lost();
}

int ranks_size(void)
{
	return size;
}

int ranks_rank(void)
{
	return rank;
}

int ranks_local_rank(void)
{
	return local_rank;
}

static bool watching; /* the watchdog is armed, or not wanted: nothing is starting any more */

bool ranks_starting(void)
{
	return started && size > 1 && !__atomic_load_n(&watching, __ATOMIC_ACQUIRE);
}

void ranks_fatal(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rankwatch_bye(); /* this rank names its own end: the others need not call it lost */
	dprintf(fatal_fd, "carsh: rank %d: %s; stopping every rank\n", rank, msg);
	if (cleanup_hook)
		cleanup_hook();
#ifdef HAVE_MPI
	if (mpi_on)
		MPI_Abort(MPI_COMM_WORLD, 1);
#endif
	_exit(1);
}

#ifdef HAVE_MPI

/* Rank 0 is the shell: the others keep their standard error for ranks_fatal only. */
static int quiet_others(struct cs_err *e)
{
	static bool quiet;
	int null;

	if (rank == 0 || quiet)
		return 0;
	quiet = true;
	fflush(stdout);
	fflush(stderr);
	fatal_fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
	null = open("/dev/null", O_WRONLY);
	if (fatal_fd < 0 || null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
		return err_errno(e, "rank %d: /dev/null", rank);
	close(null);
	return 0;
}

/* Serializes MPI calls where the library gives less than MPI_THREAD_MULTIPLE. */
static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER;

/* Every MPI call goes through this: an error ends the job (mpi/ranks.h says why). */
static void check(int rc, const char *call)
{
	char text[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (rc == MPI_SUCCESS)
		return;
	if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
		snprintf(text, sizeof(text), "error %d", rc);
	ranks_fatal("%s: %s", call, text);
}

bool ranks_built(void)
{
	return true;
}

/* This rank's number on its node as the launcher says it (Open MPI, MPICH's Hydra,
 * Slurm); -1 where none does. */
static int launcher_local_rank(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
	                                   "SLURM_LOCALID"};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]))
			return atoi(getenv(vars[i]));
	return -1;
}

/* The launcher's word, else the ranks that share this node's memory, in world order
 * (MPI-3). */
static void find_local_rank(void)
{
	MPI_Comm node;

	local_rank = launcher_local_rank();
	if (local_rank >= 0)
		return;
	check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node),
	      "MPI_Comm_split_type");
	check(MPI_Comm_rank(node, &local_rank), "MPI_Comm_rank");
	check(MPI_Comm_free(&node), "MPI_Comm_free");
}

/* This process's rank as the launcher says it, before MPI_Init; -1 where none does. */
static int launcher_rank(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]))
			return atoi(getenv(vars[i]));
	return -1;
}

/* The job's size as the launcher says it, before MPI_Init; 0 where none does. */
static int launcher_size(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]))
			return atoi(getenv(vars[i]));
	return 0;
}

static void watch_lost(const char *msg)
{
	ranks_fatal("%s", msg);
}

/* The watchdog (mpi/rankwatch.h): rank 0's address goes to every rank in the one broadcast
 * of MPI's start, then each rank connects. A failure is fatal, as any at MPI's start. */
static void arm_watch(void)
{
	struct rankwatch_addr a;
	struct cs_err e;
	int ok = 1;

	if (size == 1 || !rankwatch_wanted()) {
		__atomic_store_n(&watching, true, __ATOMIC_RELEASE);
		return;
	}
	memset(&a, 0, sizeof(a));
	if (rank == 0 && rankwatch_listen(&a, &e))
		ok = 0;
	check(MPI_Bcast(&a, sizeof(a), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
	if (!ok || (a.n == 0 && rank != 0))
		ranks_fatal("%s", ok ? "watchdog: rank 0 has no IPv4 address" : e.msg);
	if (rankwatch_arm(rank, size, &a, watch_lost, &e))
		ranks_fatal("%s", e.msg);
	__atomic_store_n(&watching, true, __ATOMIC_RELEASE);
}

/* MPI_Init_thread and what this rank learns from it. */
static int init_mpi(struct cs_err *e)
{
	int provided = 0, said_size = size, said_rank = rank;

	if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
		return err_set(e, "--mpi: MPI_Init_thread failed");
	started = mpi_on = true;
	check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
	      "MPI_Comm_set_errhandler");
	check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
	check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
	if (provided < MPI_THREAD_SERIALIZED)
		ranks_fatal("MPI_Init_thread: the MPI library serializes no threads (level %d)",
		            provided);
	/* A rank that ran jobs on the launcher's word must be where MPI says it is. */
	if (pending && (size != said_size || rank != said_rank))
		ranks_fatal("MPI says rank %d of %d where the launcher's variables said %d of %d "
		            "(a carsh started with another launcher's variables? "
		            "CARSH_MPI_INIT=eager asks MPI first)",
		            rank, size, said_rank, said_size);
	find_local_rank();
	return 0;
}

static void start_now(void)
{
	struct cs_err e;

	/* Forks wait while MPI starts, so that no child of the shell inherits a lock that
	 * MPI_Init_thread holds in another thread (the loader's, while it opens its
	 * components). */
	fork_gate_close();
	if (init_mpi(&e))
		ranks_fatal("%s", e.msg);
	fork_gate_open();
	/* Forks may go on (the library holds no lock of the loader now); the shell's MPI calls
	 * wait until the watchdog's broadcast is made, so that every rank makes it first. */
	arm_watch();
	__atomic_store_n(&pending, false, __ATOMIC_RELEASE);
}

void ranks_mpi_now(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	if (__atomic_load_n(&pending, __ATOMIC_ACQUIRE))
		(void)pthread_once(&once, start_now);
}

/* Every MPI call of the shell's side is made under mpi_lock, MPI started first. */
static void mpi_enter(void)
{
	ranks_mpi_now();
	pthread_mutex_lock(&mpi_lock);
}

/* Whether MPI may start beside the shell: the launcher says the job's size, this rank's place
 * in it and on its node, and CARSH_MPI_INIT is not "eager". */
static bool may_wait(void)
{
	const char *when = getenv("CARSH_MPI_INIT");

	if (when && strcmp(when, "eager") == 0)
		return false;
	return launcher_size() > 1 && launcher_rank() >= 0 && launcher_rank() < launcher_size() &&
	       launcher_local_rank() >= 0;
}

static pthread_t starter;
static bool starter_on; /* a thread starts MPI beside the shell (start_beside) */

static void *start_thread(void *arg)
{
	(void)arg;
	ranks_mpi_now();
	return NULL;
}

/* MPI starts at once, in a thread of its own, while the shell goes on (its forks wait for
 * it): the watchdog it arms names a rank lost at any point after, which a start put off to
 * the first message did not (a rank dead while rank 0 had not called MPI was never named).
 * CARSH_MPI_INIT=lazy still waits for the first message. */
static int start_beside(struct cs_err *e)
{
	const char *when = getenv("CARSH_MPI_INIT");
	int rc;

	if (when && strcmp(when, "lazy") == 0)
		return 0;
	rc = pthread_create(&starter, NULL, start_thread, NULL);
	if (rc) {
		errno = rc;
		return err_errno(e, "rank %d: starting MPI: pthread_create", rank);
	}
	starter_on = true;
	return 0;
}

int ranks_start(void (*cleanup)(void), struct cs_err *e)
{
	cleanup_hook = cleanup;
	/* A job of one rank has no one to talk to: MPI is left alone, so that the rank is a
	 * carsh without MPI (docs/scale-out.md "Running"). MPI_Init alone took 0.27 s of 0.34
	 * on a 2-core VM (transports probed); the forked workers would inherit its state. */
	if (launcher_size() == 1) {
		started = true;
		return 0;
	}
	/* Quiet at once where the launcher tells the rank: mpirun stops the other ranks
	 * (SIGTERM) as soon as rank 0 fails, and one stopped before it was quiet printed the
	 * shell's "stopping jobs" notice beside rank 0's message. */
	rank = launcher_rank();
	if (rank > 0 && quiet_others(e))
		return -1;
	/* MPI_Init_thread waits for every rank (Open MPI's fence: about 60 ms of a 4-rank
	 * start). Put off, it runs where the rank waits anyway, beside its
	 * first jobs (ranks_mpi_now), and the workers forked before it are plain processes. */
	if (may_wait()) {
		size = launcher_size();
		local_rank = launcher_local_rank();
		started = pending = true;
		fork_gate_use();
		return start_beside(e);
	}
	if (init_mpi(e))
		return -1;
	arm_watch();
	return quiet_others(e);
}

void ranks_finish(void)
{
	/* A start beside the shell ends before the rank does: a rank must not exit inside
	 * MPI_Init_thread, nor leave it unfinalized. */
	if (starter_on) {
		pthread_join(starter, NULL);
		starter_on = false;
	}
	rankwatch_bye();
	started = false;
	/* No rank talked (every rank takes the same steps): MPI never started. */
	if (!mpi_on)
		return;
	check(MPI_Finalize(), "MPI_Finalize");
	mpi_on = false;
}

/* A message's count is an int: larger buffers go in pieces of 1 GiB. */
#define PIECE ((size_t)1 << 30)

static size_t pieces(size_t bytes)
{
	return bytes ? (bytes + PIECE - 1) / PIECE : 1;
}

static void post(const struct ranks_xfer *x, MPI_Request *req)
{
	size_t n = pieces(x->bytes);

	for (size_t i = 0; i < n; i++) {
		char *p = x->data ? (char *)x->data + i * PIECE : NULL;
		int len = (int)(x->bytes - i * PIECE < PIECE ? x->bytes - i * PIECE : PIECE);

		if (x->send)
			check(MPI_Isend(p, len, MPI_BYTE, x->peer, 1, MPI_COMM_WORLD, &req[i]),
			      "MPI_Isend");
		else
			check(MPI_Irecv(p, len, MPI_BYTE, x->peer, 1, MPI_COMM_WORLD, &req[i]),
			      "MPI_Irecv");
	}
}

void ranks_exchange(const struct ranks_xfer *x, size_t n)
{
	size_t total = 0, at = 0;
	MPI_Request *req;

	for (size_t i = 0; i < n; i++)
		total += pieces(x[i].bytes);
	if (total == 0)
		return;
	req = xcalloc(total, sizeof(*req));
	mpi_enter();
	for (size_t i = 0; i < n; i++) {
		post(&x[i], req + at);
		at += pieces(x[i].bytes);
	}
	check(MPI_Waitall((int)total, req, MPI_STATUSES_IGNORE), "MPI_Waitall");
	pthread_mutex_unlock(&mpi_lock);
	free(req);
}

int ranks_agree(int status, struct cs_err *e)
{
	int mine = status ? rank : size, first = size;

	if (!started || size == 1)
		return status;
	mpi_enter();
	check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
	if (first < size) {
		check(MPI_Bcast(&status, 1, MPI_INT, first, MPI_COMM_WORLD), "MPI_Bcast");
		check(MPI_Bcast(e->msg, CS_ERR_MAX, MPI_CHAR, first, MPI_COMM_WORLD), "MPI_Bcast");
	}
	pthread_mutex_unlock(&mpi_lock);
	if (first == size)
		return 0;
	e->msg[CS_ERR_MAX - 1] = '\0';
	if (first != 0)
		err_prefix(e, "rank %d: ", first);
	return status;
}

void ranks_bcast(void *data, size_t bytes, int root)
{
	if (!started || size == 1)
		return;
	mpi_enter();
	for (size_t i = 0; i < pieces(bytes); i++) {
		size_t left = bytes - i * PIECE;

		check(MPI_Bcast((char *)data + i * PIECE, (int)(left < PIECE ? left : PIECE),
		                MPI_BYTE, root, MPI_COMM_WORLD),
		      "MPI_Bcast");
	}
	pthread_mutex_unlock(&mpi_lock);
}

void ranks_gather_double(double mine, double *all, int root)
{
	if (!started || size == 1) {
		if (all)
			all[0] = mine;
		return;
	}
	mpi_enter();
	check(MPI_Gather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, root, MPI_COMM_WORLD),
	      "MPI_Gather");
	pthread_mutex_unlock(&mpi_lock);
}

/* A message's count is an int: rows are counted in a datatype of one row, so a part may
 * hold 2^31 - 1 rows of up to 2 GiB each. */
static MPI_Datatype row_type(size_t row_bytes, const size_t *first, int *counts, int *displs)
{
	MPI_Datatype t;

	if (row_bytes > INT_MAX || first[size] > INT_MAX)
		ranks_fatal("gathering rows: %zu rows of %zu bytes is more than MPI counts",
		            first[size], row_bytes);
	for (int r = 0; r < size; r++) {
		counts[r] = (int)(first[r + 1] - first[r]);
		displs[r] = (int)first[r];
	}
	check(MPI_Type_contiguous((int)row_bytes, MPI_BYTE, &t), "MPI_Type_contiguous");
	check(MPI_Type_commit(&t), "MPI_Type_commit");
	return t;
}

static void gather_rows(void *data, size_t row_bytes, const size_t *first, int root, bool all)
{
	int *counts, *displs;
	MPI_Datatype t;
	char *mine = (char *)data + first[rank] * row_bytes;
	int n = (int)(first[rank + 1] - first[rank]);

	if (!started || size == 1 || row_bytes == 0)
		return;
	counts = xcalloc((size_t)size, sizeof(int));
	displs = xcalloc((size_t)size, sizeof(int));
	mpi_enter();
	t = row_type(row_bytes, first, counts, displs);
	if (all)
		check(MPI_Allgatherv(MPI_IN_PLACE, 0, t, data, counts, displs, t, MPI_COMM_WORLD),
		      "MPI_Allgatherv");
	else if (rank == root)
		check(MPI_Gatherv(MPI_IN_PLACE, 0, t, data, counts, displs, t, root,
		                  MPI_COMM_WORLD),
		      "MPI_Gatherv");
	else
		check(MPI_Gatherv(mine, n, t, NULL, NULL, NULL, t, root, MPI_COMM_WORLD),
		      "MPI_Gatherv");
	check(MPI_Type_free(&t), "MPI_Type_free");
	pthread_mutex_unlock(&mpi_lock);
	free(counts);
	free(displs);
}

void ranks_gather_rows(void *data, size_t row_bytes, const size_t *first, int root)
{
	gather_rows(data, row_bytes, first, root, false);
}

void ranks_allgather_rows(void *data, size_t row_bytes, const size_t *first)
{
	gather_rows(data, row_bytes, first, 0, true);
}

/* ---- the guest (mpi/ranks.h): errors are returned, never fatal ---- */

static MPI_Comm guest_comm = MPI_COMM_NULL;
static bool guest_inited;   /* ranks_guest_start called MPI_Init_thread: it finalizes */
static bool guest_multiple; /* MPI_THREAD_MULTIPLE: the guest's calls take no lock */

static void guest_lock(void)
{
	if (!guest_multiple)
		pthread_mutex_lock(&mpi_lock); /* after ranks_guest_start: MPI runs */
}

static void guest_unlock(void)
{
	if (!guest_multiple)
		pthread_mutex_unlock(&mpi_lock);
}

struct ranks_req {
	int n;
	MPI_Request *req;
};

static int guest_err(struct cs_err *e, int rc, const char *call)
{
	char text[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
		snprintf(text, sizeof(text), "error %d", rc);
	return err_set(e, "%s: %s", call, text);
}

bool ranks_guest_started(void)
{
	return guest_comm != MPI_COMM_NULL;
}

static int guest_join(struct cs_err *e)
{
	int inited = 0, provided = 0, rc;

	if (MPI_Initialized(&inited) != MPI_SUCCESS)
		return err_set(e, "MPI_Initialized failed");
	if (!inited) {
		if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
			return err_set(e, "MPI_Init_thread failed");
		guest_inited = true;
	}
	if (MPI_Query_thread(&provided) != MPI_SUCCESS)
		return err_set(e, "MPI_Query_thread failed");
	guest_multiple = provided == MPI_THREAD_MULTIPLE;
	rc = MPI_Comm_dup(MPI_COMM_WORLD, &guest_comm);
	if (rc != MPI_SUCCESS)
		return guest_err(e, rc, "MPI_Comm_dup");
	rc = MPI_Comm_set_errhandler(guest_comm, MPI_ERRORS_RETURN);
	return rc == MPI_SUCCESS ? 0 : guest_err(e, rc, "MPI_Comm_set_errhandler");
}

int ranks_guest_start(int *rank_out, int *size_out, struct cs_err *e)
{
	int rc = 0, r = 0, n = 1;

	mpi_enter();
	if (guest_comm == MPI_COMM_NULL)
		rc = guest_join(e);
	if (rc == 0 && (MPI_Comm_rank(guest_comm, &r) != MPI_SUCCESS ||
	                MPI_Comm_size(guest_comm, &n) != MPI_SUCCESS))
		rc = err_set(e, "MPI_Comm_rank: failed");
	pthread_mutex_unlock(&mpi_lock);
	if (rank_out)
		*rank_out = r;
	if (size_out)
		*size_out = n;
	return rc;
}

int ranks_guest_finish(struct cs_err *e)
{
	int rc = 0;

	mpi_enter();
	if (guest_comm != MPI_COMM_NULL) {
		rc = MPI_Comm_free(&guest_comm);
		rc = rc == MPI_SUCCESS ? 0 : guest_err(e, rc, "MPI_Comm_free");
		guest_comm = MPI_COMM_NULL;
	}
	if (rc == 0 && guest_inited) {
		guest_inited = false;
		if (MPI_Finalize() != MPI_SUCCESS)
			rc = err_set(e, "MPI_Finalize failed");
	}
	pthread_mutex_unlock(&mpi_lock);
	return rc;
}

static int guest_post_one(const struct ranks_xfer *x, MPI_Request *req, struct cs_err *e)
{
	for (size_t i = 0; i < pieces(x->bytes); i++) {
		char *p = x->data ? (char *)x->data + i * PIECE : NULL;
		int len = (int)(x->bytes - i * PIECE < PIECE ? x->bytes - i * PIECE : PIECE);
		int rc =
		        x->send ? MPI_Isend(p, len, MPI_BYTE, x->peer, x->tag, guest_comm, &req[i])
		                : MPI_Irecv(p, len, MPI_BYTE, x->peer, x->tag, guest_comm, &req[i]);

		if (rc != MPI_SUCCESS)
			return guest_err(e, rc, x->send ? "MPI_Isend" : "MPI_Irecv");
	}
	return 0;
}

int ranks_guest_post(const struct ranks_xfer *x, size_t n, struct ranks_req **out, struct cs_err *e)
{
	struct ranks_req *r = xcalloc(1, sizeof(*r));
	size_t total = 0;
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		total += pieces(x[i].bytes);
	r->req = xcalloc(total ? total : 1, sizeof(*r->req));
	for (size_t i = 0; i < total; i++)
		r->req[i] = MPI_REQUEST_NULL;
	guest_lock();
	if (guest_comm == MPI_COMM_NULL)
		rc = err_set(e, "MPI is not started: carsh_mpi_init first");
	for (size_t i = 0; i < n && rc == 0; i++) {
		rc = guest_post_one(&x[i], r->req + r->n, e);
		r->n += (int)pieces(x[i].bytes);
	}
	guest_unlock();
	if (rc) {
		ranks_req_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int ranks_guest_test(struct ranks_req *r, bool *done, struct cs_err *e)
{
	int flag = 0, rc;

	guest_lock();
	rc = MPI_Testall(r->n, r->req, &flag, MPI_STATUSES_IGNORE);
	guest_unlock();
	*done = flag != 0;
	return rc == MPI_SUCCESS ? 0 : guest_err(e, rc, "MPI_Testall");
}

/* Without MPI_THREAD_MULTIPLE the blocking MPI_Waitall holds the lock, and a message that
 * another thread of this process has yet to post makes it wait for ever: such a program
 * waits for its requests from one thread (carsh.h says so). */
int ranks_guest_wait(struct ranks_req *r, struct cs_err *e)
{
	bool done = false;
	int rc;

	if (ranks_guest_test(r, &done, e))
		return -1;
	if (done)
		return 0;
	guest_lock();
	rc = MPI_Waitall(r->n, r->req, MPI_STATUSES_IGNORE);
	guest_unlock();
	return rc == MPI_SUCCESS ? 0 : guest_err(e, rc, "MPI_Waitall");
}

void ranks_req_free(struct ranks_req *r)
{
	if (!r)
		return;
	guest_lock();
	for (int i = 0; i < r->n; i++)
		if (r->req[i] != MPI_REQUEST_NULL) {
			(void)MPI_Cancel(&r->req[i]);
			(void)MPI_Wait(&r->req[i], MPI_STATUS_IGNORE);
		}
	guest_unlock();
	free(r->req);
	free(r);
}

#else /* !HAVE_MPI */

bool ranks_built(void)
{
	return false;
}

int ranks_start(void (*cleanup)(void), struct cs_err *e)
{
	(void)cleanup;
	return err_set(e, "--mpi: this carsh was built without MPI (install libopenmpi-dev and "
	                  "configure --with-mpi)");
}

void ranks_finish(void)
{
}

void ranks_mpi_now(void)
{
}

void ranks_exchange(const struct ranks_xfer *x, size_t n)
{
	(void)x;
	if (n)
		ranks_fatal("no MPI: nothing to exchange with");
}

int ranks_agree(int status, struct cs_err *e)
{
	(void)e;
	return status;
}

/* One rank: every collective is a copy to itself. */
void ranks_bcast(void *data, size_t bytes, int root)
{
	(void)data, (void)bytes, (void)root;
}

void ranks_gather_double(double mine, double *all, int root)
{
	(void)root;
	if (all)
		all[0] = mine;
}

void ranks_gather_rows(void *data, size_t row_bytes, const size_t *first, int root)
{
	(void)data, (void)row_bytes, (void)first, (void)root;
}

void ranks_allgather_rows(void *data, size_t row_bytes, const size_t *first)
{
	(void)data, (void)row_bytes, (void)first;
}

/* Without MPI the guest has nothing to join: every call says so. */
static const char no_mpi[] =
        "this libcarsh was built without MPI (install libopenmpi-dev and configure --with-mpi)";

int ranks_guest_start(int *rank_out, int *size_out, struct cs_err *e)
{
	if (rank_out)
		*rank_out = 0;
	if (size_out)
		*size_out = 1;
	return err_set(e, "%s", no_mpi);
}

int ranks_guest_finish(struct cs_err *e)
{
	return err_set(e, "%s", no_mpi);
}

bool ranks_guest_started(void)
{
	return false;
}

int ranks_guest_post(const struct ranks_xfer *x, size_t n, struct ranks_req **out, struct cs_err *e)
{
	(void)x, (void)n, (void)out;
	return err_set(e, "%s", no_mpi);
}

int ranks_guest_test(struct ranks_req *r, bool *done, struct cs_err *e)
{
	(void)r, (void)e;
	*done = true;
	return 0;
}

int ranks_guest_wait(struct ranks_req *r, struct cs_err *e)
{
	(void)r, (void)e;
	return 0;
}

void ranks_req_free(struct ranks_req *r)
{
	(void)r;
}

#endif

/* ---- a pipeline graph's messages (mpi/ranks.h "ranks_flow") ---- */

#ifdef HAVE_MPI

/* Tag 0 carries failure notices; a message's tag is above. */
#define FLOW_FAIL_TAG 0

struct flow_msg {
	MPI_Request *req; /* one per piece of 1 GiB */
	int n;
	bool recv, done;
	bool empty; /* a receive that got an empty message */
};

struct ranks_flow {
	MPI_Comm comm;
	struct flow_msg *msgs;
	size_t nmsgs, cap;
	size_t *spare; /* handles of completed messages, for the next posts */
	size_t nspare;
	int notice, tag_ub;
	MPI_Request notice_in; /* the first notice from any rank */
	MPI_Request *notices_out;
	bool failed, told, heard;
};

struct ranks_flow *ranks_flow_open(void)
{
	struct ranks_flow *f = xcalloc(1, sizeof(*f));
	int *ub = NULL, flag = 0;

	f->notice_in = MPI_REQUEST_NULL;
	if (!started || size == 1)
		return f;
	mpi_enter();
	check(MPI_Comm_dup(MPI_COMM_WORLD, &f->comm), "MPI_Comm_dup");
	check(MPI_Comm_set_errhandler(f->comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
	check(MPI_Comm_get_attr(f->comm, MPI_TAG_UB, &ub, &flag), "MPI_Comm_get_attr");
	f->tag_ub = flag && ub ? *ub : 32767;
	check(MPI_Irecv(&f->notice, 1, MPI_INT, MPI_ANY_SOURCE, FLOW_FAIL_TAG, f->comm,
	                &f->notice_in),
	      "MPI_Irecv");
	pthread_mutex_unlock(&mpi_lock);
	return f;
}

size_t ranks_flow_post(struct ranks_flow *f, void *data, size_t bytes, int peer, bool send, int tag)
{
	struct flow_msg *m;
	size_t h;

	if (!started || size == 1)
		ranks_fatal("no MPI ranks: nothing to send to");
	if (tag < 0 || tag >= f->tag_ub)
		ranks_fatal("a graph's message tag %d is above MPI_TAG_UB (%d)", tag + 1,
		            f->tag_ub);
	if (f->nspare) {
		h = f->spare[--f->nspare];
	} else {
		if (f->nmsgs == f->cap) {
			f->cap = f->cap ? 2 * f->cap : 64;
			f->msgs = xrealloc(f->msgs, f->cap * sizeof(*f->msgs));
			f->spare = xrealloc(f->spare, f->cap * sizeof(*f->spare));
		}
		h = f->nmsgs++;
	}
	m = &f->msgs[h];
	m->n = (int)pieces(bytes);
	m->req = xcalloc((size_t)m->n, sizeof(*m->req));
	m->recv = !send;
	m->done = m->empty = false;
	mpi_enter();
	for (int i = 0; i < m->n; i++) {
		/* No arithmetic on NULL (an empty message, a stopped rank's): UBSan stops it. */
		char *p = data ? (char *)data + (size_t)i * PIECE : NULL;
		size_t left = bytes - (size_t)i * PIECE;
		int len = (int)(left < PIECE ? left : PIECE);

		/* Synchronous: a send completes once the receiver posted its receive, which it
		 * does when its slot is free: the ring is the window (mpi/graphranks.c). */
		if (send)
			check(MPI_Issend(p, data ? len : 0, MPI_BYTE, peer, tag + 1, f->comm,
			                 &m->req[i]),
			      "MPI_Issend");
		else
			check(MPI_Irecv(p, len, MPI_BYTE, peer, tag + 1, f->comm, &m->req[i]),
			      "MPI_Irecv");
	}
	pthread_mutex_unlock(&mpi_lock);
	return h;
}

bool ranks_flow_done(struct ranks_flow *f, size_t h)
{
	struct flow_msg *m = &f->msgs[h];
	MPI_Status st[2];
	int flag = 0, got = 1;

	if (m->done)
		return true;
	mpi_enter();
	if (m->n == 1) { /* the piece's count tells an empty message */
		check(MPI_Test(&m->req[0], &flag, &st[0]), "MPI_Test");
		if (flag && m->recv)
			check(MPI_Get_count(&st[0], MPI_BYTE, &got), "MPI_Get_count");
	} else {
		check(MPI_Testall(m->n, m->req, &flag, MPI_STATUSES_IGNORE), "MPI_Testall");
	}
	pthread_mutex_unlock(&mpi_lock);
	m->empty = flag && m->recv && got == 0;
	if (flag) {
		m->done = true;
		free(m->req);
		m->req = NULL;
		f->spare[f->nspare++] = h;
	}
	return m->done;
}

bool ranks_flow_empty(struct ranks_flow *f, size_t h)
{
	return f->msgs[h].done && f->msgs[h].empty;
}

void ranks_flow_fail(struct ranks_flow *f)
{
	int at = 0;

	f->failed = true;
	if (f->told || !started || size == 1)
		return;
	f->told = true;
	f->notices_out = xcalloc((size_t)size, sizeof(*f->notices_out));
	mpi_enter();
	for (int r = 0; r < size; r++)
		if (r != rank)
			check(MPI_Isend(&rank, 1, MPI_INT, r, FLOW_FAIL_TAG, f->comm,
			                &f->notices_out[at++]),
			      "MPI_Isend");
	pthread_mutex_unlock(&mpi_lock);
}

bool ranks_flow_failed(struct ranks_flow *f)
{
	int flag = 0;

	if (f->failed || f->notice_in == MPI_REQUEST_NULL)
		return f->failed;
	mpi_enter();
	check(MPI_Test(&f->notice_in, &flag, MPI_STATUS_IGNORE), "MPI_Test");
	pthread_mutex_unlock(&mpi_lock);
	if (flag)
		f->failed = f->heard = true;
	return f->failed;
}

/* Every notice sent to this rank is received before the communicator goes: the ranks
 * that failed are counted first. */
static void flow_drain_notices(struct ranks_flow *f)
{
	int mine = f->told ? 1 : 0, failing = 0, expect;

	check(MPI_Allreduce(&mine, &failing, 1, MPI_INT, MPI_SUM, f->comm), "MPI_Allreduce");
	expect = failing - mine;
	if (expect > 0)
		check(MPI_Wait(&f->notice_in, MPI_STATUS_IGNORE), "MPI_Wait");
	else
		check(MPI_Cancel(&f->notice_in), "MPI_Cancel");
	if (expect <= 0)
		check(MPI_Wait(&f->notice_in, MPI_STATUS_IGNORE), "MPI_Wait");
	for (int i = 1; i < expect; i++)
		check(MPI_Recv(&f->notice, 1, MPI_INT, MPI_ANY_SOURCE, FLOW_FAIL_TAG, f->comm,
		               MPI_STATUS_IGNORE),
		      "MPI_Recv");
	if (f->told)
		check(MPI_Waitall(size - 1, f->notices_out, MPI_STATUSES_IGNORE), "MPI_Waitall");
}

void ranks_flow_close(struct ranks_flow *f)
{
	if (!f)
		return;
	if (started && size > 1) {
		mpi_enter();
		/* Every message has its match: the ranks took the same actions. */
		for (size_t h = 0; h < f->nmsgs; h++)
			if (!f->msgs[h].done) {
				check(MPI_Waitall(f->msgs[h].n, f->msgs[h].req,
				                  MPI_STATUSES_IGNORE),
				      "MPI_Waitall");
				free(f->msgs[h].req);
			}
		flow_drain_notices(f);
		check(MPI_Comm_free(&f->comm), "MPI_Comm_free");
		pthread_mutex_unlock(&mpi_lock);
	}
	free(f->notices_out);
	free(f->spare);
	free(f->msgs);
	free(f);
}

#else /* !HAVE_MPI */

struct ranks_flow {
	bool failed;
};

struct ranks_flow *ranks_flow_open(void)
{
	return xcalloc(1, sizeof(struct ranks_flow));
}

size_t ranks_flow_post(struct ranks_flow *f, void *data, size_t bytes, int peer, bool send, int tag)
{
	(void)f, (void)data, (void)bytes, (void)peer, (void)send, (void)tag;
	ranks_fatal("no MPI: nothing to send to");
}

bool ranks_flow_done(struct ranks_flow *f, size_t h)
{
	(void)f, (void)h;
	return true;
}

bool ranks_flow_empty(struct ranks_flow *f, size_t h)
{
	(void)f, (void)h;
	return false;
}

void ranks_flow_fail(struct ranks_flow *f)
{
	f->failed = true;
}

bool ranks_flow_failed(struct ranks_flow *f)
{
	return f->failed;
}

void ranks_flow_close(struct ranks_flow *f)
{
	free(f);
}

#endif
