/* A job's OpenCL loader narrowed to the vendors of its device type (runtime/icdtypes.h). */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/cache.h"
#include "runtime/icdkept.h"
#include "runtime/icdtypes-int.h"
#include "util/alloc.h"
#include "util/envstamp.h"
#include "util/hash.h"
#include "util/path.h"
#include "util/strbuf.h"

#define ICD_FILE_MAX 4096 /* an ICD file is one line: a library's name */

/* The directory the loader reads, or NULL when the user's settings leave none to narrow:
 * OPENCL_VENDOR_PATH is read by one loader only, and an OCL_ICD_VENDORS that is not a
 * directory names one vendor already. */
static const char *vendors_dir(void)
{
	const char *v = getenv("OCL_ICD_VENDORS");
	struct stat st;

	if (getenv("OPENCL_VENDOR_PATH"))
		return NULL;
	if (!v || !v[0])
		return "/etc/OpenCL/vendors";
	return stat(v, &st) == 0 && S_ISDIR(st.st_mode) ? v : NULL;
}

static bool regular(const char *path, long long *size)
{
	struct stat st;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	if (size)
		*size = (long long)st.st_size;
	return true;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The ICD files of dir (paths, sorted) after srcs[*n]; false past ICDS_MAX sources. */
static bool add_icd_files(const char *dir, char **srcs, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t first = *n;
	bool room = true;

	while (d && room && (de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		char *path;

		if (len < 5 || strcmp(de->d_name + len - 4, ".icd") != 0)
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		room = *n < ICDS_MAX;
		if (room && regular(path, NULL))
			srcs[(*n)++] = path;
		else
			free(path);
	}
	if (d)
		closedir(d);
	qsort(srcs + first, *n - first, sizeof(*srcs), by_name);
	return room;
}

/* The libraries OCL_ICD_FILENAMES names (colon-separated), as "lib:NAME" sources after
 * srcs[*n]; false past ICDS_MAX sources or for a name with a space (the cache's lines are
 * split at spaces). */
static bool add_filenames(const char *list, char **srcs, size_t *n)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ":");

		if (len) {
			if (*n == ICDS_MAX || memchr(p, ' ', len))
				return false;
			srcs[(*n)++] = xasprintf("%s%.*s", LIB_PREFIX, (int)len, p);
		}
		p += len + (p[len] == ':');
	}
	return true;
}

/* ---- the narrowed directory: content-addressed, so never changed once made ---- */

/* The whole of a small file, or NULL (also when it is larger than ICD_FILE_MAX). */
static char *read_small(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;

	if (!f)
		return NULL;
	buf = xmalloc(ICD_FILE_MAX + 1);
	*len = fread(buf, 1, ICD_FILE_MAX + 1, f);
	fclose(f);
	if (*len > ICD_FILE_MAX) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int write_copy(const char *dir, const char *name, const char *text, size_t len)
{
	char *file = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(file, "wb");
	int rc = f && fwrite(text, 1, len, f) == len ? 0 : -1;

	if (f && fclose(f) != 0)
		rc = -1;
	free(file);
	return rc;
}

/* Made aside and renamed into place: a process that finds it finds it whole. */
static void make_dir(const char *final, const char *icddir, char **names, char **texts,
                     size_t *lens, size_t n)
{
	char *tmp = xasprintf("%s/.tmp-XXXXXX", icddir);
	int rc = mkdtemp(tmp) ? 0 : -1;

	for (size_t i = 0; i < n && rc == 0; i++)
		rc = write_copy(tmp, names[i], texts[i], lens[i]);
	if (rc == 0)
		rc = rename(tmp, final);
	if (rc != 0) {
		for (size_t i = 0; i < n; i++) {
			char *file = xasprintf("%s/%s", tmp, names[i]);

			unlink(file);
			free(file);
		}
		rmdir(tmp);
	}
	free(tmp);
}

/* Whether dir holds each of names with its length. */
static bool holds(const char *dir, char **names, size_t *lens, size_t n)
{
	struct stat st;
	bool ok = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);

	for (size_t i = 0; i < n && ok; i++) {
		char *file = xasprintf("%s/%s", dir, names[i]);
		long long size;

		ok = regular(file, &size) && (size_t)size == lens[i];
		free(file);
	}
	return ok;
}

