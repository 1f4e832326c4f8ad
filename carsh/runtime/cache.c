/*
 * The program binary cache (DESIGN §5). One file per key:
 *   "CARSHBIN1\n", key length, key, binary length, binary, FNV-1a 64 of the binary
 * with the integers as 8-byte little-endian values. The full key is stored and compared, so
 * two keys whose file names collide never share a binary.
 */
#include "runtime/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/atomicfile.h"
#include "util/hash.h"
#include "util/strbuf.h"

#define CACHE_MAGIC "CARSHBIN1\n"
#define MAGIC_LEN   (sizeof(CACHE_MAGIC) - 1)

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* mkdir -p with mode 0700 for what it creates (the XDG base directory rule). A component
 * that exists already may still refuse mkdir (EACCES, EROFS), hence the is_dir test. */
static int mkdir_p(char *path)
{
	for (char *p = path + 1;; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST && !is_dir(path)) {
			*p = c;
			return -1;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	return is_dir(path) ? 0 : -1;
}

char *cache_dir(void)
{
	const char *off = getenv("CARSH_NO_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char *dir;

	if (off && strcmp(off, "1") == 0)
		return NULL;
	/* XDG: a relative XDG_CACHE_HOME is invalid and is ignored. */
	if (xdg && xdg[0] == '/')
		dir = xasprintf("%s/carsh", xdg);
	else if (home && home[0] == '/')
		dir = xasprintf("%s/.cache/carsh", home);
	else
		return NULL;
	/* Made once: asked again at every command (the ICD narrowing, exec/workers.c), an
	 * existing one costs a stat, not a mkdir of each component. */
	if (is_dir(dir) && access(dir, W_OK | X_OK) == 0)
		return dir;
	if (mkdir_p(dir) != 0 || access(dir, W_OK | X_OK) != 0) {
		free(dir);
		return NULL;
	}
	return dir;
}

char *cache_file(const char *name)
{
	char *dir = cache_dir(), *path;

	if (!dir)
		return NULL;
	path = xasprintf("%s/%s", dir, name);
	free(dir);
	return path;
}

static int build_lock(int how);

int cache_build_lock(void)
{
	return build_lock(LOCK_EX);
}

/* A build holds the lock for seconds at most; a start waits no longer than this for it. */
#define START_LOCK_TRIES 200 /* of 10 ms */

int cache_start_lock(void)
{
	for (int i = 0; i < START_LOCK_TRIES; i++) {
		int fd = build_lock(LOCK_SH | LOCK_NB);
		struct timespec ten_ms = {0, 10000000L};

		if (fd >= 0)
			return fd;
		nanosleep(&ten_ms, NULL);
	}
	return -1;
}

static int build_lock(int how)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char *root, *path;
	int fd;

	if (xdg && xdg[0] == '/')
		root = xstrdup(xdg);
	else if (home && home[0] == '/')
		root = xasprintf("%s/.cache", home);
	else
		return -1;
	path = xasprintf("%s/carsh-build.lock", root);
	fd = mkdir_p(root) == 0 ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600) : -1;
	free(root);
	free(path);
	if (fd < 0)
		return -1;
	while (flock(fd, how) != 0) {
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

void cache_build_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* closing the descriptor releases the flock */
}

/* Each field with its length, so that no choice of texts can make two keys equal. */
static void key_field(struct strbuf *sb, const char *name, const char *value)
{
	sb_addf(sb, "%s %zu:", name, strlen(value));
	sb_adds(sb, value);
	sb_addc(sb, '\n');
}

char *cache_key(const char *platform_version, const char *device_name, const char *device_version,
                const char *driver_version, const char *options, const char *source,
                const char *includes)
{
	struct strbuf sb = STRBUF_INIT;

	sb_adds(&sb, "carsh binary cache 2\n");
	key_field(&sb, "platform", platform_version);
	key_field(&sb, "device", device_name);
	key_field(&sb, "device-version", device_version);
	key_field(&sb, "driver", driver_version);
	key_field(&sb, "options", options);
	key_field(&sb, "source", source);
	key_field(&sb, "includes", includes ? includes : "");
	return sb_detach(&sb);
}

char *cache_file_for(const char *dir, const char *key)
{
	uint64_t h = fnv64(FNV64_INIT, key, strlen(key));

	return xasprintf("%s/%016llx.bin", dir, (unsigned long long)h);
}

static void put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The whole file, or NULL (absent, unreadable, too big for memory): all of them a miss. */
static unsigned char *read_whole(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *buf;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > SIZE_MAX ||
	    !(buf = malloc(st.st_size ? (size_t)st.st_size : 1))) {
		close(fd);
		return NULL;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(buf);
			close(fd);
			return NULL;
		}
		got += (size_t)r;
	}
	close(fd); /* read-only: nothing a failed close could lose */
	*len = got;
	return buf;
}

