/* The partition engine's knowledge base (engines/partition/kb.h, 001 §3.2). */
#include "engines/partition/kb.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cache.h"
#include "util/alloc.h"
#include "util/atomicfile.h"

#define KB_FILE  "partition-kb.txt"
#define KB_MAGIC "carsh-partition-kb"

char *kb_default_path(void)
{
	char *dir = cache_dir(), *path;

	if (!dir)
		return NULL;
	path = xasprintf("%s/%s", dir, KB_FILE);
	free(dir);
	return path;
}

static void entry_free(struct kb_entry *x)
{
	free(x->model);
	free(x->kernel);
	free(x->devices);
}

static void clear(struct part_kb *kb)
{
	for (size_t i = 0; i < kb->n; i++)
		entry_free(&kb->e[i]);
	kb->n = 0;
}

static void add(struct part_kb *kb, struct kb_entry x)
{
	if (kb->n == kb->cap) {
		kb->cap = kb->cap ? 2 * kb->cap : 16;
		kb->e = xrealloc(kb->e, kb->cap * sizeof(*kb->e));
	}
	kb->e[kb->n++] = x;
}

static bool number(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return end != s && *end == '\0' && errno == 0 && isfinite(*v) && *v >= 0;
}

/* One entry line (its newline removed); false when it is not one. */
static bool parse_entry(char *line, struct kb_entry *x)
{
	char *f[8], *save = NULL;
	double items;
	int n = 0;

	for (char *t = strtok_r(line, "\t", &save); t && n < 8; t = strtok_r(NULL, "\t", &save))
		f[n++] = t;
	if (n != 8 || strtok_r(NULL, "\t", &save) || !number(f[3], &items) || items < 1 ||
	    items != floor(items) || !number(f[4], &x->p.share) || x->p.share > 1 ||
	    !number(f[5], &x->p.lgpu) || !number(f[6], &x->p.lcpu) || !number(f[7], &x->step_ms))
		return false;
	x->items = (size_t)items;
	x->model = xstrdup(f[0]);
	x->kernel = xstrdup(f[1]);
	x->devices = xstrdup(f[2]);
	return true;
}

/* 0; 1 with the reason in kb->warning. */
static int read_file(struct part_kb *kb, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int version = 0, no = 1, rc = 0;
	char tail;

	len = getline(&line, &cap, f);
	if (len < 0) { /* an empty file: nothing known yet */
		free(line);
		return 0;
	}
	if (sscanf(line, KB_MAGIC " %d%c", &version, &tail) != 2 || tail != '\n') {
		snprintf(kb->warning, sizeof(kb->warning), "%s is not a partition knowledge base",
		         kb->path);
		rc = 1;
	} else if (version != KB_VERSION) {
		snprintf(kb->warning, sizeof(kb->warning), "%s has version %d, not %d", kb->path,
		         version, KB_VERSION);
		rc = 1;
	}
	while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
		struct kb_entry x;

		no++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (!parse_entry(line, &x)) {
			snprintf(kb->warning, sizeof(kb->warning), "%s:%d: not an entry", kb->path,
			         no);
			rc = 1;
		} else {
			add(kb, x);
		}
	}
	free(line);
	return rc;
}

struct part_kb *kb_open(const char *path)
{
	struct part_kb *kb = xcalloc(1, sizeof(*kb));
	FILE *f;

	kb->path = xstrdup(path);
	f = fopen(path, "r");
	if (!f) {
		if (errno != ENOENT)
			snprintf(kb->warning, sizeof(kb->warning), "%s: %s", path, strerror(errno));
		return kb;
	}
	if (read_file(kb, f)) {
		clear(kb);
		kb->changed = true; /* rebuilt at the next save */
		strncat(kb->warning, " (it is rebuilt)",
		        sizeof(kb->warning) - strlen(kb->warning) - 1);
	}
	fclose(f);
	return kb;
}

void kb_free(struct part_kb *kb)
{
	if (!kb)
		return;
	clear(kb);
	free(kb->e);
	free(kb->path);
	free(kb);
}

