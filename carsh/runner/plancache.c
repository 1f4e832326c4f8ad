#include "runner/plancache.h"

#include <stdlib.h>
#include <string.h>

#include "data/vbuf.h"
#include "util/alloc.h"

#define PLANS_MAX 64
/* Copies of one plan lent at once: a window's jobs in flight (exec/jobwin.c keeps at most
 * 16), and one more for the job that waits for room. */
#define COPIES_MAX 17

struct plan_entry {
	const struct exe *exe;
	char *device_cli;
	char **names, **values; /* every parameter of every layer of the caller's scope */
	size_t n;
	uint64_t stamp;                  /* every copy's (job_plan.stamp) */
	struct job_plan *jp[COPIES_MAX]; /* jp[0] first; NULL past the copies made */
	bool out[COPIES_MAX];            /* lent (plancache_lend), not given back yet */
};

struct plancache {
	struct plan_entry e[PLANS_MAX];
	size_t next; /* the slot to fill next, round robin */
};

struct plancache *plancache_new(void)
{
	return xcalloc(1, sizeof(struct plancache));
}

static void entry_clear(struct plan_entry *en)
{
	for (size_t i = 0; i < en->n; i++) {
		free(en->names[i]);
		free(en->values[i]);
	}
	free(en->names);
	free(en->values);
	free(en->device_cli);
	/* A copy still lent becomes its holder's: job_plan_free frees it then. */
	for (size_t i = 0; i < COPIES_MAX && en->jp[i]; i++) {
		en->jp[i]->give_back = NULL;
		if (!en->out[i])
			job_plan_free(en->jp[i]);
	}
	memset(en, 0, sizeof(*en));
}

void plancache_free(struct plancache *pc)
{
	if (!pc)
		return;
	for (size_t i = 0; i < PLANS_MAX; i++)
		entry_clear(&pc->e[i]);
	free(pc);
}

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The layers in order, shadowed names included: equal sequences see equal values. */
static bool same_scope(const struct plan_entry *en, const struct scope *sc)
{
	size_t k = 0;

	for (size_t l = 0; sc && l < sc->n; l++) {
		const struct params *ps = sc->layer[l];

		for (size_t i = 0; i < ps->n; i++, k++)
			if (k >= en->n || strcmp(en->names[k], ps->v[i].name) != 0 ||
			    strcmp(en->values[k], ps->v[i].value) != 0)
				return false;
	}
	return k == en->n;
}

static void keep_scope(struct plan_entry *en, const struct scope *sc)
{
	size_t n = 0, k = 0;

	for (size_t l = 0; sc && l < sc->n; l++)
		n += sc->layer[l]->n;
	en->names = xcalloc(n ? n : 1, sizeof(char *));
	en->values = xcalloc(n ? n : 1, sizeof(char *));
	for (size_t l = 0; sc && l < sc->n; l++)
		for (size_t i = 0; i < sc->layer[l]->n; i++, k++) {
			en->names[k] = xstrdup(sc->layer[l]->v[i].name);
			en->values[k] = xstrdup(sc->layer[l]->v[i].value);
		}
	en->n = n;
}

static bool all_buffers(const struct job_plan *jp)
{
	for (size_t i = 0; i < jp->kp.nargs; i++)
		if (arg_is_stream(jp->kp.args[i].kind) && jp->binds[i].how != BIND_BUFFER)
			return false;
	return true;
}

/* The <Buffer> names again, to the segments they name now. */
static int rebind(struct job_plan *jp, struct vbuf_table *vbufs, const struct plan_env *env,
                  struct cs_err *e)
{
	for (size_t i = 0; i < jp->kp.nargs; i++) {
		struct stream_bind *b = &jp->binds[i];
		char *shm;

		/* One look-up where the name is still a buffer of the stream's type and count;
		 * the resolver only for its message. */
		if (!arg_is_stream(jp->kp.args[i].kind) ||
		    vbuf_rebind(vbufs, b->buffer, jp->kp.args[i].type, jp->kp.args[i].count,
		                &b->shm))
			continue;
		if (env->resolve(env->resolve_ctx, b->buffer, jp->kp.args[i].type,
		                 jp->kp.args[i].count, &shm, e))
			return -1;
		if (strcmp(shm, b->shm) == 0) {
			free(shm);
		} else {
			free(b->shm);
			b->shm = shm;
		}
	}
	return 0;
}

