#include "data/vbuf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "data/fill.h"
#include "data/vpixels.h"
#include "util/prefault.h"
#include "util/alloc.h"

#define SHM_PREFIX   "carsh-"
#define NAME_MAX_LEN 64

struct vbuf_table {
	pthread_mutex_t lock;
	struct vbuf *v;
	size_t n, cap;
	size_t total;
	struct vbuf_limits lim;
};

struct vbuf_table *vbuf_table_new(const struct vbuf_limits *lim)
{
	struct vbuf_table *t = xcalloc(1, sizeof(*t));

	pthread_mutex_init(&t->lock, NULL);
	if (lim)
		t->lim = *lim;
	return t;
}

void vbuf_entry_free(struct vbuf *v)
{
	free(v->name);
	free(v->shm);
	memset(v, 0, sizeof(*v));
}

void vbuf_table_unlink_all(struct vbuf_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (!t->v[i].borrowed) {
			shm_unlink(t->v[i].shm);
			vpixels_unlink(t->v[i].shm);
		}
}

void vbuf_table_free(struct vbuf_table *t)
{
	if (!t)
		return;
	vbuf_table_unlink_all(t);
	for (size_t i = 0; i < t->n; i++)
		vbuf_entry_free(&t->v[i]);
	free(t->v);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static bool name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > NAME_MAX_LEN)
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
			return false;
	return true;
}

static struct vbuf *find_locked(struct vbuf_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0)
			return &t->v[i];
	return NULL;
}

static int unknown(const char *name, struct cs_err *e)
{
	return err_set(e, "no virtual buffer '%s' (see 'virtbuf list')", name);
}

/* Whose segments this process makes: its own, or a served session's client's. */
static pid_t owner;

void vbuf_set_owner(pid_t pid)
{
	owner = pid;
}

/* The pid says whose it is (for stale cleanup); the random part keeps names unguessable
 * and distinct across masters that reuse a pid. */
static char *new_shm_name(void)
{
	uint64_t r;

	if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
		r = (uint64_t)time(NULL) * 6364136223846793005ULL ^ (uint64_t)clock();
	return xasprintf("/" SHM_PREFIX "%d-%016llx", (int)(owner ? owner : getpid()),
	                 (unsigned long long)r);
}

static int check_size(struct vbuf_table *t, const char *name, struct cs_type type, size_t count,
                      size_t *bytes, struct cs_err *e)
{
	if (count == 0)
		return err_set(e, "virtual buffer '%s': count must be at least 1", name);
	if (size_mul(count, type_size(type), bytes) || *bytes > (size_t)INT64_MAX)
		return err_set(e, "virtual buffer '%s': %zu elements do not fit in memory", name,
		               count);
	if (t->lim.max_buffer && *bytes > t->lim.max_buffer)
		return err_set(e,
		               "virtual buffer '%s': %zu bytes is over the limit of %zu per "
		               "buffer (CARSH_MAX_BUFFER)",
		               name, *bytes, t->lim.max_buffer);
	if (t->lim.max_total && (*bytes > t->lim.max_total - t->total))
		return err_set(e,
		               "virtual buffer '%s': %zu more bytes would pass the limit of %zu "
		               "for all buffers (CARSH_MAX_SHM); %zu are in use",
		               name, *bytes, t->lim.max_total, t->total);
	return 0;
}

/* The message of a buffer that does not fit (errors.tsv), at creation or at its first use. */
static int no_room(size_t bytes, struct cs_err *e)
{
	return err_set(e,
	               "%zu bytes do not fit in the shared memory left (/dev/shm: %s); "
	               "delete buffers or make it larger",
	               bytes, strerror(ENOSPC));
}

