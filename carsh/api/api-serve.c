/*
 * The worker's side of a server machine (docs/api.md, "Machines on the server"): a session
 * worker of the user's server that was sent API_OPEN runs every request of the program's
 * machine as one call of the local embedding API on its own handles, and answers with that
 * call's code and message, so that a server machine's errors are the local ones, byte for
 * byte. Caller memory arrives as a memfd of the stream, mapped here and bound in place.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api-int.h"
#include "config.h"
#include "server/apiwire.h"
#include "util/alloc.h"

/* A stream's memfd mapping, kept while the flow-model's stream is bound to it. */
struct served_map {
	char *stream;
	void *p;
	size_t bytes;
};

struct served_fm {
	carsh_flowmodel *fm;
	struct served_map *maps;
	size_t nmaps;
};

struct served {
	int sock;
	carsh_machine *m;
	struct served_fm *fms; /* by id; fm NULL once freed */
	size_t nfms;
};

static void answer(struct served *s, int rc, const char *msg, uint64_t n, const struct wbuf *x)
{
	struct wbuf out = WBUF_INIT;
	struct cs_err e;

	apiwire_encode_answer(rc, rc ? msg : "", n, x, &out);
	(void)wire_send(s->sock, API_ANSWER, out.p, out.len, NULL, 0, &e);
	wb_free(&out);
}

static void served_fm_free(struct served_fm *f)
{
	carsh_flowmodel_free(f->fm);
	for (size_t i = 0; i < f->nmaps; i++) {
		munmap(f->maps[i].p, f->maps[i].bytes);
		free(f->maps[i].stream);
	}
	free(f->maps);
	memset(f, 0, sizeof(*f));
}

/* ---- opening ---- */

static void device_of(const struct carsh_device_info *d, struct apiwire_device *w)
{
	*w = (struct apiwire_device){.name = (char *)d->name,
	                             .vendor = (char *)d->vendor,
	                             .platform = (char *)d->platform,
	                             .type = (char *)d->type,
	                             .compute_units = d->compute_units,
	                             .selected = (uint32_t)d->selected,
	                             .global_mem = d->global_mem,
	                             .max_alloc = d->max_alloc};
}

static void devices_of(carsh_machine *m, struct wbuf *x)
{
	size_t n = 0;
	struct carsh_device_info *info;
	struct apiwire_device *w;

	if (carsh_machine_device_count(m, &n))
		n = 0;
	info = xcalloc(n ? n : 1, sizeof(*info));
	w = xcalloc(n ? n : 1, sizeof(*w));
	for (size_t i = 0; i < n; i++) {
		if (carsh_machine_device_info(m, i, &info[i]))
			memset(&info[i], 0, sizeof(info[i])), info[i].type = "other";
		device_of(&info[i], &w[i]);
	}
	apiwire_encode_devices(w, n, x);
	free(w);
	free(info);
}

/* The machine, opened in the client's directory with its umask; its devices answer. */
static int serve_open(struct served *s, const struct wire_msg *m)
{
	struct api_open o = {0};
	struct wbuf x = WBUF_INIT;
	struct cs_err e;
	int rc;

	if (apiwire_decode_open(m->payload, m->len, &o, &e)) {
		answer(s, CARSH_E_ARG, e.msg, 0, NULL);
		return -1;
	}
	if (strcmp(o.version, PACKAGE_VERSION) != 0) {
		snprintf(e.msg, sizeof(e.msg),
		         "server: the carsh program is version %s, the library %s: set CARSH_EXE "
		         "to the carsh of the library's version",
		         PACKAGE_VERSION, o.version);
		answer(s, CARSH_E_DEVICE, e.msg, 0, NULL);
		apiwire_open_free(&o);
		return -1;
	}
	umask((mode_t)o.umask);
	rc = chdir(o.cwd) == 0 ? carsh_machine_open(o.device, &s->m) : CARSH_E_DEVICE;
	if (rc == 0 || s->m)
		devices_of(s->m, &x);
	answer(s, rc, s->m ? carsh_machine_last_error(s->m) : "server: cannot enter the directory",
	       0, &x);
	wb_free(&x);
	apiwire_open_free(&o);
	return rc;
}

/* ---- flow-models ---- */

static struct served_fm *fm_of(struct served *s, uint32_t id)
{
	return id < s->nfms && s->fms[id].fm ? &s->fms[id] : NULL;
}

static void serve_new(struct served *s, uint32_t type, const struct api_req *r)
{
	carsh_flowmodel *fm = NULL;
	int rc;

	if (!r->b || chdir(r->b) != 0) { /* the client's directory at the call */
		answer(s, CARSH_E_FILE, "server: cannot enter the program's directory", 0, NULL);
		return;
	}
	rc = type == API_FM_FILE ? carsh_flowmodel_from_file(s->m, r->a, &fm)
	                         : carsh_flowmodel_from_string(s->m, r->a, r->c, &fm);
	if (rc) {
		answer(s, rc, carsh_machine_last_error(s->m), 0, NULL);
		return;
	}
	s->fms = xrealloc(s->fms, (s->nfms + 1) * sizeof(*s->fms));
	s->fms[s->nfms] = (struct served_fm){.fm = fm};
	answer(s, 0, "", s->nfms++, NULL);
}

/* Whether the kernel may write the stream: those are copied back to the caller's memory. */
static bool stream_written(carsh_flowmodel *fm, const char *stream)
{
	size_t i;
	const struct fm_arg *a = flowmodel_arg(fm->fm, stream, &i);

	return a && (a->kind == ARG_OUTPUT || a->kind == ARG_INOUT);
}

