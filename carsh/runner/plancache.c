#include "runner/plancache.h"

#include <stdlib.h>
#include <string.h>

#include "data/vbuf.h"
#include "util/alloc.h"

#define PLANS_MAX 64

struct plan_entry {
	const struct exe *exe;
	char *device_cli;
	char **names, **values; /* every parameter of every layer of the caller's scope */
	size_t n;
	struct job_plan *jp;
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
	job_plan_free(en->jp);
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

		if (!arg_is_stream(jp->kp.args[i].kind) ||
		    vbuf_holds(vbufs, b->buffer, b->shm, jp->kp.args[i].type, jp->kp.args[i].count))
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

int plancache_plan(struct plancache *pc, struct vbuf_table *vbufs, const struct exe *exe,
                   const struct plan_env *env, struct job_plan **jp, bool *kept, struct cs_err *e)
{
	struct plan_entry *en = find(pc, exe, env);
	struct cs_err ignored;

	*kept = false;
	/* A binding that no longer resolves is planned again, for plan_exe's message. */
	if (en && rebind(en->jp, vbufs, env, &ignored) == 0) {
		*jp = en->jp;
		*kept = true;
		return 0;
	}
	if (en)
		entry_clear(en);
	if (plan_exe(exe, env, jp, e))
		return -1;
	if (!all_buffers(*jp))
		return 0;
	en = &pc->e[pc->next];
	pc->next = (pc->next + 1) % PLANS_MAX;
	entry_clear(en);
	*en = (struct plan_entry){.exe = exe,
	                          .device_cli = env->device_cli ? xstrdup(env->device_cli) : NULL,
	                          .jp = *jp};
	keep_scope(en, env->caller);
	*kept = true;
	return 0;
}
