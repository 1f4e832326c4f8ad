/* The device types each OpenCL vendor gives, learnt once (runtime/icdtypes-int.h). */
#include "runtime/icdtypes-int.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#define ENTRIES_MAX   64 /* lines types.txt keeps, the newest */
#define PROBE_SECONDS 60 /* a driver that hangs longer is of unknown types */
#define TYPES_UNKNOWN (-1LL)

/* What one ICD file gives in one drivers' environment, and what that holds while. */
struct icd_entry {
	char icd[1024];
	long long icd_size, icd_mtime;
	char lib[ICD_LIB_MAX]; /* the library as the dynamic loader found it; "-" when none */
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
unsigned long long icd_driver_env(void)
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
	char buf[1100], real[PATH_MAX];
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
	/* The file itself, so that two names of one library (libpocl.so.2 in
	 * OCL_ICD_FILENAMES, libpocl.so.2.12.0 in pocl.icd) are one vendor. */
	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name[0] ||
	    !realpath(map->l_name, real))
		n = snprintf(buf, sizeof(buf), "0 -");
	else
		n = snprintf(buf, sizeof(buf), "%lld %.1023s", library_types(h), real);
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

/* A "lib:" source holds while the library it resolved to is unchanged and the environment,
 * LD_LIBRARY_PATH included, is the same. */
static bool is_lib_source(const char *src)
{
	return strncmp(src, LIB_PREFIX, strlen(LIB_PREFIX)) == 0;
}

/* Whether x is what icd gives now, in this environment. */
static bool entry_holds(const struct icd_entry *x, const char *icd, unsigned long long env)
{
	long long size, mtime;

	if (strcmp(x->icd, icd) != 0 || x->env != env)
		return false;
	if (!is_lib_source(icd) &&
	    (!stamp(icd, &size, &mtime) || size != x->icd_size || mtime != x->icd_mtime))
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

/* A new entry for a source, probed; false when its ICD file could not be read. */
static bool learn_one(const char *icd, unsigned long long env, struct icd_entry *x)
{
	bool from_lib = is_lib_source(icd);
	char *lib = from_lib ? xstrdup(icd + strlen(LIB_PREFIX)) : rt_icd_file_library(icd);

	memset(x, 0, sizeof(*x));
	snprintf(x->icd, sizeof(x->icd), "%s", icd);
	x->env = env;
	if (!lib || strchr(icd, ' ') || (!from_lib && !stamp(icd, &x->icd_size, &x->icd_mtime))) {
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

bool icd_sources_types(const char *icddir, char **srcs, size_t nsrc, long long *types,
                       char (*libs)[ICD_LIB_MAX])
{
	unsigned long long env = icd_driver_env();
	struct icd_entry *ent = xcalloc(ENTRIES_MAX + 1 + ICDS_MAX, sizeof(*ent));
	size_t n = map_learn(icddir, srcs, nsrc, env, ent);
	bool known = true;

	for (size_t i = 0; i < nsrc && known; i++) {
		const struct icd_entry *x = find(ent, n, srcs[i], env);

		known = x && x->types != TYPES_UNKNOWN;
		if (known) {
			types[i] = x->types;
			snprintf(libs[i], ICD_LIB_MAX, "%s", x->lib);
		}
	}
	free(ent);
	return known;
}