/* The old mapping of the stream goes once the new binding has replaced it. */
static void map_keep(struct served_fm *f, const char *stream, void *p, size_t bytes)
{
	for (size_t i = 0; i < f->nmaps; i++)
		if (strcmp(f->maps[i].stream, stream) == 0) {
			munmap(f->maps[i].p, f->maps[i].bytes);
			f->maps[i].p = p;
			f->maps[i].bytes = bytes;
			return;
		}
	f->maps = xrealloc(f->maps, (f->nmaps + 1) * sizeof(*f->maps));
	f->maps[f->nmaps++] = (struct served_map){xstrdup(stream), p, bytes};
}

static void serve_bind(struct served *s, struct served_fm *f, const struct api_req *r,
                       const struct wire_msg *m)
{
	size_t bytes = (size_t)r->n;
	void *p = MAP_FAILED;
	int rc;

	if (m->nfds == 1 && bytes > 0)
		p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, m->fds[0], 0);
	if (p == MAP_FAILED && bytes > 0 && r->b) {
		answer(s, CARSH_E_DEVICE, "server: the stream's shared memory cannot be mapped", 0,
		       NULL);
		return;
	}
	rc = carsh_flowmodel_bind_memory(f->fm, r->a, r->b && p != MAP_FAILED ? p : NULL, bytes);
	if (rc) {
		if (p != MAP_FAILED)
			munmap(p, bytes);
		answer(s, rc, carsh_flowmodel_last_error(f->fm), 0, NULL);
		return;
	}
	map_keep(f, r->a, p, bytes);
	answer(s, 0, "", stream_written(f->fm, r->a), NULL);
}

static void serve_stats(struct served *s, struct served_fm *f)
{
	struct carsh_stats st;
	struct wbuf x = WBUF_INIT;
	int rc = carsh_flowmodel_stats(f->fm, &st);

	if (rc == 0)
		apiwire_encode_stats(&(struct apiwire_stats){.fires = st.fires,
		                                             .launches = st.launches,
		                                             .fire_ms = st.fire_ms,
		                                             .last_fire_ms = st.last_fire_ms,
		                                             .build_ms = st.build_ms,
		                                             .kernel_ms = st.kernel_ms,
		                                             .cache_hit = (uint32_t)st.cache_hit,
		                                             .device = st.device},
		                     &x);
	answer(s, rc, carsh_flowmodel_last_error(f->fm), 0, &x);
	wb_free(&x);
}

/* One call on a flow-model; its answer. */
static void serve_fm(struct served *s, uint32_t type, const struct api_req *r,
                     const struct wire_msg *m)
{
	struct served_fm *f = fm_of(s, r->id);
	int rc = 0, done = 1;
	size_t bytes = 0;

	if (!f) {
		answer(s, CARSH_E_ARG, "server: no such flow-model", 0, NULL);
		return;
	}
	switch (type) {
	case API_FM_FREE:
		served_fm_free(f);
		break;
	case API_SET_PARAM:
		rc = carsh_flowmodel_set_param(f->fm, r->a, r->b);
		break;
	case API_STREAM_BYTES:
		rc = carsh_flowmodel_stream_bytes(f->fm, r->a, &bytes);
		break;
	case API_BIND_MEMORY:
		serve_bind(s, f, r, m);
		return;
	case API_FIRE:
		rc = carsh_flowmodel_fire(f->fm);
		break;
	case API_FIRE_ASYNC:
		rc = carsh_flowmodel_fire_async(f->fm);
		break;
	case API_WAIT:
		rc = carsh_flowmodel_wait(f->fm);
		break;
	case API_TEST:
		rc = carsh_flowmodel_test(f->fm, &done);
		bytes = (size_t)done;
		break;
	case API_PROFILING:
		rc = carsh_flowmodel_set_profiling(f->fm, r->n != 0);
		break;
	case API_STATS:
		serve_stats(s, f);
		return;
	}
	answer(s, rc, rc ? carsh_flowmodel_last_error(f->fm) : "", bytes, NULL);
}

static void serve_one(struct served *s, const struct wire_msg *m)
{
	struct api_req r = {0};
	struct cs_err e;

	if (apiwire_decode_req(m->payload, m->len, &r, &e)) {
		answer(s, CARSH_E_ARG, e.msg, 0, NULL);
		return;
	}
	if (m->type == API_FM_FILE || m->type == API_FM_STRING)
		serve_new(s, m->type, &r);
	else if (m->type > API_FM_STRING && m->type <= API_STATS)
		serve_fm(s, m->type, &r, m);
	else
		answer(s, CARSH_E_ARG, "server: unknown request", 0, NULL);
	apiwire_req_free(&r);
}

/* Until the client closes the socket (its machine freed, or the program gone). */
int api_serve(int sock, struct wire_msg *open)
{
	struct served s = {.sock = sock};
	struct wire_msg m;
	struct cs_err e;

	if (serve_open(&s, open) == 0)
		while (wire_recv(sock, &m, &e) == 1) {
			serve_one(&s, &m);
			wire_msg_free(&m);
		}
	wire_msg_free(open);
	for (size_t i = 0; i < s.nfms; i++)
		if (s.fms[i].fm)
			served_fm_free(&s.fms[i]);
	free(s.fms);
	carsh_machine_free(s.m);
	return 0;
}
