#include "runner/shellstate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/devstate.h"
#include "runner/enginekeep.h"
#include "runner/plancache.h"
#include "mpi/replicas.h"
#include "data/types.h"
#include "data/vhome.h"
#include "exec/homes.h"
#include "exec/workers.h"
#include "model/exe.h"
#include "model/flowmodel.h"
#include "model/fmnames.h"
#include "util/alloc.h"
#include "mpi/ranks.h"

static size_t limit_from_env(const char *name)
{
	const char *v = getenv(name);
	size_t n = 0;

	if (v && v[0] && vbuf_parse_size(v, &n) != 0) {
		fprintf(stderr, "carsh: %s='%s' is not a size (e.g. 512M); ignoring it\n", name, v);
		n = 0;
	}
	return n;
}

/* How many idle warm workers a shell keeps: each holds a context on its device, and a
 * pipelined graph runs up to 7 flow-models of a stage at once (the FFT filter). */
#define WORKERS_KEEP_IDLE 8

static void warn(const char *msg)
{
	fprintf(stderr, "carsh: %s\n", msg);
}

/* CARSH_SERVER=off keeps the workers in this process (docs/server.md); else they are the
 * user's carsh server's, which is reached on the first job. */
static bool server_from_env(void)
{
	const char *v = getenv("CARSH_SERVER");

	if (v && strcmp(v, "off") == 0)
		return false;
	if (v && v[0] && strcmp(v, "on") != 0)
		fprintf(stderr, "carsh: CARSH_SERVER='%s' is not on or off; using on\n", v);
	return true;
}

/* CARSH_WORKERS=fresh forks a process per job, as CarSh did before warm workers (for
 * comparisons and for drivers that misbehave in a long-lived process). */
static struct workers *workers_from_env(void)
{
	const char *v = getenv("CARSH_WORKERS");

	if (v && strcmp(v, "fresh") == 0)
		return NULL;
	if (v && v[0] && strcmp(v, "warm") != 0)
		fprintf(stderr, "carsh: CARSH_WORKERS='%s' is not warm or fresh; using warm\n", v);
	/* Ranks keep their workers: docs/scale-out.md "Workers". */
	if (!ranks_started() && server_from_env())
		return workers_new_served(WORKERS_KEEP_IDLE, warn);
	return workers_new(WORKERS_KEEP_IDLE);
}

struct session *session_new(void)
{
	struct session *s = xcalloc(1, sizeof(*s));
	struct vbuf_limits lim = {limit_from_env("CARSH_MAX_BUFFER"),
	                          limit_from_env("CARSH_MAX_SHM")};

	s->jobs = jobs_new();
	s->workers = workers_from_env();
	s->plans = plancache_new();
	s->vbufs = vbuf_table_new(&lim);
	s->hz = hazards_new();
	s->homes = vhome_new();
	pthread_mutex_init(&s->texec_lock, NULL);
	if (ranks_size() > 1)
		s->replicas = replicas_new(ranks_size());
	return s;
}

void session_free(struct session *s)
{
	if (!s)
		return;
	engine_proc_end_kept(s);
	jobs_free(s->jobs);
	workers_free(s->workers);
	texec_free(s->texec);
	plancache_free(s->plans);
	placer_free(s->placer);
	pthread_mutex_destroy(&s->texec_lock);
	vbuf_table_free(s->vbufs);
	replicas_free(s->replicas);
	hazards_free(s->hz);
	vhome_free(s->homes);
	params_free(&s->vars);
	free(s->device_cli);
	free(s);
}

int session_finish_work(struct session *s, struct cs_err *e)
{
	return s->workers ? workers_finish_all(s->workers, e) : 0;
}

struct texec *session_texec(struct session *s)
{
	pthread_mutex_lock(&s->texec_lock);
	if (!s->texec) {
		struct cs_err e;

		/* It reads shared memory: what warm workers hold comes back first (a buffer
		 * that cannot is lost, and says so to the default executor's readers). */
		if (homes_all_to_host(s->homes, s->workers, &e))
			fprintf(stderr, "carsh: %s\n", e.msg);
		s->texec = texec_new();
	}
	pthread_mutex_unlock(&s->texec_lock);
	return s->texec;
}

bool session_stats_on(const struct params *vars)
{
	const struct param *p = params_get(vars, "stats");

	return p && (strcmp(p->value, "on") == 0 || strcmp(p->value, "1") == 0);
}

unsigned session_timeout(const struct params *vars)
{
	const struct param *p = params_get(vars, "timeout");

	return p ? (unsigned)strtoul(p->value, NULL, 10) : 0;
}

int session_resolve_buffer(void *ctx, const char *name, struct cs_type type, size_t count,
                           char **shm, struct cs_err *e)
{
	struct session *s = ctx;
	struct vbuf v;
	char want[16], have[16];

	if (vbuf_lookup(s->vbufs, name, &v, e))
		return -1;
	if (v.type.scalar != type.scalar || v.type.width != type.width || v.count != count) {
		err_set(e, "virtual buffer '%s' holds %zu %s, the stream needs %zu %s", name,
		        v.count, type_name(v.type, have, sizeof(have)), count,
		        type_name(type, want, sizeof(want)));
		vbuf_entry_free(&v);
		return -1;
	}
	*shm = v.shm;
	v.shm = NULL;
	vbuf_entry_free(&v);
	return 0;
}

/* Split NAME=VALUE; NULL when the word has no '=' or an empty name. */
static char *word_name(const char *w, const char **value)
{
	const char *eq = strchr(w, '=');

	if (!eq || eq == w)
		return NULL;
	*value = eq + 1;
	return xstrndup(w, (size_t)(eq - w));
}

int session_read_words(struct exe *exe, int n, char **words, struct params *args, struct cs_err *e)
{
	for (int i = 0; i < n; i++) {
		const char *value;
		char *name = word_name(words[i], &value);
		const struct fm_arg *a;
		int rc = 0;

		if (!name)
			return err_set(e, "'%s': expected NAME=VALUE or STREAM=FILE", words[i]);
		a = exe ? flowmodel_arg(exe->fm, name, NULL) : NULL;
		if (a && arg_is_stream(a->kind))
			rc = exe_bind_word(exe, name, value, e);
		else if (!param_name_valid(name))
			rc = err_set(e, "'%s' is not a valid parameter name", name);
		else if (exe && flowmodel_check_name(exe->fm, name, e))
			rc = -1;
		else
			params_set(args, name, value, "command line");
		free(name);
		if (rc)
			return -1;
	}
	return 0;
}
