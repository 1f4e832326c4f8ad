#include "model/filecache.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "model/xml.h"
#include "util/filewatch.h"
#include "util/path.h"

enum kind { K_ROOT, K_FLOWMODEL, K_EXE, K_BATCH };

#define DEPS_MAX 64

struct dep {
	char *path;
	struct stat st;
};

struct entry {
	enum kind kind;
	char *key; /* the working directory, a NUL, then the path as given */
	size_t keylen;
	struct dep deps[DEPS_MAX];
	size_t ndeps;
	void *value;
	unsigned checked; /* the generation it was last found unchanged in */
	bool once;        /* read from a stream: good for its own generation only */
	/* The epoch its watches were tried in (0: not yet), whether all were made, and the
	 * count of changes when it was last found unchanged (util/filewatch.h). */
	unsigned long watch_epoch, changes_seen;
	bool watched;
	struct entry *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *entries;
static unsigned generation = 1;
static char cwd[PATH_MAX];
static unsigned cwd_generation;

void filecache_new_generation(void)
{
	pthread_mutex_lock(&lock);
	generation++;
	pthread_mutex_unlock(&lock);
	file_streams_forget();
}

/* Relative paths inside a parsed file depend on the directory it was named from. */
/* The key into buf when it fits (the common case: no allocation for a lookup), else into
 * a new string; *len without the final NUL. */
static char *make_key(const char *path, char *buf, size_t size, size_t *len)
{
	size_t clen, plen = strlen(path);
	char *key;

	pthread_mutex_lock(&lock);
	if (cwd_generation != generation && !getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	cwd_generation = generation;
	clen = strlen(cwd);
	*len = clen + 1 + plen;
	key = *len < size ? buf : xmalloc(*len + 1);
	memcpy(key, cwd, clen + 1);
	memcpy(key + clen + 1, path, plen + 1);
	pthread_mutex_unlock(&lock);
	return key;
}

/* ctime too: a copy that keeps the old mtime (cp -p, rsync -t, tar) still changes it. */
/* The stats taken in this generation: a kernel source shared by many flow-models is looked
 * at once per command, not once per entry. Under the lock. */
#define SEEN_MAX 64
static struct {
	const char *path; /* a dep's own copy, alive as long as the entries */
	struct stat st;
	bool ok;
} seen[SEEN_MAX];
static size_t nseen;
static unsigned seen_generation;

static bool stat_once(const char *path, struct stat *st)
{
	bool ok;

	if (seen_generation != generation) {
		nseen = 0;
		seen_generation = generation;
	}
	for (size_t i = 0; i < nseen; i++)
		if (strcmp(seen[i].path, path) == 0) {
			*st = seen[i].st;
			return seen[i].ok;
		}
	ok = stat(path, st) == 0;
	if (nseen < SEEN_MAX) {
		seen[nseen].path = path;
		seen[nseen].st = *st;
		seen[nseen++].ok = ok;
	}
	return ok;
}

static bool fresh(const struct entry *en)
{
	for (size_t i = 0; i < en->ndeps; i++) {
		struct stat st;

		/* A dep absent when read (an include looked for in a folder) must stay absent. */
		if (!stat_once(en->deps[i].path, &st))
			memset(&st, 0, sizeof(st));
		if (!filewatch_same_stat(&st, &en->deps[i].st))
			return false;
	}
	return true;
}

/* What the kernel said of the watched files when this generation's first lookup was made. */
static unsigned long changes_now, epoch_now;
static unsigned told_generation;

static bool watch_deps(const struct entry *en)
{
	for (size_t i = 0; i < en->ndeps; i++)
		if (!filewatch_add(en->deps[i].path))
			return false;
	return true;
}

/* An entry checked again is watched from then on (a one-shot `carsh run` never makes an
 * inotify instance); the watches go first, so that a change after the stats is reported.
 * They are tried once an epoch: an entry that cannot be watched (a link on its path, NFS)
 * is stat'ed at every command, not also walked for watches. */
static bool unchanged(struct entry *en)
{
	if (told_generation != generation) {
		changes_now = filewatch_changes();
		epoch_now = filewatch_epoch();
		told_generation = generation;
	}
	if (en->watched && en->watch_epoch == epoch_now && en->changes_seen == changes_now)
		return true;
	if (en->watch_epoch != epoch_now) {
		en->watched = watch_deps(en);
		en->watch_epoch = epoch_now;
	}
	if (!fresh(en))
		return false;
	en->changes_seen = changes_now;
	return true;
}

static struct entry *find(enum kind kind, const char *key, size_t len)
{
	for (struct entry *en = entries; en; en = en->next) {
		if (en->kind != kind || en->keylen != len || memcmp(en->key, key, len) != 0)
			continue;
		if (en->checked == generation || (!en->once && unchanged(en))) {
			en->checked = generation;
			return en;
		}
	}
	return NULL;
}

/* Record a file the entry was read from; the stat is taken before reading, so a file that
 * changes while it is read makes the entry stale at once. A stream's stat says nothing of
 * its next text (a FIFO keeps its inode): an entry read from one is never found again after
 * its command, and stays in the list only for the jobs that may still use its value. */
static void add_dep(struct entry *en, const char *path)
{
	struct stat st;

	if (!path || path[0] == '<' || path_is_stdio(path))
		return;
	for (size_t i = 0; i < en->ndeps; i++)
		if (strcmp(en->deps[i].path, path) == 0)
			return;
	if (en->ndeps == DEPS_MAX) {
		en->once = true; /* a change to a file beyond the list would go unseen */
		return;
	}
	if (stat(path, &st) != 0)
		memset(&st, 0, sizeof(st));
	if (st.st_mode && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		en->once = true;
		return;
	}
	en->deps[en->ndeps].path = xstrdup(path);
	en->deps[en->ndeps++].st = st;
}

static void flowmodel_deps(struct entry *en, const struct flowmodel *fm)
{
	add_dep(en, fm->file);
	add_dep(en, fm->source_name); /* "<inline in ...>" is skipped */
	for (size_t i = 0; i < fm->ninclude_paths; i++)
		add_dep(en, fm->include_paths[i]);
}

static void steps_deps(struct entry *en, const struct step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (steps[i].exe)
			flowmodel_deps(en, steps[i].exe->fm);
		steps_deps(en, steps[i].steps, steps[i].nsteps);
	}
}

static void *load(enum kind kind, const char *path, struct entry *en, struct cs_err *e)
{
	struct flowmodel *fm;
	struct exe *exe;
	struct batch *b;

	switch (kind) {
	case K_ROOT:
		return xml_root_name(path, e);
	case K_FLOWMODEL:
		if (flowmodel_read(path, &fm, e))
			return NULL;
		flowmodel_deps(en, fm);
		return fm;
	case K_EXE:
		if (exe_read(path, &exe, e))
			return NULL;
		flowmodel_deps(en, exe->fm);
		return exe;
	case K_BATCH:
		if (batch_read(path, &b, e))
			return NULL;
		steps_deps(en, b->steps, b->nsteps);
		return b;
	}
	return NULL;
}

static void value_free(enum kind kind, void *v)
{
	switch (kind) {
	case K_ROOT:
		free(v);
		break;
	case K_FLOWMODEL:
		flowmodel_free(v);
		break;
	case K_EXE:
		exe_free(v);
		break;
	case K_BATCH:
		batch_free(v);
		break;
	}
}

static void entry_free(struct entry *en)
{
	if (en->value)
		value_free(en->kind, en->value);
	for (size_t i = 0; i < en->ndeps; i++)
		free(en->deps[i].path);
	free(en->key);
	free(en);
}

/* *file: the stat of path as the entry was last found unchanged (zeros without one). */
static void own_stat(const struct entry *en, const char *path, struct stat *file)
{
	if (!file)
		return;
	if (en->ndeps && strcmp(en->deps[0].path, path) == 0)
		*file = en->deps[0].st;
	else
		memset(file, 0, sizeof(*file));
}

static void *cached(enum kind kind, const char *path, struct stat *file, struct cs_err *e)
{
	struct entry *en;
	size_t len;
	char buf[512];
	char *key = make_key(path, buf, sizeof(buf), &len);

	pthread_mutex_lock(&lock);
	en = find(kind, key, len);
	pthread_mutex_unlock(&lock);
	if (en) {
		if (key != buf)
			free(key);
		own_stat(en, path, file);
		return en->value;
	}
	en = xcalloc(1, sizeof(*en));
	en->kind = kind;
	en->key = key != buf ? key : xstrndup(buf, len); /* the key holds one NUL inside */
	en->keylen = len;
	add_dep(en, path); /* before reading: a change while it is read makes it stale */
	en->value = load(kind, path, en, e);
	en->checked = generation;
	if (!en->value) {
		entry_free(en);
		return NULL;
	}
	own_stat(en, path, file);
	pthread_mutex_lock(&lock);
	en->next = entries;
	entries = en;
	pthread_mutex_unlock(&lock);
	return en->value;
}

const char *filecache_root(const char *path, struct cs_err *e)
{
	return cached(K_ROOT, path, NULL, e);
}

bool filecache_is_executable(const char *path)
{
	struct cs_err ignored;
	const char *root = filecache_root(path, &ignored);

	return root && (strcmp(root, "FlowModel") == 0 || strcmp(root, "CarshExe") == 0);
}

const struct flowmodel *filecache_flowmodel(const char *path, struct cs_err *e)
{
	return cached(K_FLOWMODEL, path, NULL, e);
}

const struct exe *filecache_exe(const char *path, struct cs_err *e)
{
	return cached(K_EXE, path, NULL, e);
}

const struct batch *filecache_batch(const char *path, struct stat *file, struct cs_err *e)
{
	return cached(K_BATCH, path, file, e);
}

void filecache_clear(void)
{
	pthread_mutex_lock(&lock);
	generation++; /* the directory is looked up again: the next session may have another */
	nseen = 0;    /* its paths belong to the entries */
	while (entries) {
		struct entry *en = entries;

		entries = en->next;
		entry_free(en);
	}
	pthread_mutex_unlock(&lock);
	file_streams_clear();
}
