/* Device discovery and the device choice of DESIGN §4. */
#include "runtime/runtime.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime/poclcache.h"
#include "runtime/pocltemp.h"
#include "util/alloc.h"
#include "util/strbuf.h"

#define NO_PLATFORM                                                                    \
	"no OpenCL platform found: install an OpenCL driver (e.g. the Debian package " \
	"pocl-opencl-icd for the CPU)"

const char *rt_device_type_name(cl_device_type t)
{
	if (t & CL_DEVICE_TYPE_GPU)
		return "gpu";
	if (t & CL_DEVICE_TYPE_CPU)
		return "cpu";
	if (t & CL_DEVICE_TYPE_ACCELERATOR)
		return "accelerator";
	return "other";
}

/* A string property cut to fit buf: asking with a short buffer is an error in OpenCL, so
 * ask for the size first. */
static cl_int device_string(cl_device_id d, cl_device_info what, char *buf, size_t n)
{
	size_t len;
	char *tmp;
	cl_int err = clGetDeviceInfo(d, what, 0, NULL, &len);

	if (err != CL_SUCCESS)
		return err;
	tmp = xmalloc(len + 1);
	err = clGetDeviceInfo(d, what, len, tmp, NULL);
	tmp[len] = '\0';
	if (err == CL_SUCCESS)
		snprintf(buf, n, "%s", tmp);
	free(tmp);
	return err;
}

static cl_int platform_string(cl_platform_id p, cl_platform_info what, char *buf, size_t n)
{
	size_t len;
	char *tmp;
	cl_int err = clGetPlatformInfo(p, what, 0, NULL, &len);

	if (err != CL_SUCCESS)
		return err;
	tmp = xmalloc(len + 1);
	err = clGetPlatformInfo(p, what, len, tmp, NULL);
	tmp[len] = '\0';
	if (err == CL_SUCCESS)
		snprintf(buf, n, "%s", tmp);
	free(tmp);
	return err;
}

#define DEV_INFO(what, field)                                                              \
	do {                                                                               \
		err = clGetDeviceInfo(d->device, what, sizeof(d->field), &d->field, NULL); \
		if (err != CL_SUCCESS)                                                     \
			return err_set(e, "clGetDeviceInfo(" #what ") failed: %s",         \
			               rt_cl_error_name(err));                             \
	} while (0)

#define DEV_STR(what, field)                                                       \
	do {                                                                       \
		err = device_string(d->device, what, d->field, sizeof(d->field));  \
		if (err != CL_SUCCESS)                                             \
			return err_set(e, "clGetDeviceInfo(" #what ") failed: %s", \
			               rt_cl_error_name(err));                     \
	} while (0)

/* A device may have more than three dimensions; the plan uses at most three. */
static cl_int item_sizes(cl_device_id d, size_t out[3])
{
	size_t len, *all;
	cl_int err = clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, 0, NULL, &len);

	if (err != CL_SUCCESS)
		return err;
	all = xcalloc(len / sizeof(size_t) > 3 ? len / sizeof(size_t) : 3, sizeof(size_t));
	err = clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, len, all, NULL);
	if (err == CL_SUCCESS)
		memcpy(out, all, 3 * sizeof(size_t));
	free(all);
	return err;
}

