/*
 * Machines on the user's carsh server (carsh_machine_open_at("server", ...); docs/api.md,
 * "Machines on the server"). The server lends the machine one of its session workers
 * (server/served.h), which opens the device and serves the machine's calls (api-serve.c):
 * each call is one request and one answer on the worker's socket (server/apiwire.h), under
 * the machine's lock. Nothing runs here but the copies of the caller's memory: a stream
 * bound to it has a memfd the worker maps and binds, filled from the caller's memory before
 * a fire and copied back to it after (the zero copy of a local machine cannot cross a
 * process). No thread is started, no signal touched.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/api-int.h"
#include "config.h"
#include "server/apiwire.h"
#include "exec/process.h"
#include "server/served.h"
#include "exec/serverclient.h"
#include "exec/serverdir.h"
#include "exec/serverwire.h"
#include "util/alloc.h"
#include "util/clock.h"

struct remote {
	int srv;  /* the server connection: while it is open the worker stays lent */
	int sock; /* the worker's */
	pid_t spid, pid;
	bool lost; /* the worker or the server ended: why says how */
	struct cs_err why;
	struct apiwire_device *devs;
	size_t ndevs;
};

/* A stream bound to the caller's memory: host is the caller's, shm the worker's view. */
struct remote_stream {
	char *name;
	void *host, *shm;
	size_t bytes;
	bool written; /* Output or InOut: copied back after a fire */
};

struct remote_fm {
	uint32_t id;
	struct remote_stream *s;
	size_t n;
	bool in_flight;
	double fire_start;
};

/* ---- one request ---- */

/* The worker or the server is gone (or answered garbage): every later call says so. */
static int lost(carsh_machine *m, struct cs_err *e)
{
	struct remote *r = m->remote;
	struct cs_err ignored;
	char how[64];
	int ws;

	if (!r->lost) {
		r->lost = true;
		kill(r->pid, SIGKILL); /* a garbled answer: not to be trusted */
		if (served_ended(r->srv, r->pid, &ws, &ignored) == 0) {
			proc_describe(ws, how, sizeof(how));
			err_set(&r->why,
			        "server: the carsh server's API worker (pid %d) %s%s; the machine "
			        "is "
			        "lost: free its handles and open another",
			        (int)r->pid, WIFSIGNALED(ws) ? "was " : "ended with ", how);
		} else
			err_set(&r->why,
			        "server: the carsh server (pid %d) ended; the machine is lost: "
			        "free "
			        "its handles and open another",
			        (int)r->spid);
	}
	if (e != &r->why)
		snprintf(e->msg, sizeof(e->msg), "%s", r->why.msg);
	return CARSH_E_LOST;
}

/* Send out as type (with fd unless -1), read the worker's answer into *a (its message in
 * *msg, freed by the caller): 0, or -1 when the exchange failed (the worker is lost). */
static int exchange(struct remote *r, uint32_t type, const struct wbuf *out, int fd,
                    struct api_answer *a, struct wire_msg *msg)
{
	struct cs_err x;

	if (r->lost || wire_send(r->sock, type, out->p, out->len, &fd, fd >= 0, &x) != 0 ||
	    wire_recv(r->sock, msg, &x) != 1)
		return -1;
	if (msg->type != API_ANSWER || apiwire_decode_answer(msg->payload, msg->len, a, &x) != 0) {
		wire_msg_free(msg);
		return -1;
	}
	return 0;
}

/* Send type with rq (and fd unless -1), read the answer: its code, with its message in e,
 * *n and the extra fields (each may be NULL). */
static int call(carsh_machine *m, uint32_t type, const struct api_req *rq, int fd, uint64_t *n,
                struct wbuf *extra, struct cs_err *e)
{
	struct remote *r = m->remote;
	struct wbuf out = WBUF_INIT;
	struct api_answer a;
	struct wire_msg msg;
	int rc, got;

