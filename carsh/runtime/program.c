/* Program build through the binary cache (DESIGN §5). */
#include "runtime/runtime.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/buildsig.h"
#include "runtime/cache.h"
#include "runtime/cachedisk.h"
#include "runtime/includes.h"
#include "runtime/program.h"
#include "runtime/session.h"
#include "util/alloc.h"
#include "util/errhold.h"
#include "util/strbuf.h"

/* Callers put their location in front (err_prefix takes up to 1024 bytes): keep room for it
 * so that the end of a long log, and the note that it was cut, survive. */
#define PREFIX_ROOM 1024

/* How drivers name the source they were given in their diagnostics: PoCL a temporary
 * file ("/root/.cache/pocl/kcache/tempfile_nv4IPJ.cl"), others a fixed word. */
static bool driver_source_name(const char *s, size_t n)
{
	static const char *const names[] = {"<kernel>",  "<source>",      "<stdin>", "input.cl",
	                                    "source.cl", "CompileSource", NULL};
	const char *base = s;
	size_t blen;

	for (size_t i = 0; i < n; i++)
		if (s[i] == '/')
			base = s + i + 1;
	blen = (size_t)(s + n - base);
	if (blen >= 8 && strncmp(base, "tempfile", 8) == 0)
		return true;
	for (size_t i = 0; names[i]; i++)
		if (strlen(names[i]) == blen && strncmp(base, names[i], blen) == 0)
			return true;
	return false;
}

/* One log line with its "SOURCE:LINE:" (where SOURCE is the driver's name for the source)
 * as the user's file and line: the .cl file, or the XML file holding the inline source. */
static void map_line(struct strbuf *sb, const char *line, size_t len, const struct kernel_plan *kp)
{
	const char *end = line + len;

	for (const char *p = line; p < end; p++) {
		size_t name = strcspn(p, " :\n");
		char *after;
		unsigned long l;

		if (p + name >= end || p[name] != ':' || !driver_source_name(p, name))
			continue;
		l = strtoul(p + name + 1, &after, 10);
		if (after == p + name + 1 || *after != ':')
			continue;
		sb_add(sb, line, (size_t)(p - line));
		if (kp->source_line > 0 && kp->fm_file)
			sb_addf(sb, "%s:%lu", kp->fm_file, l + (unsigned long)kp->source_line - 1);
		else
			sb_addf(sb, "%s:%lu", kp->source_name, l);
		sb_add(sb, after, (size_t)(end - after));
		return;
	}
	sb_add(sb, line, len);
}

/* The build log of dev, without trailing blank lines and with its places in the user's
 * files; "" when there is none. Free it. */
static char *build_log(cl_program prog, cl_device_id dev, const struct kernel_plan *kp)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len = 0;
	char *log;

	if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) != CL_SUCCESS ||
	    len == 0)
		return xstrdup("");
	log = xmalloc(len + 1);
	if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL) != CL_SUCCESS)
		len = 0;
	log[len] = '\0';
	len = strlen(log);
	while (len > 0 && (log[len - 1] == '\n' || log[len - 1] == ' ' || log[len - 1] == '\r'))
		log[--len] = '\0';
	for (const char *p = log; *p;) {
		size_t n = strcspn(p, "\n");

		map_line(&sb, p, n + (p[n] == '\n'), kp);
		p += n + (p[n] == '\n');
	}
	free(log);
	return sb.s ? sb_detach(&sb) : xstrdup("");
}

int rt_build_error(cl_program prog, cl_device_id dev, const char *dev_name,
                   const struct kernel_plan *kp, cl_int err, struct cs_err *e)
{
	static const char cut[] = "\n... (build log truncated)";
	char *log = build_log(prog, dev, kp);
	char full[600] = "";
	int head;
	size_t room;

	/* No log: PoCL fails so when it cannot write its kernel cache. */
	if (!*log && rt_kcache_disk_full(full + 2, sizeof(full) - 2))
		memcpy(full, ": ", 2);
	head = snprintf(e->msg, sizeof(e->msg), "%s: build failed on %s: %s%s%s", kp->source_name,
	                dev_name, rt_cl_error_name(err), full, *log ? "\n" : "");

	if (head < 0 || (size_t)head + PREFIX_ROOM >= sizeof(e->msg)) {
		free(log);
		return -1;
	}
	room = sizeof(e->msg) - PREFIX_ROOM - (size_t)head - 1;
	if (strlen(log) > room && room < sizeof(cut)) {
		e->msg[head] = '\0';
	} else if (strlen(log) > room) {
		size_t keep = room - (sizeof(cut) - 1);

		/* End on a whole line where there is one. */
		while (keep > 0 && log[keep] != '\n')
			keep--;
		if (keep == 0)
			keep = room - (sizeof(cut) - 1);
		memcpy(e->msg + head, log, keep);
		memcpy(e->msg + head + keep, cut, sizeof(cut));
	} else {
		memcpy(e->msg + head, log, strlen(log) + 1);
	}
	free(log);
	return -1;
}

