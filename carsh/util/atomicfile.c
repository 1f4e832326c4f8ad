#include "util/atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/path.h"

/*
 * The temporary file. mkstemp() creates mode 0600, and restoring 0666 & ~umask would need
 * umask(), which sets the mask for every thread of the thread executor while it reads it.
 * Creating with O_EXCL and 0666 lets the kernel apply the umask (and default ACLs) itself.
 */
static int temp_create(char *name, size_t suffix_at)
{
	static const char chars[] =
	        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static unsigned long counter;
	struct timespec ts;

	for (int attempt = 0; attempt < 100; attempt++) {
		uint64_t x;
		int fd;

		clock_gettime(CLOCK_REALTIME, &ts);
		x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid() << 32 ^
		    __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) * 0xBF58476D1CE4E5B9ull;
		for (size_t i = 0; i < 6; i++, x /= 62)
			name[suffix_at + i] = chars[x % 62];
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/* The file to replace: what a symbolic link points to, not the link. */
static char *replace_target(const char *path)
{
	struct stat st;
	char *real;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && (real = realpath(path, NULL)))
		return real;
	return xstrdup(path);
}

static int write_stream(FILE *f, const char *name, file_writer writer, void *arg, struct cs_err *e)
{
	int rc = writer(f, name, arg, e);

	if (fclose(f) == EOF && rc == 0)
		rc = err_errno(e, "%s", name);
	return rc;
}

static int write_replace(const char *path, const struct stat *old, file_writer writer, void *arg,
                         struct cs_err *e)
{
	char *target = replace_target(path);
	char *tmp = xasprintf("%s.XXXXXX", target);
	int fd = temp_create(tmp, strlen(tmp) - 6);
	FILE *f;
	int rc;

	if (fd < 0) {
		rc = err_errno(e, "%s: cannot create a temporary file", path);
		goto out;
	}
	/* A file system without permissions (vfat) refuses fchmod: no reason to fail. */
	if (old)
		(void)fchmod(fd, old->st_mode & 07777);
	f = fdopen(fd, "wb");
	if (!f) {
		rc = err_errno(e, "%s", path);
		close(fd);
	} else {
		rc = write_stream(f, path, writer, arg, e);
		if (rc == 0 && rename(tmp, target) != 0)
			rc = err_errno(e, "%s: cannot replace the file", path);
	}
	if (rc)
		unlink(tmp);
out:
	free(tmp);
	free(target);
	return rc;
}

/* Devices and pipes (/dev/null, a FIFO) cannot be replaced: write them in place. */
static int write_in_place(const char *path, file_writer writer, void *arg, struct cs_err *e)
{
	FILE *f = fopen(path, "wbe");

	if (!f)
		return err_errno(e, "%s", path);
	return write_stream(f, path, writer, arg, e);
}

static int write_text(FILE *f, const char *name, void *text, struct cs_err *e)
{
	if (fputs(text, f) == EOF)
		return err_errno(e, "%s", name);
	return 0;
}

int atomic_write_text(const char *path, const char *text, struct cs_err *e)
{
	return atomic_write(path, write_text, (void *)text, e);
}

int file_flush(FILE *f, const char *name, struct cs_err *e)
{
	if (fflush(f) == EOF)
		return err_errno(e, "%s", name);
	if (ferror(f))
		return err_set(e, "%s: write error", name);
	return 0;
}

int atomic_write(const char *path, file_writer writer, void *arg, struct cs_err *e)
{
	struct stat st;
	int rc;

	if (path_is_stdio(path)) {
		rc = writer(stdout, "<stdout>", arg, e);
		if (fflush(stdout) != 0 && rc == 0)
			rc = err_errno(e, "<stdout>");
		return rc;
	}
	if (stat(path, &st) != 0)
		return write_replace(path, NULL, writer, arg, e);
	if (!S_ISREG(st.st_mode))
		return write_in_place(path, writer, arg, e);
	return write_replace(path, &st, writer, arg, e);
}