	pthread_mutex_lock(&m->lock);
	apiwire_encode_req(rq, &out);
	got = exchange(r, type, &out, fd, &a, &msg);
	wb_free(&out);
	if (got != 0) {
		rc = lost(m, e);
		pthread_mutex_unlock(&m->lock);
		return rc;
	}
	rc = a.rc;
	if (rc)
		snprintf(e->msg, sizeof(e->msg), "%s", a.msg);
	if (n)
		*n = a.n;
	if (extra)
		wb_bytes(extra, a.extra, a.extra_len);
	apiwire_answer_free(&a);
	wire_msg_free(&msg);
	pthread_mutex_unlock(&m->lock);
	return rc;
}

/* What a server machine does not have: device memory in this process. */
static int remote_local_only(struct cs_err *e, const char *call)
{
	return api_fail(e, CARSH_E_STATE,
	                "%s: not on a server machine (it has flow-models on the caller's memory "
	                "only): open a local machine for it",
	                call);
}

/* ---- the machine ---- */

/* The carsh program whose server to use: $CARSH_EXE, else the installed one. */
static const char *carsh_exe(void)
{
	const char *v = getenv("CARSH_EXE");

	return v && v[0] ? v : CARSH_BINDIR "/carsh";
}

/* The server's socket names a build of the carsh program (exec/serverdir.h); this process
 * is not one, so the identity is taken from the program, one opening at a time. */
static pthread_mutex_t connect_lock = PTHREAD_MUTEX_INITIALIZER;

static int lend(carsh_machine *m, struct remote *r)
{
	struct cs_err e;
	int rc = 0;

	pthread_mutex_lock(&connect_lock);
	if (server_use_exe(carsh_exe(), &e))
		rc = machine_failf(m, CARSH_E_DEVICE,
		                   "server: %s: set CARSH_EXE to the carsh program's path", e.msg);
	else if ((r->srv = server_connect(true, &r->spid, &e)) < 0)
		rc = machine_failf(m, CARSH_E_DEVICE, "server: no carsh server (%s)", e.msg);
	pthread_mutex_unlock(&connect_lock);
	if (rc)
		return rc;
	if (!server_same_mounts(r->spid))
		return machine_failf(m, CARSH_E_DEVICE,
		                     "server: the carsh server (pid %d) runs in another mount "
		                     "namespace and cannot see this program's files",
		                     (int)r->spid);
	if (served_borrow(r->srv, r->spid, &r->pid, &r->sock, &e))
		return machine_failf(m, CARSH_E_DEVICE, "server: %s", e.msg);
	return 0;
}

static int open_worker(carsh_machine *m, struct remote *r, const char *device)
{
	char cwd[4096];
	mode_t mask = umask(0);
	struct wbuf out = WBUF_INIT, extra = WBUF_INIT;
	struct api_answer a;
	struct wire_msg msg;
	struct cs_err x;
	int rc, got = -1;

	umask(mask);
	if (!getcwd(cwd, sizeof(cwd)))
		return machine_failf(m, CARSH_E_DEVICE, "server: the current directory is unknown");
	apiwire_encode_open(&(struct api_open){.version = PACKAGE_VERSION,
	                                       .cwd = cwd,
	                                       .umask = (uint32_t)mask,
	                                       .device = (char *)device},
	                    &out);
	got = exchange(r, API_OPEN, &out, -1, &a, &msg);
	wb_free(&out);
	if (got != 0)
		return lost(m, &m->err);
	rc = a.rc;
	snprintf(m->err.msg, sizeof(m->err.msg), "%s", rc ? a.msg : "");
	wb_bytes(&extra, a.extra, a.extra_len);
	if (apiwire_decode_devices(extra.p, extra.len, &r->devs, &r->ndevs, &x) && rc == 0)
		rc = machine_failf(m, CARSH_E_DEVICE, "server: %s", x.msg);
	wb_free(&extra);
	apiwire_answer_free(&a);
	wire_msg_free(&msg);
	return rc;
}

