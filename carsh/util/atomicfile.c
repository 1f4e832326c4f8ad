#include "util/atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
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
/* The name is tracked (temp_track) before the file exists, so that a signal at any moment
 * after its creation finds it: *slot is its slot, or -1. */
static int temp_create(char *name, size_t suffix_at, int *slot)
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
		*slot = temp_track(name);
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0)
			return fd;
		temp_untrack(*slot);
		*slot = -1;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/* ---- the temporary files being written ---- */

#define TEMP_SLOTS 64
enum { SLOT_FREE, SLOT_FILLING, SLOT_LIVE };

/* A slot's path is read only while its state is SLOT_LIVE; it is written under
 * SLOT_FILLING, which the walk skips. */
static struct {
	int state;
	char path[PATH_MAX];
} temps[TEMP_SLOTS];

/* The absolute form: a later `cd` must not make the name point elsewhere. */
static bool absolute_into(char *buf, const char *path)
{
	char cwd[PATH_MAX];
	int n;

	if (path[0] == '/')
		n = snprintf(buf, PATH_MAX, "%s", path);
	else if (getcwd(cwd, sizeof(cwd)))
		n = snprintf(buf, PATH_MAX, "%s/%s", cwd, path);
	else
		return false;
	return n > 0 && n < PATH_MAX;
}

static void remove_and_end(int sig);

/* Set by temp_remove_on_signals: this process removes its temporary files on a signal. */
static volatile sig_atomic_t own_handlers;

/* Our handlers again where someone replaced them. The OpenCL compiler does: LLVM's
 * RemoveFileOnSignal (PoCL calls it while it builds a kernel) installs handlers with
 * SA_RESETHAND, so that a second SIGTERM arriving while the first is in LLVM's handler
 * (the master signals a job's group and the job; PR_SET_PDEATHSIG sends one more) met the
 * default action and ended the job before anything was removed: one run in eight with a
 * cold kernel cache left its temporary file. */
static void keep_handlers(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa = {.sa_handler = remove_and_end}, cur;

	if (!own_handlers)
		return;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], NULL, &cur) == 0 && cur.sa_handler != remove_and_end)
			sigaction(sigs[i], &sa, NULL);
}

int temp_track(const char *path)
{
	keep_handlers();
	for (int i = 0; i < TEMP_SLOTS; i++) {
		if (!__sync_bool_compare_and_swap(&temps[i].state, SLOT_FREE, SLOT_FILLING))
			continue;
		if (!absolute_into(temps[i].path, path)) {
			__atomic_store_n(&temps[i].state, SLOT_FREE, __ATOMIC_RELEASE);
			return -1;
		}
		__atomic_store_n(&temps[i].state, SLOT_LIVE, __ATOMIC_RELEASE);
		return i;
	}
	return -1;
}

void temp_untrack(int slot)
{
	if (slot >= 0)
		__atomic_store_n(&temps[slot].state, SLOT_FREE, __ATOMIC_RELEASE);
}

void temp_remove_all(void)
{
	for (int i = 0; i < TEMP_SLOTS; i++)
		if (__atomic_load_n(&temps[i].state, __ATOMIC_ACQUIRE) == SLOT_LIVE)
			unlink(temps[i].path);
}

static void remove_and_end(int sig)
{
	temp_remove_all();
	signal(sig, SIG_DFL);
	raise(sig); /* blocked in this handler: delivered, with the default action, on return */
}

void temp_remove_on_signals(void)
{
	/* A forked process inherits its parent's table: those files are not its own to remove. */
	for (int i = 0; i < TEMP_SLOTS; i++)
		__atomic_store_n(&temps[i].state, SLOT_FREE, __ATOMIC_RELEASE);
	own_handlers = 1;
	keep_handlers();
}

/* ---- replacing a file ---- */

/* Links followed at most, as the kernel's own limit (ELOOP). */
#define LINK_HOPS 40

/* Where a dangling symbolic link points: its target, relative to the link's directory, and
 * so on down a chain of links; NULL when the chain is longer than LINK_HOPS. */
static char *dangling_target(const char *path)
{
	char *at = xstrdup(path);

	for (int hop = 0; hop < LINK_HOPS; hop++) {
		struct stat st;
		char target[4096], *next;
		ssize_t n;
		const char *slash;

		if (lstat(at, &st) != 0 || !S_ISLNK(st.st_mode))
			return at;
		n = readlink(at, target, sizeof(target) - 1);
		if (n < 0)
			break;
		target[n] = '\0';
		slash = strrchr(at, '/');
		if (target[0] == '/' || !slash)
			next = xstrdup(target);
		else
			next = xasprintf("%.*s/%s", (int)(slash - at), at, target);
		free(at);
		at = next;
	}
	free(at);
	return NULL;
}

/* The file to replace: what a symbolic link points to, not the link; a dangling link's
 * target is created there, as a shell's `>` does, rather than the link replaced. */
static char *replace_target(const char *path)
{
	struct stat st;
	char *real;

	if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
		return xstrdup(path);
	real = realpath(path, NULL);
	if (real)
		return real;
	real = dangling_target(path);
	return real ? real : xstrdup(path);
}