/* Size the object, sparse: a new object reads as zeros, so creating one writes nothing and
 * gives its pages only where they are first used (a buffer whose data lives on a device never
 * takes them). Reserving every page at creation (posix_fallocate) cost about as much as
 * writing them, and as much again to free them at the end. A buffer larger than the room left is
 * refused here; the pages are then reserved by the first mapping (map_object), so that a
 * /dev/shm filled meanwhile is an error there, never a SIGBUS at the first write. */
static int size_object(int fd, size_t bytes, struct cs_err *e)
{
	struct statvfs fs;

	if (ftruncate(fd, (off_t)bytes) != 0)
		return err_errno(e, "cannot size shared memory to %zu bytes", bytes);
	if (fstatvfs(fd, &fs) == 0 && fs.f_blocks > 0 &&
	    (unsigned long long)fs.f_bavail * fs.f_frsize < bytes)
		return no_room(bytes, e);
	return 0;
}

static char *create_object(size_t bytes, struct cs_err *e)
{
	for (int attempt = 0; attempt < 8; attempt++) {
		char *shm = new_shm_name();
		int fd = shm_open(shm, O_RDWR | O_CREAT | O_EXCL, 0600);

		if (fd < 0 && errno == EEXIST) {
			free(shm);
			continue;
		}
		if (fd < 0) {
			err_errno(e, "shm_open %s", shm);
			free(shm);
			return NULL;
		}
		if (size_object(fd, bytes, e) != 0) {
			close(fd);
			shm_unlink(shm);
			free(shm);
			return NULL;
		}
		close(fd);
		return shm;
	}
	err_set(e, "cannot find a free shared-memory name");
	return NULL;
}

/* Whether a buffer of that name and size may join the table; the caller holds t->lock. */
static int room_for(struct vbuf_table *t, const char *name, struct cs_type type, size_t count,
                    size_t *bytes, struct cs_err *e)
{
	if (find_locked(t, name))
		return err_set(e, "virtual buffer '%s' exists already (delete it first)", name);
	return check_size(t, name, type, count, bytes, e);
}

/* The table takes shm (owned); the caller holds t->lock. */
static void add_locked(struct vbuf_table *t, const char *name, char *shm, struct cs_type type,
                       size_t count, size_t bytes, bool borrowed)
{
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	t->v[t->n++] = (struct vbuf){xstrdup(name), shm, type, count, bytes, borrowed};
	t->total += bytes;
}

int vbuf_create(struct vbuf_table *t, const char *name, struct cs_type type, size_t count,
                struct cs_err *e)
{
	size_t bytes;
	char *shm;
	int rc = -1;

