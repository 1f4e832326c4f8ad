/* The device types each OpenCL vendor gives, learnt once (runtime/icdtypes.h). */
#include "runtime/icdtypes.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/cache.h"
#include "util/alloc.h"
#include "util/atomicfile.h"
#include "util/fork.h"
#include "util/hash.h"
#include "util/strbuf.h"

extern char **environ;

#define ICDS_MAX      32 /* ICD files of one directory looked at */
#define ENTRIES_MAX   64 /* lines types.txt keeps, the newest */
#define PROBE_SECONDS 60 /* a driver that hangs longer is of unknown types */
#define TYPES_UNKNOWN (-1LL)

/* What one ICD file gives in one drivers' environment, and what that holds while. */
struct icd_entry {
	char icd[1024];
	long long icd_size, icd_mtime;
	char lib[1024]; /* the library as the dynamic loader found it; "-" when none loaded */
	long long lib_size, lib_mtime;
	unsigned long long env;
	long long types; /* CL_DEVICE_TYPE_* bits, or TYPES_UNKNOWN (the probe died) */
};

char *rt_icd_file_library(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	char *lib = NULL;

	if (!f)
		return NULL;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0])
			lib = xstrdup(line);
	}
	fclose(f);
	return lib;
}

/* Size and modification time (ns): a rewritten file differs even within one second. */
static bool stamp(const char *path, long long *size, long long *mtime)
{
	struct stat st;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	*size = (long long)st.st_size;
	*mtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	return true;
}

/* The drivers' settings: a sum, so that environ's order does not matter. */
static unsigned long long driver_env(void)
{
	static const char *const prefixes[] = {
	        "OCL_", "POCL_", "CUDA_", "NVIDIA_",          "GPU_", "HSA_", "ROCR_",
	        "HIP_", "AMD_",  "ZE_",   "LD_LIBRARY_PATH=", NULL};
	unsigned long long h = 0;

	for (char **e = environ; *e; e++)
		for (size_t i = 0; prefixes[i]; i++)
			if (strncmp(*e, prefixes[i], strlen(prefixes[i])) == 0) {
				h += fnv64(FNV64_INIT, *e, strlen(*e));
				break;
			}
	return h;
}

/* The directory the loader reads, or NULL when the user's settings leave none to narrow:
 * OCL_ICD_FILENAMES adds vendors, OPENCL_VENDOR_PATH is read by one loader only, and an
 * OCL_ICD_VENDORS that is not a directory names one vendor already. */