static struct plan_entry *find(struct plancache *pc, const struct exe *exe,
                               const struct plan_env *env)
{
	for (size_t i = 0; i < PLANS_MAX; i++) {
		struct plan_entry *en = &pc->e[i];

		if (en->exe == exe && same_text(en->device_cli, env->device_cli) &&
		    same_scope(en, env->caller))
			return en;
	}
	return NULL;
}

/* A copy of en's plan not lent, its bindings resolved again: its index, or -1 (none free,
 * or a binding that no longer resolves: *stale then). */
static int free_copy(struct plan_entry *en, struct vbuf_table *vbufs, const struct plan_env *env,
                     bool *stale)
{
	struct cs_err ignored;

	*stale = false;
	for (int i = 0; i < COPIES_MAX && en->jp[i]; i++) {
		if (en->out[i])
			continue;
		if (rebind(en->jp[i], vbufs, env, &ignored) == 0)
			return i;
		*stale = true;
		return -1;
	}
	return -1;
}

/* A new entry for exe under env, holding jp as its first copy. */
static struct plan_entry *keep_new(struct plancache *pc, const struct exe *exe,
                                   const struct plan_env *env, struct job_plan *jp)
{
	static uint64_t stamps;
	struct plan_entry *en = &pc->e[pc->next];

	pc->next = (pc->next + 1) % PLANS_MAX;
	entry_clear(en);
	*en = (struct plan_entry){.exe = exe,
	                          .device_cli = env->device_cli ? xstrdup(env->device_cli) : NULL};
	/* Its copies are planned from the same key, so they differ in their objects only
	 * (rebind), which a keeper of their encoding compares itself. */
	en->stamp = __atomic_add_fetch(&stamps, 1, __ATOMIC_RELAXED);
	jp->stamp = en->stamp;
	en->jp[0] = jp;
	keep_scope(en, env->caller);
	return en;
}

int plancache_plan(struct plancache *pc, struct vbuf_table *vbufs, const struct exe *exe,
                   const struct plan_env *env, struct job_plan **jp, bool *kept, struct cs_err *e)
{
	struct plan_entry *en = find(pc, exe, env);
	bool stale = false;
	int i = en ? free_copy(en, vbufs, env, &stale) : -1;

	*kept = false;
	/* A binding that no longer resolves is planned again, for plan_exe's message. */
	if (i >= 0) {
		*jp = en->jp[i];
		*kept = true;
		return 0;
	}
	if (en)
		entry_clear(en);
	if (plan_exe(exe, env, jp, e))
		return -1;
	if (!all_buffers(*jp))
		return 0;
	keep_new(pc, exe, env, *jp);
	*kept = true;
	return 0;
}

/* job_plan_free of a lent copy: it is free again. arg: its entry's out flag (an entry
 * cleared while the copy was out took the copy's give_back away first). */
static void give_back(void *arg, struct job_plan *jp)
{
	bool *out = arg;

	(void)jp;
	*out = false;
}

static void lend(struct plan_entry *en, int i, struct job_plan **jp)
{
	en->out[i] = true;
	en->jp[i]->give_back = give_back;
	en->jp[i]->give_back_arg = &en->out[i];
	*jp = en->jp[i];
}

int plancache_lend(struct plancache *pc, struct vbuf_table *vbufs, const struct exe *exe,
                   const struct plan_env *env, struct job_plan **jp, struct cs_err *e)
{
	struct plan_entry *en = find(pc, exe, env);
	bool stale = false;
	int i = en ? free_copy(en, vbufs, env, &stale) : -1, n = 0;

	if (i >= 0) {
		lend(en, i, jp);
		return 0;
	}
	if (en && stale) { /* planned again, for plan_exe's message */
		entry_clear(en);
		en = NULL;
	}
	if (plan_exe(exe, env, jp, e))
		return -1;
	if (!all_buffers(*jp))
		return 0;
	if (!en) {
		lend(keep_new(pc, exe, env, *jp), 0, jp);
		return 0;
	}
	while (n < COPIES_MAX && en->jp[n])
		n++;
	if (n == COPIES_MAX) /* every copy out: this one is the job's own */
		return 0;
	en->jp[n] = *jp;
	(*jp)->stamp = en->stamp;
	lend(en, n, jp);
	return 0;
}