	if (name[0] == '-')
		return err_set(e,
		               "'%s': a buffer name cannot start with '-', where it would read as "
		               "an option ('virtbuf delete -a' deletes all); names hold letters, "
		               "digits, '_', '.', '-' (not first); at most %d",
		               name, NAME_MAX_LEN);
	if (!name_valid(name))
		return err_set(e,
		               "'%s' is not a valid buffer name (letters, digits, '_', '.', "
		               "'-'; at most %d)",
		               name, NAME_MAX_LEN);
	pthread_mutex_lock(&t->lock);
	if (room_for(t, name, type, count, &bytes, e) == 0) {
		shm = create_object(bytes, e);
		if (shm) {
			add_locked(t, name, shm, type, count, bytes, false);
			rc = 0;
		} else {
			err_prefix(e, "virtual buffer '%s': ", name);
		}
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

int vbuf_adopt(struct vbuf_table *t, const char *name, const char *shm, struct cs_type type,
               size_t count, struct cs_err *e)
{
	size_t bytes;
	int rc = -1;

	pthread_mutex_lock(&t->lock);
	if (room_for(t, name, type, count, &bytes, e) == 0) {
		add_locked(t, name, xstrdup(shm), type, count, bytes, true);
		rc = 0;
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

int vbuf_delete(struct vbuf_table *t, const char *name, struct cs_err *e)
{
	struct vbuf *v;
	int rc = 0;

	pthread_mutex_lock(&t->lock);
	v = find_locked(t, name);
	if (!v) {
		rc = unknown(name, e);
	} else {
		if (!v->borrowed) {
			shm_unlink(v->shm);
			vpixels_unlink(v->shm);
		}
		t->total -= v->bytes;
		vbuf_entry_free(v);
		*v = t->v[--t->n];
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

int vbuf_swap(struct vbuf_table *t, const char *a, const char *b, struct cs_err *e)
{
	struct vbuf *va, *vb;
	char *tmp;
	int rc = 0;

	pthread_mutex_lock(&t->lock);
	va = find_locked(t, a);
	vb = find_locked(t, b);
	if (!va || !vb) {
		rc = unknown(va ? b : a, e);
	} else {
		tmp = va->name;
		va->name = vb->name;
		vb->name = tmp;
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

static void copy_entry(struct vbuf *dst, const struct vbuf *src)
{
	*dst = *src;
	dst->name = xstrdup(src->name);
	dst->shm = xstrdup(src->shm);
}

bool vbuf_rebind(struct vbuf_table *t, const char *name, struct cs_type type, size_t count,
                 char **shm)
{
	struct vbuf *v;
	bool same;

	pthread_mutex_lock(&t->lock);
	v = find_locked(t, name);
	same = v && v->type.scalar == type.scalar && v->type.width == type.width &&
	       v->count == count;
	if (same && (!*shm || strcmp(v->shm, *shm) != 0)) {
		free(*shm);
		*shm = xstrdup(v->shm);
	}
	pthread_mutex_unlock(&t->lock);
	return same;
}

int vbuf_lookup(struct vbuf_table *t, const char *name, struct vbuf *out, struct cs_err *e)
{
	struct vbuf *v;
	int rc = 0;

	pthread_mutex_lock(&t->lock);
	v = find_locked(t, name);
	if (v)
		copy_entry(out, v);
	else
		rc = unknown(name, e);
	pthread_mutex_unlock(&t->lock);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct vbuf *)a)->name, ((const struct vbuf *)b)->name);
}

size_t vbuf_list(struct vbuf_table *t, struct vbuf **out)
{
	size_t n;

	pthread_mutex_lock(&t->lock);
	n = t->n;
	*out = xcalloc(n ? n : 1, sizeof(**out));
	for (size_t i = 0; i < n; i++)
		copy_entry(&(*out)[i], &t->v[i]);
	pthread_mutex_unlock(&t->lock);
	qsort(*out, n, sizeof(**out), by_name);
	return n;
}

size_t vbuf_names(struct vbuf_table *t, char ***out)
{
	struct vbuf *all;
	size_t n = vbuf_list(t, &all);

	*out = xcalloc(n ? n : 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		(*out)[i] = all[i].name;
		free(all[i].shm);
	}
	free(all);
	return n;
}

/* One inaccessible page on each side of every mapping. PoCL's CPU device runs kernels on the
 * mapping itself (CL_MEM_USE_HOST_PTR), and mmap places mappings next to each other: without
 * the guards a kernel writing just past its buffer could land in another buffer's pages
 * unnoticed; with them it is killed by SIGSEGV, and its job is reported as such. */
static size_t guard_size(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return page > 0 ? (size_t)page : 4096;
}

static size_t mapping_span(size_t bytes)
{
	size_t g = guard_size();

	return g + (bytes + g - 1) / g * g + g;
}

/* Whether every page of the object has been given (a sparse object's have not). */
static bool pages_given(int fd, size_t bytes)
{
	struct stat st;

	return fstat(fd, &st) == 0 && (unsigned long long)st.st_blocks * 512 >= bytes;
}

/* Where the pages could not be reserved (reserve_pages), they are taken now, checked: a full
 * /dev/shm is a message here instead of a SIGBUS in whoever touches the page. Where the
 * kernel cannot check either (before Linux 5.14) the pages come on first touch. */
static int take_pages(void *p, size_t bytes, bool writable, struct cs_err *e)
{
	if (prefault_checked(p, bytes, writable) == 0 || errno == EINVAL)
		return 0;
	if (errno == EFAULT || errno == ENOMEM)
		return no_room(bytes, e);
	return err_errno(e, "cannot map the pages of %zu bytes of shared memory", bytes);
}

/* The pages of an object that has not all of them yet, reserved in one call (posix_fallocate
 * gives them without clearing them, far faster than populating a hole page by page; the
 * clearing is left to the mapping's population or its writer's faults): 0 reserved, 1 not
 * (the file system cannot, or no writable descriptor), -1 with e (no room). */
static int reserve_pages(const char *shm, int fd, bool writable, size_t bytes, struct cs_err *e)
{
	int rw = writable ? fd : shm_open(shm, O_RDWR, 0);
	int rc;

	if (rw < 0)
		return 1;
	do
		rc = posix_fallocate(rw, 0, (off_t)bytes);
	while (rc == EINTR);
	if (!writable)
		close(rw);
	if (rc == 0)
		return 0;
	if (rc == EOPNOTSUPP || rc == EINVAL)
		return 1;
	if (rc == ENOSPC)
		return no_room(bytes, e);
	errno = rc;
	return err_errno(e, "cannot reserve %zu bytes of shared memory", bytes);
}

static void *map_object(const char *shm, size_t bytes, bool writable, bool populate,
                        struct cs_err *e)
{
	int fd = shm_open(shm, writable ? O_RDWR : O_RDONLY, 0);
	size_t span = mapping_span(bytes);
	bool given;
	char *area;
	void *p;

	if (fd < 0) {
		err_errno(e, "cannot open shared memory %s", shm);
		return NULL;
	}
	given = pages_given(fd, bytes);
	if (!given) {
		int rc = reserve_pages(shm, fd, writable, bytes, e);

		if (rc < 0) {
			close(fd);
			return NULL;
		}
		given = rc == 0;
	}
	area = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED) {
		close(fd);
		err_errno(e, "cannot map %zu bytes of shared memory %s", bytes, shm);
		return NULL;
	}
	p = mmap(area + guard_size(), bytes, writable ? PROT_READ | PROT_WRITE : PROT_READ,
	         MAP_SHARED | MAP_FIXED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		err_errno(e, "cannot map %zu bytes of shared memory %s", bytes, shm);
		munmap(area, span);
		return NULL;
	}
	if (!given && take_pages(p, bytes, writable, e) != 0) {
		munmap(area, span);
		return NULL;
	}
	if (given && populate)
		prefault(p, bytes, writable);
	return p;
}

/* Every caller goes over the whole buffer (a dump, a file's copy, a job's transfers): its
 * pages are mapped at once, over the cores, instead of one fault at a time in the copy. */
void *vbuf_map(const char *shm, size_t bytes, bool writable, struct cs_err *e)
{
	return map_object(shm, bytes, writable, true, e);
}

void *vbuf_map_lazy(const char *shm, size_t bytes, bool writable, struct cs_err *e)
{
	return map_object(shm, bytes, writable, false, e);
}

int vbuf_write(const char *shm, const void *src, size_t bytes, struct cs_err *e)
{
	int fd = shm_open(shm, O_RDWR, 0);
	size_t done = 0;

	if (fd < 0)
		return err_errno(e, "cannot open shared memory %s", shm);
	while (done < bytes) {
		ssize_t n = pwrite(fd, (const char *)src + done, bytes - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err_errno(e, "cannot write shared memory %s", shm);
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	if (close(fd) != 0)
		return err_errno(e, "cannot write shared memory %s", shm);
	return 0;
}

int vbuf_fill_pattern(const char *shm, const void *value, size_t size, struct cs_err *e)
{
	int fd = shm_open(shm, O_RDONLY, 0);
	struct stat st;
	size_t bytes;
	void *map;

	if (fd < 0)
		return err_errno(e, "cannot open shared memory %s", shm);
	if (fstat(fd, &st) != 0) {
		err_errno(e, "cannot open shared memory %s", shm);
		close(fd);
		return -1;
	}
	close(fd);
	bytes = (size_t)st.st_size;
	if (size == 0 || bytes == 0 || bytes % size)
		return err_set(e,
		               "shared memory %s: %zu bytes are no whole number of %zu-byte values",
		               shm, bytes, size);
	map = vbuf_map_lazy(shm, bytes, true, e);
	if (!map)
		return -1;
	fill_bytes_par(map, size, bytes / size, value);
	vbuf_unmap(map, bytes);
	return 0;
}

void *vbuf_guarded_alloc(size_t bytes, struct cs_err *e)
{
	size_t span = mapping_span(bytes);
	char *area =
	        mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (area == MAP_FAILED) {
		err_errno(e, "cannot map %zu bytes for a device copy", bytes);
		return NULL;
	}
	if (mprotect(area + guard_size(), span - 2 * guard_size(), PROT_READ | PROT_WRITE) != 0) {
		err_errno(e, "cannot map %zu bytes for a device copy", bytes);
		munmap(area, span);
		return NULL;
	}
	return area + guard_size();
}

int vbuf_guarded_protect(void *p, size_t bytes, bool writable)
{
	size_t g = guard_size();

	return mprotect(p, (bytes + g - 1) / g * g, writable ? PROT_READ | PROT_WRITE : PROT_READ);
}

void vbuf_unmap(void *p, size_t bytes)
{
	if (p)
		munmap((char *)p - guard_size(), mapping_span(bytes));
}

/* A segment is stale when its master is gone, or its pid now belongs to something that is
 * not carsh. A zombie master is gone: under MPI a rank killed by SIGKILL stays one until the
 * launcher reaps it, and the ranks stopped meanwhile, sweeping its segments, kept them
 * (tests/shell/mpi.sh, "a killed rank", 2 CI runs of 5). /proc/PID/stat gives both the name
 * and the state: "pid (comm) S ...", the state after the last ')', as comm may hold one. */
static bool master_alive(pid_t pid)
{
	char path[64], line[512] = "";
	char *name, *end;
	FILE *f;

	if (kill(pid, 0) != 0 && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return true; /* no /proc: trust kill() */
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	name = strchr(line, '(');
	end = strrchr(line, ')');
	if (!name || !end || end < name || (end[1] == ' ' && (end[2] == 'Z' || end[2] == 'X')))
		return false;
	*end = '\0';
	return strstr(name + 1, "carsh") != NULL;
}

/* Segments named from a pid for which gone(pid) holds. */
static int remove_named(bool (*gone)(pid_t pid, pid_t arg), pid_t arg)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *de;
	int removed = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char name[300];
		long pid;
		char *end;

		if (strncmp(de->d_name, SHM_PREFIX, strlen(SHM_PREFIX)) != 0)
			continue;
		pid = strtol(de->d_name + strlen(SHM_PREFIX), &end, 10);
		if (*end != '-' || pid <= 0 || !gone((pid_t)pid, arg))
			continue;
		snprintf(name, sizeof(name), "/%s", de->d_name);
		removed += shm_unlink(name) == 0;
	}
	closedir(d);
	return removed;
}

static bool dead(pid_t pid, pid_t arg)
{
	(void)arg;
	return !master_alive(pid);
}

static bool named_for(pid_t pid, pid_t arg)
{
	return pid == arg;
}

int vbuf_remove_stale(void)
{
	return remove_named(dead, 0);
}

int vbuf_remove_owned(pid_t pid)
{
	return remove_named(named_for, pid);
}

int vbuf_parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || errno || s[0] == '-')
		return -1;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (*end || (shift && v > (SIZE_MAX >> shift)))
		return -1;
	*out = (size_t)(v << shift);
	return 0;
}