static const char *vendors_dir(void)
{
	const char *v = getenv("OCL_ICD_VENDORS");
	struct stat st;

	if (getenv("OCL_ICD_FILENAMES") || getenv("OPENCL_VENDOR_PATH"))
		return NULL;
	if (!v || !v[0])
		return "/etc/OpenCL/vendors";
	return stat(v, &st) == 0 && S_ISDIR(st.st_mode) ? v : NULL;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The ICD files of dir (paths, sorted); 0 when there are more than ICDS_MAX. */
static size_t icd_files(const char *dir, char **out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;
	bool over = false;

	while (d && (de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		char *path;
		long long size, mtime;

		if (len < 5 || strcmp(de->d_name + len - 4, ".icd") != 0)
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		if (stamp(path, &size, &mtime) && n < ICDS_MAX)
			out[n++] = path;
		else {
			over = over || n == ICDS_MAX;
			free(path);
		}
	}
	if (d)
		closedir(d);
	qsort(out, n, sizeof(*out), by_name);
	for (size_t i = 0; over && i < n; i++)
		free(out[i]);
	return over ? 0 : n;
}

/* ---- the probe: a forked child loads one vendor library alone ---- */

typedef void *(*extension_fn)(const char *);
typedef cl_int (*platforms_fn)(cl_uint, cl_platform_id *, cl_uint *);
typedef cl_int (*devices_fn)(cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *);

/* As a loader asks (cl_khr_icd): clIcdGetPlatformIDsKHR through the library's
 * clGetExtensionFunctionAddress; clGetDeviceIDs from the dispatch table that every ICD object
 * starts with (its third entry). */
static long long library_types(void *h)
{
	static const cl_device_type kinds[] = {CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU,
	                                       CL_DEVICE_TYPE_ACCELERATOR};
	extension_fn ext = (extension_fn)dlsym(h, "clGetExtensionFunctionAddress");
	platforms_fn get = ext ? (platforms_fn)ext("clIcdGetPlatformIDsKHR") : NULL;
	cl_platform_id plats[16];
	cl_uint np = 0;
	long long types = 0;

	if (!get)
		get = (platforms_fn)dlsym(h, "clIcdGetPlatformIDsKHR");
	if (!get || get(16, plats, &np) != CL_SUCCESS)
		return 0;
	for (cl_uint i = 0; i < np && i < 16; i++) {
		void *const *dispatch = plats[i] ? *(void *const *const *)plats[i] : NULL;
		devices_fn ids = dispatch ? (devices_fn)dispatch[2] : NULL;

		for (size_t k = 0; ids && k < ARRAY_SIZE(kinds); k++) {
			cl_uint nd = 0;

			if (ids(plats[i], kinds[k], 0, NULL, &nd) == CL_SUCCESS && nd > 0)
				types |= (long long)kinds[k];
		}
	}
	return types;
}

static void __attribute__((noreturn)) probe_child(const char *lib, int out)
{
	int null = open("/dev/null", O_WRONLY);
	void *h;
	struct link_map *map = NULL;
	char buf[1100];
	int n;

	sigset_t alrm;

	/* A driver's chatter must not land in a job's output. */
	if (null >= 0)
		dup2(null, STDOUT_FILENO);
	/* The shell's threads block signals for its signal thread: this one must end it. */
	signal(SIGALRM, SIG_DFL);
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
	alarm(PROBE_SECONDS);
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name[0])
		n = snprintf(buf, sizeof(buf), "0 -");
	else
		n = snprintf(buf, sizeof(buf), "%lld %.1023s", library_types(h), map->l_name);
	_exit(write(out, buf, (size_t)n) == n ? 0 : 1);
}

/* The types lib gives, and where it was found (ent->lib, stamped). */
static void probe(const char *lib, struct icd_entry *ent)
{
	char buf[1100] = "";
	int fds[2], ws;
	ssize_t n = 0;
	pid_t p;

	ent->types = TYPES_UNKNOWN;
	snprintf(ent->lib, sizeof(ent->lib), "-");
	if (pipe(fds) != 0)
		return;
	p = fork_locked();
	if (p == 0) {
		close(fds[0]);
		probe_child(lib, fds[1]);
	}
	close(fds[1]);
	if (p > 0)
		n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	if (p < 0 || waitpid(p, &ws, 0) != p || n <= 0 || !WIFEXITED(ws) || WEXITSTATUS(ws))
		return;
	buf[n] = '\0';
	if (sscanf(buf, "%lld %1023s", &ent->types, ent->lib) != 2)
		ent->types = TYPES_UNKNOWN;
	if (strcmp(ent->lib, "-") != 0 && !stamp(ent->lib, &ent->lib_size, &ent->lib_mtime))
		ent->types = TYPES_UNKNOWN;
}

/* ---- types.txt: "CHECKSUM ICD SIZE MTIME LIB SIZE MTIME ENV TYPES", a line each ---- */

static void entry_text(const struct icd_entry *x, struct strbuf *sb)
{
	sb_addf(sb, "%s %lld %lld %s %lld %lld %016llx %lld", x->icd, x->icd_size, x->icd_mtime,
	        x->lib, x->lib_size, x->lib_mtime, x->env, x->types);
}

/* A line whose checksum fails is left out: a corrupt file is as good as a shorter one. */
static bool entry_parse(const char *line, struct icd_entry *x)
{
	unsigned long long sum;
	struct strbuf sb = STRBUF_INIT;
	bool ok;
	int at = 0;

	ok = sscanf(line, "%16llx %n", &sum, &at) == 1 && at > 0 &&
	     sscanf(line + at, "%1023s %lld %lld %1023s %lld %lld %llx %lld", x->icd, &x->icd_size,
	            &x->icd_mtime, x->lib, &x->lib_size, &x->lib_mtime, &x->env, &x->types) == 8;
	if (ok) {
		entry_text(x, &sb);
		ok = fnv64(FNV64_INIT, sb_str(&sb), sb.len) == sum;
	}
	sb_free(&sb);
	return ok;
}

static size_t map_read(const char *path, struct icd_entry *out, size_t max)
{
	FILE *f = fopen(path, "r");
	char line[2600];
	size_t n = 0;

	while (f && fgets(line, sizeof(line), f))
		if (strchr(line, '\n') && entry_parse(line, &out[n]) && n + 1 < max)
			n++;
	if (f)
		fclose(f);
	return n;
}

/* Whether x is what icd gives now, in this environment. */
static bool entry_holds(const struct icd_entry *x, const char *icd, unsigned long long env)
{
	long long size, mtime;

	if (strcmp(x->icd, icd) != 0 || x->env != env || !stamp(icd, &size, &mtime) ||
	    size != x->icd_size || mtime != x->icd_mtime)
		return false;
	if (strcmp(x->lib, "-") == 0)
		return true;
	return stamp(x->lib, &size, &mtime) && size == x->lib_size && mtime == x->lib_mtime;
}

static int map_write(const char *path, const struct icd_entry *ent, size_t n)
{
	struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT;
	struct cs_err e;
	int rc;

	for (size_t i = n > ENTRIES_MAX ? n - ENTRIES_MAX : 0; i < n; i++) {
		/* An entry of a file since changed or removed is dropped. */
		if (!entry_holds(&ent[i], ent[i].icd, ent[i].env))
			continue;
		sb_reset(&line);
		entry_text(&ent[i], &line);
		sb_addf(&sb, "%016llx %s\n",
		        (unsigned long long)fnv64(FNV64_INIT, sb_str(&line), line.len),
		        sb_str(&line));
	}
	rc = atomic_write_text(path, sb_str(&sb), &e);
	sb_free(&line);
	sb_free(&sb);
	return rc;
}

static const struct icd_entry *find(const struct icd_entry *ent, size_t n, const char *icd,
                                    unsigned long long env)
{
	for (size_t i = n; i-- > 0;)
		if (entry_holds(&ent[i], icd, env))
			return &ent[i];
	return NULL;
}

/* A new entry for icd, probed; false when its file could not be read. */
static bool learn_one(const char *icd, unsigned long long env, struct icd_entry *x)
{
	char *lib = rt_icd_file_library(icd);

	memset(x, 0, sizeof(*x));
	snprintf(x->icd, sizeof(x->icd), "%s", icd);
	x->env = env;
	if (!lib || strchr(icd, ' ') || !stamp(icd, &x->icd_size, &x->icd_mtime)) {
		free(lib);
		return false;
	}
	probe(lib, x);
	free(lib);
	/* A library path with a space could not be read back: kept as unknown. */
	if (strchr(x->lib, ' '))
		x->types = TYPES_UNKNOWN;
	return true;
}

static bool all_known(const struct icd_entry *ent, size_t n, char **icds, size_t nicd,
                      unsigned long long env)
{
	for (size_t i = 0; i < nicd; i++)
		if (!find(ent, n, icds[i], env))
			return false;
	return true;
}

/* The entries of every ICD file, probing those the map lacks. Learnt under a lock, the map
 * read again there: the ranks of an MPI job start together, and each driver need start
 * once. ent has room for ENTRIES_MAX + 1 + ICDS_MAX; returns how many it holds. */
static size_t map_learn(const char *icddir, char **icds, size_t nicd, unsigned long long env,
                        struct icd_entry *ent)
{
	char *path = xasprintf("%s/types.txt", icddir);
	char *lockpath = NULL;
	size_t n = map_read(path, ent, ENTRIES_MAX + 1), learnt = 0;
	int lock;

	if (all_known(ent, n, icds, nicd, env)) {
		free(path);
		return n;
	}
	lockpath = xasprintf("%s/lock", icddir);
	lock = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	while (lock >= 0 && flock(lock, LOCK_EX) != 0 && errno == EINTR)
		;
	n = map_read(path, ent, ENTRIES_MAX + 1);
	for (size_t i = 0; i < nicd; i++)
		if (!find(ent, n, icds[i], env) && learn_one(icds[i], env, &ent[n]))
			n++, learnt++;
	if (learnt)
		map_write(path, ent, n);
	if (lock >= 0)
		close(lock);
	free(lockpath);
	free(path);
	return n;
}

/* ---- the narrowed directory: content-addressed, so never changed once made ---- */

#define ICD_FILE_MAX 4096 /* an ICD file is one line: a library's name */

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

/* Made aside and renamed into place: a process that finds it finds it whole. */
static int make_dir(const char *final, const char *icddir, const char *name, const char *text,
                    size_t len)
{
	char *tmp = xasprintf("%s/.tmp-XXXXXX", icddir);
	char *file = NULL;
	FILE *f;
	int rc = -1;

	if (mkdtemp(tmp)) {
		file = xasprintf("%s/%s", tmp, name);
		f = fopen(file, "wb");
		rc = f && fwrite(text, 1, len, f) == len ? 0 : -1;
		if (f && fclose(f) != 0)
			rc = -1;
		if (rc == 0)
			rc = rename(tmp, final);
		if (rc != 0) {
			unlink(file);
			rmdir(tmp);
		}
	}
	free(file);
	free(tmp);
	return rc;
}

/* icddir/TYPE-HASH/ holding a copy of icd alone; NULL when it could not be made. The path
 * ends in a slash: the Khronos loader before 2020, which CUDA still ships as libOpenCL.so.1,
 * joins OCL_ICD_VENDORS and a file's name without one ("DIRpocl.icd"), and so found no vendor
 * at all in a directory named without it (every CPU job on the H100 machine failed with "no
 * OpenCL platform found"); ocl-icd reads "DIR//pocl.icd" as well. */
static char *narrowed_dir(const char *icddir, cl_device_type type, const char *icd)
{
	const char *name = strrchr(icd, '/') ? strrchr(icd, '/') + 1 : icd;
	size_t len;
	char *text = read_small(icd, &len);
	char *final, *file, *slashed = NULL;
	uint64_t h;
	long long size, mtime;

	if (!text)
		return NULL;
	h = fnv64(fnv64(FNV64_INIT, name, strlen(name) + 1), text, len);
	final = xasprintf("%s/%s-%016llx", icddir, rt_device_type_name(type),
	                  (unsigned long long)h);
	file = xasprintf("%s/%s", final, name);
	if (!stamp(file, &size, &mtime))
		make_dir(final, icddir, name, text, len);
	if (stamp(file, &size, &mtime) && (size_t)size == len)
		slashed = xasprintf("%s/", final);
	free(final);
	free(file);
	free(text);
	return slashed;
}

/* The one ICD file of icds that gives type, when every one is known and another is left
 * out; else NULL. */
static const char *only_giver(const struct icd_entry *ent, size_t n, char **icds, size_t nicd,
                              cl_device_type type, unsigned long long env)
{
	const char *giver = NULL;
	size_t givers = 0;

	for (size_t i = 0; i < nicd; i++) {
		const struct icd_entry *x = find(ent, n, icds[i], env);

		if (!x || x->types == TYPES_UNKNOWN)
			return NULL;
		if ((unsigned long long)x->types & type) {
			giver = icds[i];
			givers++;
		}
	}
	return givers == 1 && nicd > 1 ? giver : NULL;
}

static char *vendors_in(const char *dir, const char *cache, cl_device_type type)
{
	char *icds[ICDS_MAX];
	size_t nicd = icd_files(dir, icds), n;
	unsigned long long env = driver_env();
	char *icddir = NULL, *out = NULL;
	struct icd_entry *ent = NULL;
	const char *giver;

	if (nicd < 2)
		goto done;
	icddir = xasprintf("%s/icd", cache);
	if (mkdir(icddir, 0700) != 0 && errno != EEXIST)
		goto done;
	ent = xcalloc(ENTRIES_MAX + 1 + ICDS_MAX, sizeof(*ent));
	n = map_learn(icddir, icds, nicd, env, ent);
	giver = only_giver(ent, n, icds, nicd, type, env);
	if (giver)
		out = narrowed_dir(icddir, type, giver);
done:
	for (size_t i = 0; i < nicd; i++)
		free(icds[i]);
	free(ent);
	free(icddir);
	return out;
}

char *rt_icd_vendors_for(cl_device_type type)
{
	const char *off = getenv("CARSH_ICD_BY_TYPE");
	const char *dir = vendors_dir();
	char *cache, *out;

	if (!type || !dir || (off && strcmp(off, "0") == 0))
		return NULL;
	cache = cache_dir();
	out = cache ? vendors_in(dir, cache, type) : NULL;
	free(cache);
	return out;
}

char *rt_icd_vendors_for_plan(const struct kernel_plan *kp)
{
	cl_device_type t = rt_device_type_chosen(kp->device_exe, kp->device_cli, kp->device_fm);

	return t ? rt_icd_vendors_for(t) : NULL;
}
