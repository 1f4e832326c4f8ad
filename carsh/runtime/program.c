/* Program build through the binary cache (DESIGN §5). */
#include "runtime/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cache.h"
#include "util/alloc.h"

/* The build log of dev, without trailing blank lines; "" when there is none. Free it. */
static char *build_log(cl_program prog, cl_device_id dev)
{
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
	return log;
}

/* Callers put their location in front (err_prefix takes up to 1024 bytes): keep room for it
 * so that the end of a long log, and the note that it was cut, survive. */
#define PREFIX_ROOM 1024

/* "<source>: build failed on <device>: <error>\n<log>", the log cut to fit the message. */
static int build_error(cl_program prog, const struct rt_devinfo *dev, const char *source_name,
                       cl_int err, struct cs_err *e)
{
	static const char cut[] = "\n... (build log truncated)";
	char *log = build_log(prog, dev->device);
	int head = snprintf(e->msg, sizeof(e->msg), "%s: build failed on %s: %s%s", source_name,
	                    dev->name, rt_cl_error_name(err), *log ? "\n" : "");
	size_t room;

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

static int build_from_source(cl_context ctx, const struct rt_devinfo *dev, const char *source,
                             const char *source_name, const char *options, cl_program *out,
                             struct cs_err *e)
{
	cl_int err;
	cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);

	if (err != CL_SUCCESS)
		return err_set(e, "%s: clCreateProgramWithSource failed: %s", source_name,
		               rt_cl_error_name(err));
	err = clBuildProgram(prog, 1, &dev->device, options, NULL, NULL);
	if (err != CL_SUCCESS) {
		build_error(prog, dev, source_name, err, e);
		clReleaseProgram(prog);
		return -1;
	}
	*out = prog;
	return 0;
}

/* A binary from the cache; any failure only means "build from source instead". */
static int build_from_binary(cl_context ctx, const struct rt_devinfo *dev, const unsigned char *bin,
                             size_t len, const char *options, cl_program *out)
{
	cl_int err, status;
	cl_program prog =
	        clCreateProgramWithBinary(ctx, 1, &dev->device, &len, &bin, &status, &err);

	if (err != CL_SUCCESS)
		return -1;
	if (status != CL_SUCCESS ||
	    clBuildProgram(prog, 1, &dev->device, options, NULL, NULL) != CL_SUCCESS) {
		clReleaseProgram(prog);
		return -1;
	}
	*out = prog;
	return 0;
}

/* Keep the binary of a fresh build. A failure costs only the next build's time, so it is
 * not reported. */
static void cache_keep(const char *dir, const char *key, cl_program prog)
{
	struct cs_err ignored;
	unsigned char *bin;
	size_t len = 0;

	if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof(len), &len, NULL) !=
	            CL_SUCCESS ||
	    len == 0)
		return;
	bin = malloc(len);
	if (!bin)
		return;
	if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL) == CL_SUCCESS)
		cache_store(dir, key, bin, len, &ignored);
	free(bin);
}

int rt_program_build(cl_context ctx, const struct rt_devinfo *dev, const char *source,
                     const char *source_name, const char *options, cl_program *out, bool *cache_hit,
                     struct cs_err *e)
{
	char *dir = cache_dir();
	char *key = NULL;
	unsigned char *bin;
	size_t len;
	int rc, lock = cache_build_lock();

	*cache_hit = false;
	if (!options)
		options = "";
	if (dir) {
		key = cache_key(dev->platform_version, dev->name, dev->version, dev->driver,
		                options, source);
		if (cache_load(dir, key, &bin, &len) == 0) {
			rc = build_from_binary(ctx, dev, bin, len, options, out);
			free(bin);
			if (rc == 0) {
				*cache_hit = true;
				goto out;
			}
		}
	}
	rc = build_from_source(ctx, dev, source, source_name, options, out, e);
	if (rc == 0 && dir)
		cache_keep(dir, key, *out);
out:
	cache_build_unlock(lock);
	free(key);
	free(dir);
	return rc;
}