static int write_kb(FILE *f, const char *name, void *arg, struct cs_err *e)
{
	const struct part_kb *kb = arg;

	fprintf(f, "%s %d\n", KB_MAGIC, KB_VERSION);
	for (size_t i = 0; i < kb->n; i++) {
		const struct kb_entry *x = &kb->e[i];

		fprintf(f, "%s\t%s\t%s\t%zu\t%.6f\t%.6g\t%.6g\t%.6g\n", x->model, x->kernel,
		        x->devices, x->items, x->p.share, x->p.lgpu, x->p.lcpu, x->step_ms);
	}
	return file_flush(f, name, e);
}

int kb_save(struct part_kb *kb, struct cs_err *e)
{
	if (!kb->changed)
		return 0;
	if (atomic_write(kb->path, write_kb, kb, e))
		return -1;
	kb->changed = false;
	return 0;
}

static bool same_set(const struct kb_entry *x, const struct kb_key *k)
{
	return strcmp(x->model, k->model) == 0 && strcmp(x->kernel, k->kernel) == 0 &&
	       strcmp(x->devices, k->devices) == 0;
}

static double lerp(double a, double b, double t)
{
	return a + (b - a) * t;
}

bool kb_lookup(const struct part_kb *kb, const struct kb_key *k, struct sched_prior *p)
{
	const struct kb_entry *lo = NULL, *hi = NULL;
	double t;

	for (size_t i = 0; i < kb->n; i++) {
		const struct kb_entry *x = &kb->e[i];

		if (!same_set(x, k))
			continue;
		if (x->items <= k->items && (!lo || x->items > lo->items))
			lo = x;
		if (x->items >= k->items && (!hi || x->items < hi->items))
			hi = x;
	}
	if (!lo || !hi) {
		if (!lo && !hi)
			return false;
		*p = (lo ? lo : hi)->p; /* outside the known sizes: the nearest */
		return true;
	}
	if (lo->items == hi->items) {
		*p = lo->p;
		return true;
	}
	t = (double)(k->items - lo->items) / (double)(hi->items - lo->items);
	p->share = lerp(lo->p.share, hi->p.share, t);
	p->lgpu = lerp(lo->p.lgpu, hi->p.lgpu, t);
	p->lcpu = lerp(lo->p.lcpu, hi->p.lcpu, t);
	return true;
}

/* A field of the line format holds no tab or newline. */
static bool plain(const char *s)
{
	return s && *s && !strpbrk(s, "\t\n\r");
}

void kb_learn(struct part_kb *kb, const struct kb_key *k, const struct sched_prior *p,
              double step_ms)
{
	struct kb_entry x = {NULL, NULL, NULL, k->items, *p, step_ms};

	if (!plain(k->model) || !plain(k->kernel) || !plain(k->devices) || k->items == 0)
		return;
	for (size_t i = 0; i < kb->n; i++)
		if (same_set(&kb->e[i], k) && kb->e[i].items == k->items) {
			kb->e[i].p = *p;
			kb->e[i].step_ms = step_ms;
			kb->changed = true;
			return;
		}
	x.model = xstrdup(k->model);
	x.kernel = xstrdup(k->kernel);
	x.devices = xstrdup(k->devices);
	add(kb, x);
	kb->changed = true;
}

size_t kb_forget(struct part_kb *kb, const char *model)
{
	size_t kept = 0, gone;

	for (size_t i = 0; i < kb->n; i++) {
		if (!model || strcmp(kb->e[i].model, model) == 0)
			entry_free(&kb->e[i]);
		else
			kb->e[kept++] = kb->e[i];
	}
	gone = kb->n - kept;
	kb->n = kept;
	if (gone)
		kb->changed = true;
	return gone;
}

void kb_print(FILE *f, const struct part_kb *kb)
{
	for (size_t i = 0; i < kb->n; i++) {
		const struct kb_entry *x = &kb->e[i];

		fprintf(f,
		        "%s %s  [%s]  %zu items: GPU %.1f %%, GPU %.6g items/ms, core %.6g "
		        "items/ms, step %.3f ms\n",
		        x->model, x->kernel, x->devices, x->items, 100 * x->p.share, x->p.lgpu,
		        x->p.lcpu, x->step_ms);
	}
}