static int devinfo_fill(struct rt_devinfo *d, struct cs_err *e)
{
	cl_device_fp_config fp = 0;
	cl_int err;

	DEV_INFO(CL_DEVICE_TYPE, type);
	DEV_STR(CL_DEVICE_NAME, name);
	DEV_STR(CL_DEVICE_VENDOR, vendor);
	DEV_STR(CL_DEVICE_VERSION, version);
	DEV_STR(CL_DRIVER_VERSION, driver);
	DEV_INFO(CL_DEVICE_MAX_COMPUTE_UNITS, compute_units);
	DEV_INFO(CL_DEVICE_GLOBAL_MEM_SIZE, global_mem);
	DEV_INFO(CL_DEVICE_MAX_MEM_ALLOC_SIZE, max_alloc);
	DEV_INFO(CL_DEVICE_MAX_WORK_GROUP_SIZE, max_work_group);
	DEV_INFO(CL_DEVICE_LOCAL_MEM_SIZE, local_mem);
	/* No answer is no double support: the device choice then leaves it out for doubles. */
	d->fp64 = clGetDeviceInfo(d->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(fp), &fp, NULL) ==
	                  CL_SUCCESS &&
	          fp != 0;
	err = item_sizes(d->device, d->max_item_sizes);
	if (err != CL_SUCCESS)
		return err_set(e, "clGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES) failed: %s",
		               rt_cl_error_name(err));
	return 0;
}

/* Append the devices of one platform to *list. A platform without devices is skipped. */
static int platform_devices(cl_platform_id p, struct rt_devinfo **list, size_t *n, size_t *cap,
                            struct cs_err *e)
{
	char pname[128], pversion[128];
	cl_device_id *ids;
	cl_uint nd = 0;
	cl_int err;

	err = platform_string(p, CL_PLATFORM_NAME, pname, sizeof(pname));
	if (err == CL_SUCCESS)
		err = platform_string(p, CL_PLATFORM_VERSION, pversion, sizeof(pversion));
	if (err != CL_SUCCESS)
		return err_set(e, "clGetPlatformInfo failed: %s", rt_cl_error_name(err));
	err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
	if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && nd == 0))
		return 0;
	if (err != CL_SUCCESS)
		return err_set(e, "clGetDeviceIDs on platform '%s' failed: %s", pname,
		               rt_cl_error_name(err));
	ids = xcalloc(nd, sizeof(*ids));
	err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ids, NULL);
	if (err != CL_SUCCESS) {
		free(ids);
		return err_set(e, "clGetDeviceIDs on platform '%s' failed: %s", pname,
		               rt_cl_error_name(err));
	}
	for (cl_uint i = 0; i < nd; i++) {
		struct rt_devinfo *d;

		*list = xgrow(*list, cap, *n + 1, sizeof(**list));
		d = &(*list)[*n];
		memset(d, 0, sizeof(*d));
		d->index = (int)*n;
		d->platform = p;
		d->device = ids[i];
		snprintf(d->platform_name, sizeof(d->platform_name), "%s", pname);
		snprintf(d->platform_version, sizeof(d->platform_version), "%s", pversion);
		if (devinfo_fill(d, e)) {
			free(ids);
			return err_prefix(e, "platform '%s': ", pname);
		}
		(*n)++;
	}
	free(ids);
	return 0;
}

int rt_devices_list(struct rt_devinfo **out, size_t *n, struct cs_err *e)
{
	struct rt_devinfo *list = NULL;
	cl_platform_id *plats;
	size_t cnt = 0, cap = 0;
	cl_uint np = 0;
	cl_int err;

	rt_platforms_start();
	err = clGetPlatformIDs(0, NULL, &np);

	/* The ICD loader says "none" with -1001 (CL_PLATFORM_NOT_FOUND_KHR) or with 0. */
	if (err == -1001 || (err == CL_SUCCESS && np == 0))
		return err_set(e, NO_PLATFORM);
	if (err != CL_SUCCESS)
		return err_set(e, "clGetPlatformIDs failed: %s", rt_cl_error_name(err));
	plats = xcalloc(np, sizeof(*plats));
	err = clGetPlatformIDs(np, plats, NULL);
	if (err != CL_SUCCESS) {
		free(plats);
		return err_set(e, "clGetPlatformIDs failed: %s", rt_cl_error_name(err));
	}
	for (cl_uint i = 0; i < np; i++) {
		if (platform_devices(plats[i], &list, &cnt, &cap, e)) {
			free(plats);
			free(list);
			return -1;
		}
	}
	free(plats);
	if (cnt == 0) {
		char why[1024];

		free(list);
		if (rt_pocl_cache_unfit(why, sizeof(why)))
			return err_set(
			        e,
			        "no OpenCL device found on %u platform(s): PoCL cannot make its "
			        "kernel cache, since %s: point XDG_CACHE_HOME (or "
			        "POCL_CACHE_DIR) to a directory",
			        (unsigned)np, why);
		return err_set(e,
		               "no OpenCL device found on %u platform(s): check that the "
		               "OpenCL driver supports this machine",
		               (unsigned)np);
	}
	*out = list;
	*n = cnt;
	return 0;
}