/* The worker goes back to the server, which ends it (a fresh spare waits already). */
static void remote_close(carsh_machine *m)
{
	struct remote *r = m->remote;
	struct cs_err e;
	uint32_t pid = (uint32_t)r->pid;

	if (r->sock >= 0)
		close(r->sock);
	if (r->srv >= 0 && r->pid > 0 && !r->lost)
		(void)wire_send(r->srv, SERVER_GIVE, &pid, sizeof(pid), NULL, 0, &e);
	if (r->srv >= 0)
		close(r->srv);
	apiwire_devices_free(r->devs, r->ndevs);
	free(r);
	m->remote = NULL;
}

static int remote_device_count(carsh_machine *m, size_t *n)
{
	*n = m->remote->ndevs;
	return 0;
}

static const char *type_name_of(const char *t)
{
	static const char *const names[] = {"cpu", "gpu", "accelerator"};

	for (size_t i = 0; i < 3; i++)
		if (strcmp(t, names[i]) == 0)
			return names[i];
	return "other";
}

static int remote_device_info(carsh_machine *m, size_t i, struct carsh_device_info *out)
{
	const struct apiwire_device *d;

	if (i >= m->remote->ndevs)
		return machine_failf(m, CARSH_E_NAME, "device %zu: the machine has %zu device(s)",
		                     i, m->remote->ndevs);
	d = &m->remote->devs[i];
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", d->name);
	snprintf(out->vendor, sizeof(out->vendor), "%s", d->vendor);
	snprintf(out->platform, sizeof(out->platform), "%s", d->platform);
	out->type = type_name_of(d->type);
	out->compute_units = d->compute_units;
	out->global_mem = d->global_mem;
	out->max_alloc = d->max_alloc;
	out->selected = (int)d->selected;
	return 0;
}

/* ---- flow-models ---- */

static int remote_make(carsh_machine *m, const char *path, const char *xml, const char *name,
                       carsh_flowmodel **out)
{
	char cwd[4096];
	struct api_req rq = {.a = (char *)(path ? path : xml), .b = cwd, .c = (char *)name};
	uint64_t id;
	carsh_flowmodel *fm;
	int rc;

	if (!getcwd(cwd, sizeof(cwd)))
		return machine_failf(m, CARSH_E_FILE, "server: the current directory is unknown");
	rc = call(m, path ? API_FM_FILE : API_FM_STRING, &rq, -1, &id, NULL, &m->err);
	if (rc)
		return rc;
	fm = xcalloc(1, sizeof(*fm));
	pthread_mutex_init(&fm->lock, NULL);
	fm->refs = 1;
	fm->m = m;
	machine_ref(m);
	fm->remote = xcalloc(1, sizeof(*fm->remote));
	fm->remote->id = (uint32_t)id;
	*out = fm;
	return 0;
}

static void copy_in(struct remote_fm *rf)
{
	for (size_t i = 0; i < rf->n; i++)
		memcpy(rf->s[i].shm, rf->s[i].host, rf->s[i].bytes);
}

static void copy_out(struct remote_fm *rf)
{
	for (size_t i = 0; i < rf->n; i++)
		if (rf->s[i].written)
			memcpy(rf->s[i].host, rf->s[i].shm, rf->s[i].bytes);
}

/* A fire is over: the caller's memory up to date, its time counted. */
static void fire_over(carsh_flowmodel *fm, int rc)
{
	struct remote_fm *rf = fm->remote;

	rf->in_flight = false;
	if (rc == CARSH_E_LOST)
		return;
	copy_out(rf);
	fm->last_fire_ms = clock_ms() - rf->fire_start;
	fm->fire_ms += fm->last_fire_ms;
}

static int fm_call(carsh_flowmodel *fm, uint32_t type, struct api_req *rq, uint64_t *n)
{
	rq->id = fm->remote->id;
	return call(fm->m, type, rq, -1, n, NULL, &fm->err);
}

static void remote_fini(carsh_flowmodel *fm)
{
	struct remote_fm *rf = fm->remote;

	if (rf->in_flight)
		fire_over(fm, fm_call(fm, API_WAIT, &(struct api_req){0}, NULL));
	(void)fm_call(fm, API_FM_FREE, &(struct api_req){0}, NULL);
	for (size_t i = 0; i < rf->n; i++) {
		munmap(rf->s[i].shm, rf->s[i].bytes);
		free(rf->s[i].name);
	}
	free(rf->s);
	free(rf);
}