/* icddir/TYPE-HASH/ holding copies of the ICD files icds (none: an empty directory); NULL
 * when it could not be made. The path ends in a slash: the Khronos loader before 2020,
 * which CUDA still ships as libOpenCL.so.1, joins OCL_ICD_VENDORS and a file's name without
 * one ("DIRpocl.icd"), and so finds no vendor at all in a directory named without it (a CPU
 * job then fails with "no OpenCL platform found"); ocl-icd reads "DIR//pocl.icd" as well. */
static char *narrowed_dir(const char *icddir, cl_device_type type, char **icds, size_t n)
{
	char **names = xcalloc(n + 1, sizeof(*names)), **texts = xcalloc(n + 1, sizeof(*texts));
	size_t *lens = xcalloc(n + 1, sizeof(*lens));
	uint64_t h = FNV64_INIT;
	char *final = NULL, *slashed = NULL;
	bool read = true;

	for (size_t i = 0; i < n && read; i++) {
		names[i] = (char *)path_basename(icds[i]);
		texts[i] = read_small(icds[i], &lens[i]);
		read = texts[i] != NULL;
		if (read)
			h = fnv64(fnv64(h, names[i], strlen(names[i]) + 1), texts[i], lens[i]);
	}
	if (read) {
		final = xasprintf("%s/%s-%016llx", icddir, rt_device_type_name(type),
		                  (unsigned long long)h);
		if (!holds(final, names, lens, n))
			make_dir(final, icddir, names, texts, lens, n);
		if (holds(final, names, lens, n))
			slashed = xasprintf("%s/", final);
	}
	for (size_t i = 0; i < n; i++)
		free(texts[i]);
	free(final);
	free(lens);
	free(texts);
	free(names);
	return slashed;
}

/* The library that gives type when exactly one does (sources resolving to the same library
 * are one vendor) and a source gives none of it (a vendor to leave out); else NULL. */
static const char *only_giver(const long long *types, char (*libs)[ICD_LIB_MAX], size_t n,
                              cl_device_type type)
{
	const char *giver = NULL;
	bool other = false;

	for (size_t i = 0; i < n; i++) {
		if (!((unsigned long long)types[i] & type))
			other = true;
		else if (giver && strcmp(giver, libs[i]) != 0)
			return NULL;
		else
			giver = libs[i];
	}
	return other ? giver : NULL;
}

/* The giver's sources: its ICD files into a narrowed directory, its OCL_ICD_FILENAMES
 * libraries (as named) into a list. */
static bool narrowed_env(const char *icddir, cl_device_type type, char **srcs, size_t nicd,
                         size_t n, const long long *types, bool filenames, struct strvec *env)
{
	char **icds = xcalloc(nicd + 1, sizeof(*icds));
	struct strbuf libs = STRBUF_INIT;
	size_t kept = 0;
	char *dir;

	for (size_t i = 0; i < n; i++) {
		if (!((unsigned long long)types[i] & type))
			continue;
		if (i < nicd)
			icds[kept++] = srcs[i];
		else
			sb_addf(&libs, "%s%s", libs.len ? ":" : "", srcs[i] + strlen(LIB_PREFIX));
	}
	dir = narrowed_dir(icddir, type, icds, kept);
	if (dir) {
		sv_push_owned(env, xasprintf("OCL_ICD_VENDORS=%s", dir));
		/* None left: the variable goes (rt_icd_loader_var), as an empty one might be
		 * read as a library with no name. */
		if (filenames && libs.len)
			sv_push_owned(env, xasprintf("OCL_ICD_FILENAMES=%s", sb_str(&libs)));
	}
	free(dir);
	sb_free(&libs);
	free(icds);
	return dir != NULL;
}

/* The sources' types looked up (libs filled), and the narrowed variables where one vendor
 * gives type. */
static bool narrow_sources(const char *icddir, char **srcs, size_t n, size_t nicd, bool filenames,
                           cl_device_type type, char (*libs)[ICD_LIB_MAX], struct strvec *env)
{
	long long *types = xcalloc(n, sizeof(*types));
	bool narrowed = icd_sources_types(icddir, srcs, n, types, libs) &&
	                only_giver(types, libs, n, type) &&
	                narrowed_env(icddir, type, srcs, nicd, n, types, filenames, env);

	free(types);
	return narrowed;
}

