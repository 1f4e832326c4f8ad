/* PoCL's start-up file removed (pocltemp.h): the tempfile_XXXXXX (no suffix) that appeared
 * while the drivers started, new and empty, of this user. It is removed holding CarSh's
 * build lock shared: a carsh build writes its tempfile_s and renames them under the lock
 * held alone, so none of its files is there to be taken for a start's. The files found are
 * this start's, or those of other processes starting beside it, never used again. A start
 * that could not have the lock (a build elsewhere for over 2 s) leaves its file. */
#include "runtime/pocltemp.h"

#include <dirent.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "runtime/buildsig.h"
#include "runtime/cache.h"
#include "util/alloc.h"
#include "util/strvec.h"

/* PoCL's kernel cache: $POCL_CACHE_DIR, else $XDG_CACHE_HOME/pocl/kcache, else
 * ~/.cache/pocl/kcache. NULL when none can be named. */
char *rt_pocl_kcache_dir(void)
{
	const char *pocl = getenv("POCL_CACHE_DIR");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (pocl && pocl[0])
		return xstrdup(pocl);
	if (xdg && xdg[0])
		return xasprintf("%s/pocl/kcache", xdg);
	if (home && home[0])
		return xasprintf("%s/.cache/pocl/kcache", home);
	return NULL;
}

/* PoCL's name for the start's file; a build's have a suffix (".cl", ".so.o"). */
static bool is_tempfile(const char *name)
{
	return strncmp(name, "tempfile_", 9) == 0 && strlen(name) == 15 && !strchr(name, '.');
}

static void list_tempfiles(const char *dir, struct strvec *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)) != NULL)
		if (is_tempfile(de->d_name))
			sv_push(out, de->d_name);
	closedir(d);
}

static bool listed(const struct strvec *sv, const char *name)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], name) == 0)
			return true;
	return false;
}

/* Removing is best effort: a file left is PoCL's leak, not this run's failure. */
static void remove_new_empty(const char *dir, const struct strvec *before)
{
	struct strvec after = STRVEC_INIT;

	list_tempfiles(dir, &after);
	for (size_t i = 0; i < after.n; i++) {
		char *path;
		struct stat st;

		if (listed(before, after.v[i]))
			continue;
		path = xasprintf("%s/%s", dir, after.v[i]);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0 &&
		    st.st_uid == getuid())
			unlink(path);
		free(path);
	}
	sv_free(&after);
}

/* PoCL starts its devices, and makes its file, at the first clGetDeviceIDs. The results are
 * the caller's to read, by asking again: these calls only start; their errors come again
 * there. */
static void start_drivers(void)
{
	cl_platform_id plats[16];
	cl_uint np = 0;

	if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS)
		return;
	for (cl_uint i = 0; i < np && i < 16; i++) {
		cl_uint nd = 0;

		(void)clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
	}
}

static void start_once(void)
{
	struct strvec before = STRVEC_INIT;
	char *dir = rt_pocl_kcache_dir();
	struct buildsig_start sigs;
	int lock;

	if (dir)
		list_tempfiles(dir, &before);
	buildsig_start_begin(&sigs);
	start_drivers();
	buildsig_start_end(&sigs);
	lock = dir ? cache_start_lock() : -1;
	if (lock >= 0)
		remove_new_empty(dir, &before);
	cache_build_unlock(lock);
	sv_free(&before);
	free(dir);
}

void rt_platforms_start(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, start_once);
}
