/* The server's directory and the build's identity (exec/serverdir.h). */
#include "exec/serverdir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "util/alloc.h"

int server_dir_check(const char *path, uid_t uid, struct cs_err *e)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return err_errno(e, "server directory %s", path);
	if (S_ISLNK(st.st_mode))
		return err_set(e, "server directory %s is a symbolic link; refusing it", path);
	if (!S_ISDIR(st.st_mode))
		return err_set(e, "server directory %s is not a directory; refusing it", path);
	if (st.st_uid != uid)
		return err_set(e,
		               "server directory %s belongs to uid %u, not to uid %u; refusing it",
		               path, (unsigned)st.st_uid, (unsigned)uid);
	if (st.st_mode & 077)
		return err_set(e,
		               "server directory %s is open to others (mode %03o); refusing it "
		               "(chmod 700 it)",
		               path, (unsigned)(st.st_mode & 0777));
	return 0;
}

static char *default_dir(void)
{
	const char *v = getenv("CARSH_SERVER_DIR");

	if (v && v[0])
		return xstrdup(v);
	v = getenv("XDG_RUNTIME_DIR");
	if (v && v[0])
		return xasprintf("%s/carsh", v);
	return xasprintf("/tmp/carsh-%u", (unsigned)getuid());
}

char *server_dir(struct cs_err *e)
{
	char *dir = default_dir();

	/* 0700 from the start: no moment when another user could enter it. */
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		err_errno(e, "cannot create the server directory %s", dir);
		free(dir);
		return NULL;
	}
	if (server_dir_check(dir, getuid(), e)) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* FNV-1a, 64 bits: an identity, not a defence (the directory is the defence). */
static unsigned long long fnv(unsigned long long h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

static char build_id[17];
static char *exe_path;

int server_use_exe(const char *path, struct cs_err *e)
{
	struct stat st;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return err_set(e, "no carsh program at %s", path);
	free(exe_path);
	exe_path = xstrdup(path);
	build_id[0] = '\0';
	return 0;
}

const char *server_exe(void)
{
	return exe_path ? exe_path : "/proc/self/exe";
}

const char *server_build_id(void)
{
	char *id = build_id;
	struct stat st;
	unsigned long long h = 14695981039346656037ULL;

	if (id[0])
		return id;
	memset(&st, 0, sizeof(st));
	stat(server_exe(), &st);
	h = fnv(h, &st.st_dev, sizeof(st.st_dev));
	h = fnv(h, &st.st_ino, sizeof(st.st_ino));
	h = fnv(h, &st.st_size, sizeof(st.st_size));
	h = fnv(h, &st.st_mtim, sizeof(st.st_mtim));
	h = fnv(h, PACKAGE_VERSION, strlen(PACKAGE_VERSION));
	snprintf(id, sizeof(build_id), "%016llx", h);
	return id;
}

char *server_path(const char *dir, const char *ext)
{
	return xasprintf("%s/server-%s.%s", dir, server_build_id(), ext);
}