/* ---- device choice: pure, so tests can feed it fake lists ---- */

static bool contains_nocase(const char *hay, const char *needle)
{
	size_t nl = strlen(needle);

	for (; *hay; hay++)
		if (strncasecmp(hay, needle, nl) == 0)
			return true;
	return nl == 0;
}

static bool is_index(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* This process's number among the processes of its node that share its GPUs: under MPI the
 * rank's number on its node (docs/scale-out.md), set before any device is chosen; 0 else. A
 * worker forked by the rank inherits it. */
static int gpu_share;

void rt_devices_share_gpus(int number)
{
	gpu_share = number < 0 ? 0 : number;
}

/* The first device of type t; for GPUs the one of gpu_share's number (modulo their count):
 * one MPI rank per GPU. */
static int first_of_type(const struct rt_devinfo *devs, size_t n, cl_device_type t, size_t *at)
{
	size_t count = 0, skip;

	for (size_t i = 0; i < n; i++)
		count += (devs[i].type & t) != 0;
	if (count == 0)
		return -1;
	skip = t == CL_DEVICE_TYPE_GPU ? (size_t)gpu_share % count : 0;
	for (size_t i = 0; i < n; i++) {
		if ((devs[i].type & t) && skip-- == 0) {
			*at = i;
			return 0;
		}
	}
	return -1;
}

static int match_name(const struct rt_devinfo *devs, size_t n, const char *sel, size_t *at)
{
	char full[sizeof(devs->name) + sizeof(devs->platform_name) + 4];

	for (size_t i = 0; i < n; i++) {
		snprintf(full, sizeof(full), "%s (%s)", devs[i].name, devs[i].platform_name);
		if (contains_nocase(full, sel)) {
			*at = i;
			return 0;
		}
	}
	return -1;
}

/* The list that ends every "no device matches" message. */
static void devices_describe(const struct rt_devinfo *devs, size_t n, struct strbuf *sb)
{
	if (n == 0)
		sb_adds(sb, "none");
	for (size_t i = 0; i < n; i++)
		sb_addf(sb, "%s%zu %s '%s' (%s)", i ? ", " : "", i,
		        rt_device_type_name(devs[i].type), devs[i].name, devs[i].platform_name);
}

/* The type a selector names (cpu, gpu, accelerator), or 0. */
static cl_device_type type_named(const char *sel)
{
	static const struct {
		const char *name;
		cl_device_type type;
	} types[] = {
	        {"cpu", CL_DEVICE_TYPE_CPU},
	        {"gpu", CL_DEVICE_TYPE_GPU},
	        {"accelerator", CL_DEVICE_TYPE_ACCELERATOR},
	};

	for (size_t i = 0; i < ARRAY_SIZE(types); i++)
		if (strcasecmp(sel, types[i].name) == 0)
			return types[i].type;
	return 0;
}

static int select_one(const struct rt_devinfo *devs, size_t n, const char *sel, size_t *at)
{
	cl_device_type t = type_named(sel);

	if (t)
		return first_of_type(devs, n, t, at);
	if (is_index(sel)) {
		char *end;
		unsigned long long idx = strtoull(sel, &end, 10);

		if (idx >= n)
			return -1;
		*at = (size_t)idx;
		return 0;
	}
	return match_name(devs, n, sel, at);
}

/* "auto" is resolved by the runner before a plan reaches a device (runner/devplace.h); a
 * plan that reaches one with "auto" still (an engine's) falls to the next rule, as "any". */
static bool selector_given(const char *s)
{
	return s && *s && strcasecmp(s, "any") != 0 && strncasecmp(s, "auto", 4) != 0;
}

/* "no OpenCL device matches": origin says where sel came from, or is NULL when the caller's
 * own prefix says it (--gpu). */
static int no_match(const struct rt_devinfo *devs, size_t n, const char *sel, const char *origin,
                    struct cs_err *e)
{
	struct strbuf sb = STRBUF_INIT;

	sb_addf(&sb, "no OpenCL device matches '%s'", sel);
	if (origin)
		sb_addf(&sb, " (from %s)", origin);
	sb_adds(&sb, "; devices: ");
	devices_describe(devs, n, &sb);
	err_set(e, "%s", sb_str(&sb));
	sb_free(&sb);
	return -1;
}

/* rt_device_pick over nsel selectors, strongest first, each with its origin. */
static int pick(const struct rt_devinfo *devs, size_t n, const char *const *sels,
                const char *const *origins, size_t nsel, size_t *chosen, struct cs_err *e)
{
	for (size_t i = 0; i < nsel; i++) {
		if (!selector_given(sels[i]))
			continue;
		if (select_one(devs, n, sels[i], chosen) == 0)
			return 0;
		return no_match(devs, n, sels[i], origins[i], e);
	}
	if (first_of_type(devs, n, CL_DEVICE_TYPE_GPU, chosen) == 0 ||
	    first_of_type(devs, n, CL_DEVICE_TYPE_CPU, chosen) == 0)
		return 0;
	if (n == 0)
		return err_set(e, "no OpenCL device found");
	*chosen = 0;
	return 0;
}

cl_device_type rt_device_type_chosen(const char *exe, const char *cli, const char *fm)
{
	const char *sels[] = {exe, cli, fm};

	for (size_t i = 0; i < ARRAY_SIZE(sels); i++)
		if (selector_given(sels[i]))
			return type_named(sels[i]);
	return 0;
}

int rt_device_pick(const struct rt_devinfo *devs, size_t n, const char *exe, const char *cli,
                   const char *fm, size_t *chosen, struct cs_err *e)
{
	const char *sels[] = {exe, cli, fm};
	const char *const origins[] = {"<Device select> of the executable", "--device/CARSH_DEVICE",
	                               "<RuntimeType device> of the flow-model"};

	return pick(devs, n, sels, origins, ARRAY_SIZE(sels), chosen, e);
}

const struct rt_devinfo *rt_device_first(const struct rt_devinfo *devs, size_t n,
                                         cl_device_type type)
{
	size_t at;

	return first_of_type(devs, n, type, &at) == 0 ? &devs[at] : NULL;
}

int rt_device_choose_gpu(const struct rt_devinfo *devs, size_t n, const struct rt_devinfo *cpu,
                         const char *sel, const struct rt_devinfo **gpu, bool *standin,
                         struct cs_err *e)
{
	const char *const no_origin = NULL;
	size_t at;

	*gpu = NULL;
	*standin = false;
	if (!sel || strcmp(sel, "auto") == 0) {
		*gpu = rt_device_first(devs, n, CL_DEVICE_TYPE_GPU);
		if (!*gpu)
			*gpu = rt_device_first(devs, n, CL_DEVICE_TYPE_ACCELERATOR);
	} else if (strcmp(sel, "cpu") == 0) {
		*standin = true;
	} else if (strcmp(sel, "none") != 0) {
		if (pick(devs, n, &sel, &no_origin, 1, &at, e))
			return err_prefix(e, "--gpu: ");
		if (&devs[at] == cpu)
			*standin = true;
		else
			*gpu = &devs[at];
	}
	return 0;
}