/* key: the variables read (runtime/icdkept.h). */
static bool narrow(const char *dir, const char *filenames, const char *cache, const char *key,
                   cl_device_type type, struct strvec *env)
{
	char *srcs[ICDS_MAX], *icddir = NULL;
	char(*libs)[ICD_LIB_MAX] = NULL;
	size_t n = 0, nicd;
	bool ok = add_icd_files(dir, srcs, &n), narrowed = false;
	struct icd_read read;

	nicd = n;
	if (ok && filenames)
		ok = add_filenames(filenames, srcs, &n);
	read = (struct icd_read){key, dir, srcs, n, nicd, NULL};
	if (ok && !icd_kept_find(type, &read, &narrowed, env)) {
		struct strvec got = STRVEC_INIT;

		icddir = xasprintf("%s/icd", cache);
		if (n >= 2 && (mkdir(icddir, 0700) == 0 || errno == EEXIST)) {
			libs = xcalloc(n, sizeof(*libs));
			narrowed = narrow_sources(icddir, srcs, n, nicd, filenames != NULL, type,
			                          libs, &got);
		}
		read.libs = libs;
		icd_kept_store(type, &read, narrowed, &got);
		sv_copy(env, &got);
		sv_free(&got);
	}
	for (size_t i = 0; i < n; i++)
		free(srcs[i]);
	free(libs);
	free(icddir);
	return narrowed;
}

/* The variables a narrowing reads, joined: the vendors, the drivers' settings and what
 * decides the cache directory (runtime/cache.h). */
static char *narrowing_key(const char *dir, const char *filenames)
{
	const char *vars[] = {"CARSH_NO_CACHE", "XDG_CACHE_HOME", "HOME"};
	struct strbuf sb = STRBUF_INIT;

	sb_addf(&sb, "%s\n%s\n%016llx", dir, filenames ? filenames : "", icd_driver_env());
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);

		sb_addf(&sb, "\n%s", v ? v : "");
	}
	return sb_detach(&sb);
}

/* narrowing_key, made again only where environ changed (util/envstamp.h) or the vendors
 * directory is another. */
static struct env_stamp key_stamp = ENV_STAMP_INIT;
static char *key_kept, *key_dir;
static pthread_mutex_t key_lock = PTHREAD_MUTEX_INITIALIZER;

static char *kept_key(const char *dir, const char *filenames)
{
	char *key;

	pthread_mutex_lock(&key_lock);
	if (!key_kept || !envstamp_same(&key_stamp) || strcmp(key_dir, dir) != 0) {
		free(key_kept);
		free(key_dir);
		key_kept = narrowing_key(dir, filenames);
		key_dir = xstrdup(dir);
		envstamp_take(&key_stamp);
	}
	key = xstrdup(key_kept);
	pthread_mutex_unlock(&key_lock);
	return key;
}

bool rt_icd_env_for(cl_device_type type, struct strvec *env)
{
	const char *off = getenv("CARSH_ICD_BY_TYPE");
	const char *dir = vendors_dir(), *filenames;
	char *cache, *key;
	bool narrowed;

	if (!type || !dir || (off && strcmp(off, "0") == 0))
		return false;
	filenames = getenv("OCL_ICD_FILENAMES");
	key = kept_key(dir, filenames);
	if (icd_kept_watched(type, key, &narrowed, env)) {
		free(key);
		return narrowed;
	}
	cache = cache_dir();
	narrowed = cache && narrow(dir, filenames, cache, key, type, env);
	free(cache);
	free(key);
	return narrowed;
}

bool rt_icd_env_for_plan(const struct kernel_plan *kp, struct strvec *env)
{
	cl_device_type t = rt_device_type_chosen(kp->device_exe, kp->device_cli, kp->device_fm);

	return t && rt_icd_env_for(t, env);
}

bool rt_icd_loader_var(const char *entry)
{
	return strncmp(entry, "OCL_ICD_VENDORS=", 16) == 0 ||
	       strncmp(entry, "OCL_ICD_FILENAMES=", 18) == 0;
}