/* Check the layout of a cache file against the wanted key; the binary's offset and length. */
static int parse_entry(const unsigned char *f, size_t flen, const char *key, size_t *off,
                       size_t *blen)
{
	size_t klen = strlen(key);
	uint64_t fk, fb;
	size_t p = MAGIC_LEN;

	if (flen < MAGIC_LEN + 8 || memcmp(f, CACHE_MAGIC, MAGIC_LEN) != 0)
		return 1;
	fk = get_u64(f + p);
	p += 8;
	if (fk != klen || flen - p < klen || memcmp(f + p, key, klen) != 0)
		return 1;
	p += klen;
	if (flen - p < 8)
		return 1;
	fb = get_u64(f + p);
	p += 8;
	/* Exactly the binary and its checksum must remain: no more, no less. */
	if (flen - p < 8 || fb != flen - p - 8 || fb == 0)
		return 1;
	if (get_u64(f + flen - 8) != fnv64(FNV64_INIT, f + p, (size_t)fb))
		return 1;
	*off = p;
	*blen = (size_t)fb;
	return 0;
}

int cache_load(const char *dir, const char *key, unsigned char **bin, size_t *len)
{
	char *path = cache_file_for(dir, key);
	size_t flen, off, blen;
	unsigned char *f = read_whole(path, &flen);

	free(path);
	if (!f)
		return 1;
	if (parse_entry(f, flen, key, &off, &blen) != 0) {
		free(f);
		return 1;
	}
	memmove(f, f + off, blen);
	*bin = f;
	*len = blen;
	return 0;
}

static int write_all(int fd, const void *data, size_t n)
{
	const unsigned char *p = data;

	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int write_entry(int fd, const char *key, const unsigned char *bin, size_t len)
{
	unsigned char num[8];
	size_t klen = strlen(key);

	if (write_all(fd, CACHE_MAGIC, MAGIC_LEN) != 0)
		return -1;
	put_u64(num, klen);
	if (write_all(fd, num, 8) != 0 || write_all(fd, key, klen) != 0)
		return -1;
	put_u64(num, len);
	if (write_all(fd, num, 8) != 0 || write_all(fd, bin, len) != 0)
		return -1;
	put_u64(num, fnv64(FNV64_INIT, bin, len));
	return write_all(fd, num, 8);
}

/* No fsync: a file cut short by a crash fails its length or checksum test and is rebuilt,
 * which costs less than syncing on every build. */
int cache_store(const char *dir, const char *key, const unsigned char *bin, size_t len,
                struct cs_err *e)
{
	char *path = cache_file_for(dir, key);
	char *tmp = xasprintf("%s/.tmp-XXXXXX", dir);
	int fd = mkstemp(tmp);
	int slot = fd < 0 ? -1 : temp_track(tmp);
	int rc = -1;

	if (fd < 0) {
		err_errno(e, "binary cache: cannot create a file in %s", dir);
		goto out;
	}
	if (write_entry(fd, key, bin, len) != 0) {
		err_errno(e, "binary cache: cannot write %s", tmp);
		close(fd);
		goto drop;
	}
	if (close(fd) != 0) {
		err_errno(e, "binary cache: cannot write %s", tmp);
		goto drop;
	}
	if (rename(tmp, path) != 0) {
		err_errno(e, "binary cache: cannot rename %s to %s", tmp, path);
		goto drop;
	}
	rc = 0;
	goto out;
drop:
	/* Keep the first error: it is the cause; a leftover temporary file is only noted. */
	if (unlink(tmp) != 0 && errno != ENOENT) {
		size_t n = strlen(e->msg);

		snprintf(e->msg + n, sizeof(e->msg) - n, " (%s left behind)", tmp);
	}
out:
	temp_untrack(slot);
	free(tmp);
	free(path);
	return rc;
}
