/* The profile history (data/profstore.h). */
#include "data/profstore.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/atomicfile.h"

#define MAGIC "carsh-profiles"

/* partition:     MODEL KERNEL DEVICES | SHARE GPU_ITEMS_PER_MS CORE_ITEMS_PER_MS STEP_MS
 * partition-map: MODEL KERNEL DEVICES | 64 x a core's MS_PER_ITEM, region by region
 * device:        MODEL KERNEL DEVICE  | TIME_MS ENERGY_MJ RUNS
 * pipeline:      PIPELINE DEVICES FAMILY | MEASURED/PREDICTED RUNS */
static const struct {
	const char *kind;
	int nkeys, nvalues;
} kinds[] = {
        {"partition", 3, 4},
        {"partition-map", 3, 64},
        {"device", 3, 3},
        {"pipeline", 3, 2},
};

static int kind_at(const char *kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].kind, kind) == 0)
			return (int)i;
	return -1;
}

int profstore_nkeys(const char *kind)
{
	int k = kind_at(kind);

	return k < 0 ? -1 : kinds[k].nkeys;
}

int profstore_nvalues(const char *kind)
{
	int k = kind_at(kind);

	return k < 0 ? -1 : kinds[k].nvalues;
}

static void rec_free(struct prof_rec *x)
{
	free(x->kind);
	for (int i = 0; i < PROF_MAX_KEYS; i++)
		free(x->keys[i]);
}

static void clear(struct profstore *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		rec_free(&ps->r[i]);
	ps->n = 0;
}

static void add(struct profstore *ps, struct prof_rec x)
{
	ps->r = xgrow(ps->r, &ps->cap, ps->n + 1, sizeof(*ps->r));
	ps->r[ps->n++] = x;
}

/* Values may be -1 (not measured: an energy without a counter), never another negative. */
static bool number(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return end != s && *end == '\0' && errno == 0 && isfinite(*v) && (*v >= 0 || *v == -1);
}

/* One record line (its newline removed); false when it is not one of a known kind. */
static bool parse_rec(char *line, struct prof_rec *x)
{
	char *f[1 + PROF_MAX_KEYS + 1 + PROF_MAX_VALUES + 1], *save = NULL;
	int n = 0, k, nk, nv;
	double size;

	for (char *t = strtok_r(line, "\t", &save); t && n < (int)(sizeof(f) / sizeof(f[0]));
	     t = strtok_r(NULL, "\t", &save))
		f[n++] = t;
	if (n < 1 || (k = kind_at(f[0])) < 0)
		return false;
	nk = kinds[k].nkeys;
	nv = kinds[k].nvalues;
	if (n != 1 + nk + 1 + nv || !number(f[1 + nk], &size) || size < 1 || size != floor(size))
		return false;
	memset(x, 0, sizeof(*x));
	for (int i = 0; i < nv; i++)
		if (!number(f[2 + nk + i], &x->v[i]))
			return false;
	x->size = (size_t)size;
	x->kind = xstrdup(f[0]);
	for (int i = 0; i < nk; i++)
		x->keys[i] = xstrdup(f[1 + i]);
	return true;
}

/* Read f into ps: 0; 1 with the reason in ps->warning. */
static int read_records(struct profstore *ps, FILE *f)
{
	char *line = NULL, tail;
	size_t cap = 0;
	ssize_t len;
	int version = 0, no = 1, rc = 0;

	len = getline(&line, &cap, f);
	if (len < 0) { /* an empty file: nothing known yet */
		free(line);
		return 0;
	}
	if (sscanf(line, MAGIC " %d%c", &version, &tail) != 2 || tail != '\n') {
		snprintf(ps->warning, sizeof(ps->warning), "%s is not a profile history", ps->path);
		rc = 1;
	} else if (version != PROFSTORE_VERSION) {
		snprintf(ps->warning, sizeof(ps->warning), "%s has version %d, not %d", ps->path,
		         version, PROFSTORE_VERSION);
		rc = 1;
	}
	while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
		struct prof_rec x;

		no++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (!parse_rec(line, &x)) {
			snprintf(ps->warning, sizeof(ps->warning), "%s:%d: not an entry", ps->path,
			         no);
			rc = 1;
		} else {
			add(ps, x);
		}
	}
	free(line);
	return rc;
}

/* 0, or 1 with a warning (the records read so far are dropped). */
static int load(struct profstore *ps)
{
	FILE *f = fopen(ps->path, "r");
	int rc;

	if (!f) {
		int err = errno;

		if (err == ENOENT)
			return 0;
		snprintf(ps->warning, sizeof(ps->warning), "%s: %s", ps->path, strerror(err));
		return 1;
	}
	rc = read_records(ps, f);
	fclose(f);
	if (rc)
		clear(ps);
	return rc;
}

struct profstore *profstore_open(const char *path)
{
	struct profstore *ps = xcalloc(1, sizeof(*ps));

	ps->path = xstrdup(path);
	if (load(ps) && access(path, F_OK) == 0) {
		ps->rebuild = true;
		strncat(ps->warning, " (it is rebuilt)",
		        sizeof(ps->warning) - strlen(ps->warning) - 1);
	}
	return ps;
}

void profstore_free(struct profstore *ps)
{
	if (!ps)
		return;
	clear(ps);
	free(ps->r);
	free(ps->path);
	free(ps);
}

