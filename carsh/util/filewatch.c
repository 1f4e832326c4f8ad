#include "util/filewatch.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#define FILE_EVENTS (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVE_SELF | IN_DELETE_SELF)
/* A directory's entries: a name that now means another file, or none. */
#define DIR_EVENTS                                                                             \
	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MOVE_SELF | IN_DELETE_SELF | \
	 IN_ONLYDIR)

#ifndef F2FS_SUPER_MAGIC
#define F2FS_SUPER_MAGIC 0xF2F52010
#endif

static int fd = -1;
static pid_t owner;
static bool unavailable; /* no instance could be had: nothing is watched */
static unsigned long changes, epoch = 1;
/* Its users are the parsed files' cache and the ICD narrowing, each under a lock of its own. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Local file systems, changed only through this kernel, which reports every change, and
 * read-only images. */
static bool trusted_fs(const char *path)
{
	struct statfs s;

	if (statfs(path, &s) != 0)
		return false;
	switch ((unsigned long)s.f_type) {
	case EXT4_SUPER_MAGIC: /* also ext2 and ext3 */
	case XFS_SUPER_MAGIC:
	case BTRFS_SUPER_MAGIC:
	case TMPFS_MAGIC:
	case F2FS_SUPER_MAGIC:
	/* Read-only images: nothing changes them while they are mounted (NVIDIA's container
	 * toolkit mounts the driver's libraries from a squashfs, say). */
	case SQUASHFS_MAGIC:
	case EROFS_SUPER_MAGIC_V1:
		return true;
	default:
		return false;
	}
}

/* An instance inherited from the parent is dropped, not read: its notices are the
 * parent's. What was watched through it counts as unwatched here (the epoch moves on). */
static void drop_inherited(void)
{
	if (fd >= 0 && owner != getpid()) {
		(void)close(fd);
		fd = -1;
		unavailable = false;
		epoch++;
	}
}

/* The instance of this process, made by its first watch. */
static bool instance(void)
{
	drop_inherited();
	if (fd < 0 && !unavailable) {
		fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		unavailable = fd < 0;
		owner = getpid();
	}
	return fd >= 0;
}

static unsigned long changes_locked(void)
{
	/* Aligned for the events it receives. */
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	drop_inherited();
	if (fd < 0)
		return changes;
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			changes++;
	if (n < 0 && errno != EAGAIN) {
		/* A broken instance: what it watched is not watched any more. */
		(void)close(fd);
		fd = -1;
		unavailable = true;
		epoch++;
	}
	return changes;
}

unsigned long filewatch_changes(void)
{
	unsigned long n;

	pthread_mutex_lock(&lock);
	n = changes_locked();
	pthread_mutex_unlock(&lock);
	return n;
}

bool filewatch_same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

unsigned long filewatch_epoch(void)
{
	unsigned long e;

	pthread_mutex_lock(&lock);
	e = epoch;
	pthread_mutex_unlock(&lock);
	return e;
}

/* Watch one object of the path: lstat says what it is, so that a symbolic link is refused. */
static bool watch_one(const char *name, bool dir)
{
	struct stat st;

	if (lstat(name, &st) != 0 || (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)))
		return false;
	if (!trusted_fs(name))
		return false;
	return inotify_add_watch(fd, name, (dir ? DIR_EVENTS : FILE_EVENTS) | IN_MASK_ADD) >= 0;
}

static bool add_locked(const char *path)
{
	char prefix[PATH_MAX];
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof(prefix) || !instance())
		return false;
	if (!watch_one(path[0] == '/' ? "/" : ".", true))
		return false;
	/* Every directory the name goes through, "a", "a/b", ... (".." included: it is one);
	 * for "a/b/", b too. */
	for (size_t i = 1; i < len; i++) {
		if (path[i] != '/' || path[i - 1] == '/')
			continue;
		memcpy(prefix, path, i);
		prefix[i] = '\0';
		if (!watch_one(prefix, true))
			return false;
	}
	return path[len - 1] == '/' || watch_one(path, false);
}

bool filewatch_add(const char *path)
{
	bool ok;

	pthread_mutex_lock(&lock);
	ok = add_locked(path);
	pthread_mutex_unlock(&lock);
	return ok;
}
