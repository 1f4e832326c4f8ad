/* devices: list OpenCL platforms and devices, with the index <Device select> accepts. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "exec/executor.h"
#include "exec/threadexec.h"
#include "runner/devplace.h"
#include "util/options.h"

static void print_devices(FILE *f, const struct rt_devinfo *devs, size_t n)
{
	fprintf(f, "%-5s %-11s %-40s %-30s %4s %10s %10s\n", "INDEX", "TYPE", "NAME", "PLATFORM",
	        "CU", "MEMORY", "MAX ALLOC");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%-5d %-11s %-40.40s %-30.30s %4u %7llu MiB %6llu MiB\n", devs[i].index,
		        rt_device_type_name(devs[i].type), devs[i].name, devs[i].platform_name,
		        devs[i].compute_units, (unsigned long long)(devs[i].global_mem >> 20),
		        (unsigned long long)(devs[i].max_alloc >> 20));
}

static int list_devices_child(void *arg, struct job_result *res)
{
	struct rt_devinfo *devs;
	size_t n;
	struct cs_err e;

	(void)arg;
	if (rt_devices_list(&devs, &n, &e)) {
		err_prefix(&e, "devices: ");
		memcpy(res->msg, e.msg, sizeof(res->msg));
		return 1;
	}
	print_devices(stdout, devs, n);
	free(devs);
	return 0;
}

/* The thread executor's runtime already knows them. */
static int list_devices_here(struct run_ctx *c, struct cs_err *e)
{
	const struct rt_devinfo *devs;
	size_t n;

	if (rt_session_devices(texec_session(c->s->texec), &devs, &n, e))
		return cmd_prefix(e, 1, "devices: ");
	print_devices(c->out, devs, n);
	return 0;
}

struct devices_args {
	bool profiles;
};

static const struct opt devices_opts[] = {
        OPT_FLAG("--profiles", struct devices_args, profiles,
                 "print the profile history the `auto` device choice learns from: per\n"
                 "flow-model, kernel, device and work size, the measured time (and energy)"),
        OPT_END,
};

static int print_profiles(struct run_ctx *c, struct cs_err *e)
{
	char warn[300] = "";

	if (place_profiles_print(c->s->placer, c->out, warn, sizeof(warn), e))
		return 1;
	if (warn[0])
		fprintf(stderr, "carsh: devices: warning: %s\n", warn);
	return 0;
}

/* OpenCL runs in a child: the master must never create an OpenCL context (DESIGN §2) —
 * unless the thread executor has made this process the runtime. */
static int devices_run(struct run_ctx *c, void *args, int n, char **words, struct cs_err *e)
{
	struct child_io io = run_child_io(c);
	struct exec_env env = run_exec_env(c);
	const struct devices_args *a = args;

	(void)n;
	(void)words;
	if (a->profiles)
		return print_profiles(c, e);
	if (c->s->texec)
		return list_devices_here(c, e);
	return exec_child_foreground(list_devices_child, NULL, &io, &env, e);
}

const struct carsh_cmd cmd_devices = {
        .name = "devices",
        .summary = "list OpenCL platforms and devices (the INDEX is what <Device select> "
                   "takes); --profiles the history `auto` chooses by",
        .args = {.usage = "devices [--profiles]",
                 .about = "List OpenCL platforms and devices, with the INDEX <Device select> "
                          "takes.",
                 .opts = devices_opts,
                 .min = 0,
                 .max = 0},
        .args_size = sizeof(struct devices_args),
        .run = devices_run,
};