static int remote_set_param(carsh_flowmodel *fm, const char *name, const char *value)
{
	int rc;

	pthread_mutex_lock(&fm->lock);
	rc = fm_call(fm, API_SET_PARAM, &(struct api_req){.a = (char *)name, .b = (char *)value},
	             NULL);
	pthread_mutex_unlock(&fm->lock);
	return rc;
}

static int remote_stream_bytes(carsh_flowmodel *fm, const char *stream, size_t *bytes)
{
	uint64_t n = 0;
	int rc;

	pthread_mutex_lock(&fm->lock);
	rc = fm_call(fm, API_STREAM_BYTES, &(struct api_req){.a = (char *)stream}, &n);
	if (rc == 0 && !bytes) /* the worker had somewhere to write it */
		rc = api_fail(&fm->err, CARSH_E_ARG, "carsh_flowmodel_stream_bytes: bytes is NULL");
	else if (rc == 0)
		*bytes = (size_t)n;
	pthread_mutex_unlock(&fm->lock);
	return rc;
}

/* The stream's memfd, mapped here as the worker maps it; -1 with e. */
static int stream_shm(size_t bytes, void **shm, struct cs_err *e)
{
	int fd = memfd_create("carsh-stream", MFD_CLOEXEC);

	if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0 ||
	    (*shm = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		api_fail(e, CARSH_E_DEVICE, "server: %zu bytes of shared memory for a stream: %s",
		         bytes, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void stream_keep(struct remote_fm *rf, const char *name, struct remote_stream s)
{
	for (size_t i = 0; i < rf->n; i++)
		if (strcmp(rf->s[i].name, name) == 0) {
			munmap(rf->s[i].shm, rf->s[i].bytes);
			s.name = rf->s[i].name;
			rf->s[i] = s;
			return;
		}
	rf->s = xrealloc(rf->s, (rf->n + 1) * sizeof(*rf->s));
	s.name = xstrdup(name);
	rf->s[rf->n++] = s;
}

static int remote_bind_memory(carsh_flowmodel *fm, const char *stream, void *mem, size_t bytes)
{
	struct api_req rq = {
	        .id = fm->remote->id, .a = (char *)stream, .b = mem ? "" : NULL, .n = bytes};
	void *shm = NULL;
	uint64_t written = 0;
	int fd = -1, rc = 0;

	pthread_mutex_lock(&fm->lock);
	if (mem && bytes && (fd = stream_shm(bytes, &shm, &fm->err)) < 0)
		rc = CARSH_E_DEVICE;
	if (rc == 0)
		rc = call(fm->m, API_BIND_MEMORY, &rq, fd, &written, NULL, &fm->err);
	if (fd >= 0)
		close(fd);
	if (rc == 0)
		stream_keep(
		        fm->remote, stream,
		        (struct remote_stream){
		                .host = mem, .shm = shm, .bytes = bytes, .written = written != 0});
	else if (shm)
		munmap(shm, bytes);
	pthread_mutex_unlock(&fm->lock);
	return rc;
}

static int remote_fire(carsh_flowmodel *fm, bool async)
{
	struct remote_fm *rf = fm->remote;
	double start = clock_ms();
	bool busy;
	int rc;

	pthread_mutex_lock(&fm->lock);
	/* Behind fires in flight the worker's copy is the newest: the caller's memory is the
	 * library's until the wait, so it goes in once, with the first fire. */
	busy = rf->in_flight;
	if (!busy)
		copy_in(rf);
	rc = fm_call(fm, async ? API_FIRE_ASYNC : API_FIRE, &(struct api_req){0}, NULL);
	if (!busy)
		rf->fire_start = start;
	/* A synchronous or failed fire ended every fire queued before it (api-flowmodel.c). */
	if (rc == 0 && async)
		rf->in_flight = true;
	else
		fire_over(fm, rc);
	pthread_mutex_unlock(&fm->lock);
	return rc;
}

static int remote_wait(carsh_flowmodel *fm)
{
	int rc = 0;

	pthread_mutex_lock(&fm->lock);
	if (fm->remote->in_flight) {
		rc = fm_call(fm, API_WAIT, &(struct api_req){0}, NULL);
		fire_over(fm, rc);
	}
	pthread_mutex_unlock(&fm->lock);
	return rc;
}

static int remote_test(carsh_flowmodel *fm, int *done)
{
	uint64_t n = 1;
	int rc = 0;

	pthread_mutex_lock(&fm->lock);
	if (!done)
		rc = api_fail(&fm->err, CARSH_E_ARG, "carsh_flowmodel_test: done is NULL");
	else if (fm->remote->in_flight) {
		rc = fm_call(fm, API_TEST, &(struct api_req){0}, &n);
		if (n || rc)
			fire_over(fm, rc);
	}
	if (done)
		*done = rc == 0 ? (int)n : 1;
	pthread_mutex_unlock(&fm->lock);
	return rc;
}

static int remote_set_profiling(carsh_flowmodel *fm, int on)
{
	int rc;

	pthread_mutex_lock(&fm->lock);
	rc = fm_call(fm, API_PROFILING, &(struct api_req){.n = on != 0}, NULL);
	pthread_mutex_unlock(&fm->lock);
	return rc;
}

/* The worker's counts; the times of the fires are this side's (copies and round trips in). */
static int remote_stats(carsh_flowmodel *fm, struct carsh_stats *out)
{
	struct wbuf x = WBUF_INIT;
	struct apiwire_stats st;
	int rc;

	pthread_mutex_lock(&fm->lock);
	if (!out)
		rc = api_fail(&fm->err, CARSH_E_ARG, "carsh_flowmodel_stats: out is NULL");
	else
		rc = call(fm->m, API_STATS, &(struct api_req){.id = fm->remote->id}, -1, NULL, &x,
		          &fm->err);
	if (rc == 0 && apiwire_decode_stats(x.p, x.len, &st, &fm->err) != 0)
		rc = CARSH_E_DEVICE;
	if (rc == 0) {
		*out = (struct carsh_stats){.fires = st.fires,
		                            .launches = st.launches,
		                            .fire_ms = fm->fire_ms,
		                            .last_fire_ms = fm->last_fire_ms,
		                            .build_ms = st.build_ms,
		                            .cache_hit = (int)st.cache_hit,
		                            .kernel_ms = st.kernel_ms};
		snprintf(out->device, sizeof(out->device), "server: %s", st.device);
		apiwire_stats_free(&st);
	}
	wb_free(&x);
	pthread_mutex_unlock(&fm->lock);
	return rc;
}

static bool remote_opened(const carsh_machine *m)
{
	(void)m;
	return true; /* the worker answers what cannot be done, with its message */
}

static const struct flowmodel_ops remote_flowmodel_ops = {
        .make = remote_make,
        .fini = remote_fini,
        .set_param = remote_set_param,
        .stream_bytes = remote_stream_bytes,
        .bind_memory = remote_bind_memory,
        .fire = remote_fire,
        .wait = remote_wait,
        .test = remote_test,
        .set_profiling = remote_set_profiling,
        .stats = remote_stats,
};

static const struct machine_ops remote_ops = {
        .opened = remote_opened,
        .close = remote_close,
        .device_count = remote_device_count,
        .device_info = remote_device_info,
        .local_only = remote_local_only,
        .fm = &remote_flowmodel_ops,
};

int remote_open(carsh_machine *m, const char *device)
{
	const char *off = getenv("CARSH_SERVER");
	struct remote *r;
	int rc;

	if (off && strcmp(off, "off") == 0)
		return machine_failf(m, CARSH_E_DEVICE,
		                     "server: CARSH_SERVER=off: this process uses no carsh server "
		                     "(unset it, or open a local machine)");
	r = xcalloc(1, sizeof(*r));
	*r = (struct remote){.srv = -1, .sock = -1};
	m->remote = r;
	m->ops = &remote_ops;
	rc = lend(m, r);
	return rc ? rc : open_worker(m, r, device);
}