char *rt_build_options(const char *options)
{
	static const char arg_info[] = "-cl-kernel-arg-info";

	if (!options)
		options = "";
	if (strstr(options, arg_info))
		return xstrdup(options);
	return xasprintf("%s%s%s", options, *options ? " " : "", arg_info);
}

/* "3 errors generated.", "1 warning and 2 errors generated." */
static bool count_line(const char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	return s[0] >= '0' && s[0] <= '9' && n > 11 && strncmp(s + n - 11, " generated.", 11) == 0;
}

/* Clang inside a driver prints "1 error generated." on the process's standard error, ahead
 * of carsh's message that holds those errors. So standard error goes to a temporary file
 * while a program builds, and what came there, less such counts, is passed on after. One
 * build at a time in a process; another thread's messages in that time are late, not lost,
 * and a carsh ending on a signal takes descriptor 2 back first (util/errhold.h). */
static pthread_mutex_t quiet_lock = PTHREAD_MUTEX_INITIALIZER;

/* A guest in another program (the embedding API, docs/api.md) leaves its standard error
 * alone: moving file descriptor 2 would hold back or lose the host's own threads' output. */
static __thread bool guest_builds;

void rt_guest_builds(bool on)
{
	guest_builds = on;
}

/* A driver that ends the process inside clBuildProgram (PoCL's compiler calls exit(1) when
 * it cannot write its kernel cache) would leave standard error held, its message in the
 * temporary file and no word of carsh's. An atexit handler, armed for the build, gives
 * standard error back, passes on what was held and says what ended the process. */
static FILE *building_tmp;
/* The thread that builds: the compiler calls exit() in it; another thread's exit meanwhile
 * is not the driver's doing. */
static __thread bool building;

static void pass_held(FILE *tmp)
{
	char line[1024];

	rewind(tmp);
	while (fgets(line, sizeof(line), tmp))
		if (!count_line(line))
			fputs(line, stderr);
}

static void build_exit_note(void)
{
	char note[600];

	if (!building)
		return;
	building = false;
	fflush(stderr);
	errhold_end();
	if (building_tmp)
		pass_held(building_tmp);
	if (!rt_kcache_disk_full(note, sizeof(note)))
		snprintf(note, sizeof(note), "its own message, if any, is above");
	fprintf(stderr, "carsh: the OpenCL driver ended the process while it built a program: %s\n",
	        note);
	fflush(stderr);
	/* The rest of exit() would run in the middle of a build (other handlers; a sanitizer's
	 * leak check would report the build's memory): end here, with the status PoCL's
	 * compiler gives, 1. */
	_exit(1);
}

static void arm_exit_note(void)
{
	if (atexit(build_exit_note) != 0)
		fprintf(stderr, "carsh: warning: cannot register the build's exit note\n");
}

cl_int rt_build_program(cl_program prog, cl_uint n, const cl_device_id *devs, const char *options)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	FILE *tmp;
	bool held = false;
	cl_int err;

	if (guest_builds)
		return clBuildProgram(prog, n, devs, options, NULL, NULL);
	pthread_once(&once, arm_exit_note);
	pthread_mutex_lock(&quiet_lock);
	fflush(stderr);
	tmp = tmpfile();
	if (tmp)
		held = errhold_begin(fileno(tmp)) == 0;
	building_tmp = held ? tmp : NULL;
	building = true;
	err = clBuildProgram(prog, n, devs, options, NULL, NULL);
	building = false;
	building_tmp = NULL;
	if (held) {
		fflush(stderr);
		errhold_end();
		pass_held(tmp);
	}
	if (tmp)
		fclose(tmp);
	pthread_mutex_unlock(&quiet_lock);
	return err;
}

static int build_from_source(cl_context ctx, const struct rt_devinfo *info, cl_uint n,
                             const cl_device_id *devs, const struct kernel_plan *kp,
                             const char *options, cl_program *out, struct cs_err *e)
{
	cl_int err;
	const char *source = kp->source;
	cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);

	if (err != CL_SUCCESS)
		return err_set(e, "%s: clCreateProgramWithSource failed: %s", kp->source_name,
		               rt_cl_error_name(err));
	err = rt_build_program(prog, n, devs, options);
	if (err != CL_SUCCESS) {
		rt_build_error(prog, devs[0], info->name, kp, err, e);
		(void)clReleaseProgram(prog);
		return -1;
	}
	*out = prog;
	return 0;
}

