#include "runtime/preload.h"

#include <dirent.h>
#include <link.h>
#include <stdbool.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/cache.h"
#include "runtime/icdtypes.h"
#include "util/alloc.h"
#include "util/fork.h"
#include "util/strbuf.h"

static int thread_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Load the library in a child: is it quiet (no thread started) and where did the loader
 * find it? The child writes the path to the pipe and exits 0 when the library is quiet. */
static char *probe(const char *lib, bool *quiet)
{
	char path[4096] = "";
	int fds[2], ws;
	ssize_t n = 0;
	pid_t p;

	*quiet = false;
	if (pipe(fds) != 0)
		return NULL;
	p = fork_locked();
	if (p == 0) {
		int before = thread_count();
		void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
		struct link_map *map = NULL;

		if (h && dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name &&
		    write(fds[1], map->l_name, strlen(map->l_name)) < 0)
			_exit(1);
		_exit(h && before > 0 && thread_count() == before ? 0 : 1);
	}
	close(fds[1]);
	if (p > 0)
		n = read(fds[0], path, sizeof(path) - 1);
	close(fds[0]);
	if (p < 0 || waitpid(p, &ws, 0) != p || n <= 0)
		return NULL;
	path[n] = '\0';
	*quiet = WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
	return xstrdup(path);
}

/* A verdict line: "NAME PATH SIZE MTIME" of a library found quiet; it holds while the file
 * the name resolved to is unchanged. */
static bool known_quiet(const char *verdicts, const char *lib)
{
	FILE *f = verdicts ? fopen(verdicts, "r") : NULL;
	char name[2048], path[2048];
	long long size, mtime;
	bool found = false;

	while (f && !found &&
	       fscanf(f, "%2047s %2047s %lld %lld", name, path, &size, &mtime) == 4) {
		struct stat st;

		found = strcmp(name, lib) == 0 && stat(path, &st) == 0 &&
		        (long long)st.st_size == size && (long long)st.st_mtime == mtime;
	}
	if (f)
		fclose(f);
	return found;
}

static void remember_quiet(const char *verdicts, const char *lib, const char *path)
{
	FILE *f = verdicts ? fopen(verdicts, "a") : NULL;
	struct stat st;

	if (f && stat(path, &st) == 0 && !strchr(lib, ' ') && !strchr(path, ' '))
		fprintf(f, "%s %s %lld %lld\n", lib, path, (long long)st.st_size,
		        (long long)st.st_mtime);
	if (f)
		fclose(f);
}

static bool preload_one(const char *lib, const char *verdicts)
{
	bool quiet = known_quiet(verdicts, lib);

	if (!quiet) {
		char *path = probe(lib, &quiet);

		if (quiet)
			remember_quiet(verdicts, lib, path);
		free(path);
	}
	return quiet && dlopen(lib, RTLD_NOW | RTLD_LOCAL) != NULL;
}

/* The library an ICD file names (its first line). */
static char *icd_library(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *lib = rt_icd_file_library(path);

	free(path);
	return lib;
}

int rt_preload_vendors(void)
{
	const char *off = getenv("CARSH_NO_PRELOAD");
	const char *dir = getenv("OCL_ICD_VENDORS");
	char *cache = cache_dir();
	char *verdicts = cache ? xasprintf("%s/preload-quiet.txt", cache) : NULL;
	struct dirent *de;
	DIR *d;
	int loaded = 0;

	if (off && strcmp(off, "1") == 0)
		goto out;
	d = opendir(dir && dir[0] ? dir : "/etc/OpenCL/vendors");
	while (d && (de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		char *lib;

		if (n < 4 || strcmp(de->d_name + n - 4, ".icd") != 0)
			continue;
		lib = icd_library(dir && dir[0] ? dir : "/etc/OpenCL/vendors", de->d_name);
		if (lib)
			loaded += preload_one(lib, verdicts);
		free(lib);
	}
	if (d)
		closedir(d);
out:
	free(verdicts);
	free(cache);
	return loaded;
}
