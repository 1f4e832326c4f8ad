/* time: run a command and report its wall time and its jobs' OpenCL timings. */
#include <stdlib.h>

#include "cmd/cmd.h"
#include "util/options.h"
#include "util/clock.h"

/* --json is in the help; the usage line stays as scripts and tests know it. */
static const char usage_text[] = "time [--wall] COMMAND [ARG]...";

struct time_args {
	bool wall;
	bool json;
};

static const struct opt time_opts[] = {
        OPT_FLAG("--wall", struct time_args, wall,
                 "print only real and jobs, and take no profiling events: the thread\n"
                 "executor then runs as it does untimed (its launches go to the\n"
                 "device's feeder thread); with `set stats=on` events are still taken"),
        OPT_FLAG("--json", struct time_args, json,
                 "print the same as one JSON object on one line (real_ms, jobs, device,\n"
                 "the OpenCL times, and placement: why `auto` chose the device or rank)"),
        OPT_END,
};

static const char about[] =
        "Run COMMAND, wait for the device work it queued, and print on standard error:\n"
        "  real      the wall time, from the start to the end of the device work\n"
        "  jobs      how many flow-models ran, on which device, and their time inside\n"
        "  platform  discovery, context and build (or binary-cache) time\n"
        "  h2d ...   host-to-device, kernel, swap and device-to-host time, from OpenCL\n"
        "            profiling events taken for every command\n"
        "  place     where `auto` (--device auto, <Exec rank=\"auto\"> under MPI)\n"
        "            ran the jobs, and why";

/* --wall: only the wall time, with the jobs unprofiled, as they run untimed (profiling
 * events cost the thread executor as much as a small kernel on a GPU). */
static int time_command(struct run_ctx *c, const struct time_args *a, int argc, char **argv,
                        struct cs_err *e)
{
	struct stats_acc acc = {0};
	struct run_ctx inner = *c;
	double t0;
	int rc;

	inner.stats = &acc;
	inner.profile = !a->wall;
	t0 = clock_ms();
	rc = cmd_exec_argv(&inner, argc, argv, e);
	if (run_flush(&inner, e) && rc == 0)
		rc = 1;
	if (a->json)
		stats_print_json(stderr, &acc, clock_ms() - t0, !a->wall);
	else
		stats_print(stderr, &acc, clock_ms() - t0, !a->wall);
	stats_merge(c->stats, &acc);
	c->timed = true;
	return rc;
}

/* No command is a usage error, said so for --wall, which a script may give alone. */
static int time_run(struct run_ctx *c, void *args, int n, char **command, struct cs_err *e)
{
	const struct time_args *a = args;

	if (n == 0 && a->wall)
		return cmd_error(e, 2, "time: --wall needs a command");
	if (n == 0)
		return cmd_error(e, 2, "usage: %s", usage_text);
	return time_command(c, a, n, command, e);
}

const struct carsh_cmd cmd_time = {
        .name = "time",
        .summary = "run a command; print wall time and build, transfer, kernel and swap times",
        /* The command's own options are its business: the first operand ends time's. */
        .args = {.usage = usage_text,
                 .about = about,
                 .opts = time_opts,
                 .flags = OPT_STOP_AT_OPERAND,
                 .min = 0,
                 .max = OPT_ANY},
        .args_size = sizeof(struct time_args),
        .run = time_run,
};