/* The replaced file's owner and group (only root may give a file away; a group the user is
 * in also works) and then its mode, as chown clears set-id bits. A file system without
 * owners or permissions (vfat) refuses both: no reason to fail. */
static void keep_owner_and_mode(int fd, const struct stat *old)
{
	if (fchown(fd, old->st_uid, old->st_gid) != 0)
		(void)!fchown(fd, (uid_t)-1, old->st_gid);
	(void)fchmod(fd, old->st_mode & 07777);
}

static int write_stream(FILE *f, const char *name, file_writer writer, void *arg, struct cs_err *e)
{
	int rc = writer(f, name, arg, e);

	if (fclose(f) == EOF && rc == 0)
		rc = err_errno(e, "%s", name);
	return rc;
}

/* A file of several hard links is one file under several names: a rename would split it
 * (the other names kept the old contents). It is overwritten in place instead, from the
 * temporary file once that is complete, so a writer that fails still leaves it untouched;
 * only a failure of the copy itself (a full disk) can leave it short. */
static int copy_over(const char *tmp, const char *target, const char *path, struct cs_err *e)
{
	char buf[65536];
	int in = open(tmp, O_RDONLY | O_CLOEXEC), out = -1, rc = 0;
	ssize_t n = 0;

	if (in < 0)
		return err_errno(e, "%s: cannot read the temporary file back", path);
	out = open(target, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (out < 0)
		rc = err_errno(e, "%s", path);
	while (rc == 0 && (n = read(in, buf, sizeof(buf))) > 0) {
		for (ssize_t done = 0, w; rc == 0 && done < n; done += w)
			if ((w = write(out, buf + done, (size_t)(n - done))) < 0)
				rc = err_errno(e, "%s", path);
	}
	if (rc == 0 && n < 0)
		rc = err_errno(e, "%s: cannot read the temporary file back", path);
	if (out >= 0 && close(out) != 0 && rc == 0)
		rc = err_errno(e, "%s", path);
	close(in);
	return rc;
}

/* The finished temporary file takes the target's name. Where a regular file has it, the two
 * are exchanged (renameat2's RENAME_EXCHANGE) and the old one, now under the temporary name,
 * unlinked: as atomic as a rename (the name never shows a partial file), but ext4 takes a
 * rename over a file for an editor's save and writes the new file's blocks out at once
 * (auto_da_alloc), while the replaced file's blocks are freed: a 16 MiB output replaced call
 * after call took 15-18 ms this way against 3.4-4 exchanged (docs/formats.md). Where no
 * regular file was there, or the exchange is not known (ENOENT: the file went meanwhile;
 * EINVAL, ENOSYS: not on this file system or kernel), it is a rename. */
static int put_in_place(const char *tmp, const char *target, const struct stat *old)
{
	if (!old || !S_ISREG(old->st_mode))
		return rename(tmp, target);
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, target, RENAME_EXCHANGE) == 0) {
		if (unlink(tmp) == 0)
			return 0;
		if (errno == EISDIR) { /* a directory took the name meanwhile: it goes back */
			(void)renameat2(AT_FDCWD, tmp, AT_FDCWD, target, RENAME_EXCHANGE);
			errno = EISDIR;
		}
		return -1;
	}
	if (errno != ENOENT && errno != EINVAL && errno != ENOSYS)
		return -1;
	return rename(tmp, target);
}

static int write_replace(const char *path, const struct stat *old, file_writer writer, void *arg,
                         struct cs_err *e)
{
	char *target = replace_target(path);
	char *tmp = xasprintf("%s.XXXXXX", target);
	int slot;
	int fd = temp_create(tmp, strlen(tmp) - 6, &slot);
	FILE *f;
	int rc;

	if (fd < 0) {
		rc = err_errno(e, "%s: cannot create a temporary file", path);
		goto out;
	}
	if (old)
		keep_owner_and_mode(fd, old);
	f = fdopen(fd, "wb");
	if (!f) {
		rc = err_errno(e, "%s", path);
		close(fd);
	} else {
		rc = write_stream(f, path, writer, arg, e);
		if (rc == 0 && old && old->st_nlink > 1) {
			rc = copy_over(tmp, target, path, e);
			unlink(tmp);
		} else if (rc == 0 && put_in_place(tmp, target, old) != 0)
			rc = err_errno(e, "%s: cannot replace the file", path);
	}
	if (rc)
		unlink(tmp);
	temp_untrack(slot);
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

/* The rename would replace a file that the user could not write: refuse as cp(1) does. An
 * error other than EACCES (a read-only file system) is left to the writing to report. */
static int check_writable(const char *path, const struct stat *st, struct cs_err *e)
{
	if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0 || errno != EACCES)
		return 0;
	return err_set(e,
	               "%s: the file is write-protected (mode %04o); not replaced (make it "
	               "writable first)",
	               path, (unsigned)st->st_mode & 07777);
}

int atomic_writable(const char *path, struct cs_err *e)
{
	struct stat st;

	if (path_is_stdio(path) || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	return check_writable(path, &st, e);
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
	if (check_writable(path, &st, e))
		return -1;
	return write_replace(path, &st, writer, arg, e);
}