static bool same_keys(const struct prof_rec *x, const char *kind, const char *const *keys)
{
	int nk = profstore_nkeys(kind);

	if (strcmp(x->kind, kind) != 0)
		return false;
	for (int i = 0; i < nk; i++)
		if (strcmp(x->keys[i], keys[i]) != 0)
			return false;
	return true;
}

bool profstore_near(const struct profstore *ps, const char *kind, const char *const *keys,
                    size_t size, const struct prof_rec **lo, const struct prof_rec **hi)
{
	*lo = *hi = NULL;
	for (size_t i = 0; i < ps->n; i++) {
		const struct prof_rec *x = &ps->r[i];

		if (x->gone || !same_keys(x, kind, keys))
			continue;
		if (x->size <= size && (!*lo || x->size > (*lo)->size))
			*lo = x;
		if (x->size >= size && (!*hi || x->size < (*hi)->size))
			*hi = x;
	}
	return *lo || *hi;
}

double profstore_lerp(const struct prof_rec *lo, const struct prof_rec *hi, size_t size, int i)
{
	double t;

	if (lo->size == hi->size)
		return lo->v[i];
	t = ((double)size - (double)lo->size) / ((double)hi->size - (double)lo->size);
	return lo->v[i] + (hi->v[i] - lo->v[i]) * t;
}

/* A field of the line format holds no tab or newline. */
static bool plain(const char *s)
{
	return s && *s && !strpbrk(s, "\t\n\r");
}

static void put_rec(struct profstore *ps, const struct prof_rec *src)
{
	int nk = profstore_nkeys(src->kind), nv = profstore_nvalues(src->kind);
	struct prof_rec x = {0};

	for (size_t i = 0; i < ps->n; i++) {
		struct prof_rec *y = &ps->r[i];

		if (y->size == src->size &&
		    same_keys(y, src->kind, (const char *const *)src->keys)) {
			memcpy(y->v, src->v, sizeof(y->v));
			y->gone = src->gone;
			y->changed = true;
			return;
		}
	}
	x.kind = xstrdup(src->kind);
	for (int i = 0; i < nk; i++)
		x.keys[i] = xstrdup(src->keys[i]);
	x.size = src->size;
	memcpy(x.v, src->v, (size_t)nv * sizeof(double));
	x.gone = src->gone;
	x.changed = true;
	add(ps, x);
}

void profstore_put(struct profstore *ps, const char *kind, const char *const *keys, size_t size,
                   const double *v)
{
	int nk = profstore_nkeys(kind), nv = profstore_nvalues(kind);
	struct prof_rec x = {0};

	if (nk < 0 || size == 0)
		return;
	for (int i = 0; i < nk; i++)
		if (!plain(keys[i]))
			return;
	x.kind = (char *)kind;
	memcpy(x.keys, keys, (size_t)nk * sizeof(char *));
	x.size = size;
	memcpy(x.v, v, (size_t)nv * sizeof(double));
	put_rec(ps, &x);
}

size_t profstore_forget(struct profstore *ps, const char *kind, const char *key0)
{
	size_t gone = 0;

	for (size_t i = 0; i < ps->n; i++) {
		struct prof_rec *x = &ps->r[i];

		if (x->gone || strcmp(x->kind, kind) != 0 || (key0 && strcmp(x->keys[0], key0)))
			continue;
		x->gone = x->changed = true;
		gone++;
	}
	return gone;
}

static int write_records(FILE *f, const char *name, void *arg, struct cs_err *e)
{
	const struct profstore *ps = arg;

	fprintf(f, "%s %d\n", MAGIC, PROFSTORE_VERSION);
	for (size_t i = 0; i < ps->n; i++) {
		const struct prof_rec *x = &ps->r[i];
		int nk = profstore_nkeys(x->kind), nv = profstore_nvalues(x->kind);

		if (x->gone)
			continue;
		fputs(x->kind, f);
		for (int k = 0; k < nk; k++)
			fprintf(f, "\t%s", x->keys[k]);
		fprintf(f, "\t%zu", x->size);
		for (int k = 0; k < nv; k++)
			fprintf(f, "\t%.6g", x->v[k]);
		fputc('\n', f);
	}
	return file_flush(f, name, e);
}

/* The file as another process left it, with our changes over it. */
static struct profstore *merged(const struct profstore *ps)
{
	struct profstore *now = xcalloc(1, sizeof(*now));

	now->path = xstrdup(ps->path);
	if (ps->rebuild || load(now))
		clear(now);
	for (size_t i = 0; i < ps->n; i++)
		if (ps->r[i].changed)
			put_rec(now, &ps->r[i]);
	return now;
}

static bool any_changed(const struct profstore *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		if (ps->r[i].changed)
			return true;
	return ps->rebuild;
}

int profstore_save(struct profstore *ps, struct cs_err *e)
{
	char *lock_path;
	struct profstore *now;
	int fd, rc;

	if (!any_changed(ps))
		return 0;
	lock_path = xasprintf("%s.lock", ps->path);
	fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	free(lock_path);
	/* Without the lock the save still goes ahead: a lost record is only a lost
	 * measurement, never a wrong one. */
	while (fd >= 0 && flock(fd, LOCK_EX) != 0 && errno == EINTR)
		;
	now = merged(ps);
	rc = atomic_write(ps->path, write_records, now, e);
	if (fd >= 0)
		close(fd);
	profstore_free(now);
	if (rc == 0) {
		ps->rebuild = false;
		for (size_t i = 0; i < ps->n; i++)
			ps->r[i].changed = false;
	}
	return rc;
}