/* A binary from the cache, the same for every device; any failure only means "build from
 * source instead". PoCL leaves binary_status unwritten on success: it starts as
 * CL_SUCCESS. */
static int build_from_binary(cl_context ctx, cl_uint n, const cl_device_id *devs,
                             const unsigned char *bin, size_t len, const char *options,
                             cl_program *out)
{
	size_t *lens = xcalloc(n, sizeof(*lens));
	const unsigned char **bins = xcalloc(n, sizeof(*bins));
	cl_int *status = xcalloc(n, sizeof(*status));
	cl_program prog;
	cl_int err;
	int rc = -1;

	for (cl_uint i = 0; i < n; i++) {
		lens[i] = len;
		bins[i] = bin;
	}
	prog = clCreateProgramWithBinary(ctx, n, devs, lens, bins, status, &err);
	if (err == CL_SUCCESS) {
		bool ok = true;

		for (cl_uint i = 0; i < n; i++)
			ok = ok && status[i] == CL_SUCCESS;
		if (ok && rt_build_program(prog, n, devs, options) == CL_SUCCESS) {
			*out = prog;
			rc = 0;
		} else {
			(void)clReleaseProgram(prog);
		}
	}
	free(lens);
	free(bins);
	free(status);
	return rc;
}

/* Keep the first device's binary of a fresh build (the devices are alike). A failure costs
 * only the next build's time, so it is not reported. */
static void cache_keep(const char *dir, const char *key, cl_uint n, cl_program prog)
{
	size_t *lens = xcalloc(n, sizeof(*lens));
	unsigned char **bins = xcalloc(n, sizeof(*bins));
	struct cs_err ignored;

	if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, n * sizeof(*lens), lens, NULL) ==
	            CL_SUCCESS &&
	    lens[0] > 0) {
		for (cl_uint i = 0; i < n; i++)
			bins[i] = lens[i] ? malloc(lens[i]) : NULL;
		if (bins[0] && clGetProgramInfo(prog, CL_PROGRAM_BINARIES, n * sizeof(*bins), bins,
		                                NULL) == CL_SUCCESS)
			cache_store(dir, key, bins[0], lens[0], &ignored);
		for (cl_uint i = 0; i < n; i++)
			free(bins[i]);
	}
	free(lens);
	free(bins);
}

int rt_program_build_on(cl_context ctx, const struct rt_devinfo *info, cl_uint n,
                        const cl_device_id *devs, const struct kernel_plan *kp, cl_program *out,
                        bool *cache_hit, struct cs_err *e)
{
	/* A program whose includes cannot be followed is never kept: it could not be told
	 * from one built with other headers. */
	char *dir = rt_includes_known(kp->includes) ? cache_dir() : NULL;
	char *key = NULL;
	char *options = rt_build_options(kp->build_options);
	unsigned char *bin;
	size_t len;
	sigset_t mask;
	bool held;
	int rc, lock = cache_build_lock();

	/* The build and the binary kept (PoCL links its kernels for it) go on through Ctrl-C
	 * where it does not end the process (runtime/buildsig.h). */
	buildsig_hold(&mask, &held);
	*cache_hit = false;
	if (dir) {
		key = cache_key(info->platform_version, info->name, info->version, info->driver,
		                options, kp->source, kp->includes);
		if (cache_load(dir, key, &bin, &len) == 0) {
			rc = build_from_binary(ctx, n, devs, bin, len, options, out);
			free(bin);
			if (rc == 0) {
				*cache_hit = true;
				goto out;
			}
		}
	}
	rc = build_from_source(ctx, info, n, devs, kp, options, out, e);
	/* A header edited since the flow-model was read compiled into this binary: it does
	 * not belong under the key of the older contents. */
	if (rc == 0 && dir && rt_includes_unchanged(kp->includes))
		cache_keep(dir, key, n, *out);
out:
	buildsig_release(&mask, held);
	cache_build_unlock(lock);
	free(options);
	free(key);
	free(dir);
	return rc;
}

int rt_program_build(cl_context ctx, const struct rt_devinfo *dev, const struct kernel_plan *kp,
                     cl_program *out, bool *cache_hit, struct cs_err *e)
{
	return rt_program_build_on(ctx, dev, 1, &dev->device, kp, out, cache_hit, e);
}
