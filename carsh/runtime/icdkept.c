/* The last narrowing of each device type, kept while what it read is unchanged
 * (runtime/icdkept.h). */
#include "runtime/icdkept.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/alloc.h"
#include "util/filewatch.h"

#define KEPT_TYPES 3 /* CPU, GPU, accelerator */
/* The files stamped: the ICD files, their libraries and the narrowed directory. */
#define STAMPS_MAX (2 * ICDS_MAX + 1)

struct stamp {
	char *path;
	struct stat st;
};

struct kept {
	cl_device_type type; /* 0: empty */
	char *key, *dir;
	struct strvec srcs;
	struct stamp stamps[STAMPS_MAX];
	size_t nstamps;
	bool narrowed;
	struct strvec env;
	/* Watched (util/filewatch.h) in watch_epoch, found unchanged at the count changes. */
	bool watched;
	unsigned long watch_epoch, changes;
};

static struct kept kept[KEPT_TYPES];
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static bool stamp_holds(const struct stamp *s)
{
	struct stat now;

	return stat(s->path, &now) == 0 && filewatch_same_stat(&now, &s->st);
}

static void kept_clear(struct kept *k)
{
	for (size_t i = 0; i < k->nstamps; i++)
		free(k->stamps[i].path);
	free(k->key);
	free(k->dir);
	sv_free(&k->srcs);
	sv_free(&k->env);
	memset(k, 0, sizeof(*k));
}

static bool same_sources(const struct kept *k, const struct icd_read *r)
{
	if (k->srcs.n != r->nsrc)
		return false;
	for (size_t i = 0; i < r->nsrc; i++)
		if (strcmp(k->srcs.v[i], r->srcs[i]) != 0)
			return false;
	return true;
}

static struct kept *slot(cl_device_type type)
{
	for (size_t i = 0; i < KEPT_TYPES; i++)
		if (kept[i].type == type)
			return &kept[i];
	return NULL;
}

bool icd_kept_watched(cl_device_type type, const char *key, bool *narrowed, struct strvec *env)
{
	struct kept *k;
	bool holds;

	pthread_mutex_lock(&kept_lock);
	k = slot(type);
	holds = k && k->watched && strcmp(k->key, key) == 0 &&
	        k->watch_epoch == filewatch_epoch() && k->changes == filewatch_changes();
	if (holds) {
		*narrowed = k->narrowed;
		sv_copy(env, &k->env);
	}
	pthread_mutex_unlock(&kept_lock);
	return holds;
}

/* The vendors directory and every file stamped watched; false where one cannot be. */
static bool watch_all(const struct kept *k)
{
	if (!filewatch_add(k->dir))
		return false;
	for (size_t i = 0; i < k->nstamps; i++)
		if (!filewatch_add(k->stamps[i].path))
			return false;
	return true;
}

/* Whether what k read is unchanged. Watched first where it was not in this epoch (tried
 * once an epoch), so that a change after the stat calls is reported. */
static bool unchanged(struct kept *k)
{
	unsigned long epoch = filewatch_epoch(), changes;

	if (k->watch_epoch != epoch) {
		k->watched = watch_all(k);
		k->watch_epoch = filewatch_epoch();
	}
	changes = filewatch_changes();
	for (size_t i = 0; i < k->nstamps; i++)
		if (!stamp_holds(&k->stamps[i]))
			return false;
	k->changes = changes;
	return true;
}

bool icd_kept_find(cl_device_type type, const struct icd_read *r, bool *narrowed,
                   struct strvec *env)
{
	struct kept *k;
	bool holds;

	pthread_mutex_lock(&kept_lock);
	k = slot(type);
	holds = k && strcmp(k->key, r->key) == 0 && same_sources(k, r) && unchanged(k);
	if (holds) {
		*narrowed = k->narrowed;
		sv_copy(env, &k->env);
	}
	pthread_mutex_unlock(&kept_lock);
	return holds;
}

/* The narrowed directory env names, or NULL. */
static const char *narrowed_dir(const struct strvec *env)
{
	static const char var[] = "OCL_ICD_VENDORS=";

	for (size_t i = 0; i < env->n; i++)
		if (strncmp(env->v[i], var, sizeof(var) - 1) == 0)
			return env->v[i] + sizeof(var) - 1;
	return NULL;
}

/* One more stamp of path; false when it cannot be taken (nothing is kept then). */
static bool add_stamp(struct kept *k, const char *path)
{
	struct stamp *s = &k->stamps[k->nstamps];

	if (k->nstamps == STAMPS_MAX || stat(path, &s->st) != 0)
		return false;
	s->path = xstrdup(path);
	k->nstamps++;
	return true;
}

static bool stamp_all(struct kept *k, const struct icd_read *r, const struct strvec *env)
{
	const char *dir = narrowed_dir(env);
	bool ok = true;

	for (size_t i = 0; i < r->nicd && ok; i++)
		ok = add_stamp(k, r->srcs[i]);
	for (size_t i = 0; r->libs && i < r->nsrc && ok; i++)
		if (strcmp(r->libs[i], "-") != 0)
			ok = add_stamp(k, r->libs[i]);
	return ok && (!dir || add_stamp(k, dir));
}

void icd_kept_store(cl_device_type type, const struct icd_read *r, bool narrowed,
                    const struct strvec *env)
{
	struct kept *k;

	pthread_mutex_lock(&kept_lock);
	k = slot(type);
	if (!k)
		k = slot(0);
	if (k) {
		kept_clear(k);
		k->key = xstrdup(r->key);
		k->dir = xasprintf("%s/", r->dir);
		for (size_t i = 0; i < r->nsrc; i++)
			sv_push(&k->srcs, r->srcs[i]);
		k->narrowed = narrowed;
		sv_copy(&k->env, env);
		k->type = stamp_all(k, r, env) ? type : 0;
		if (!k->type)
			kept_clear(k);
	}
	pthread_mutex_unlock(&kept_lock);
}
