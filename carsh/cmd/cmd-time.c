/* time: run a command and report its wall time and its jobs' OpenCL timings. */
#include <string.h>

#include "cmd/cmd.h"
#include "util/clock.h"

/* --wall: only the wall time, with the jobs unprofiled, as they run untimed (profiling
 * events cost the thread executor as much as a small kernel on a GPU). */
static int cmd_time_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	bool wall = strcmp(argv[1], "--wall") == 0;
	struct stats_acc acc = {0, {0}};
	struct run_ctx inner = *c;
	double t0;
	int rc;

	if (wall && argc < 3)
		return cmd_error(e, 2, "time: --wall needs a command");
	argc -= wall;
	argv += wall;
	inner.stats = &acc;
	inner.profile = !wall;
	t0 = clock_ms();
	rc = cmd_exec_argv(&inner, argc - 1, argv + 1, e);
	if (run_flush(&inner, e) && rc == 0)
		rc = 1;
	stats_print(stderr, &acc, clock_ms() - t0, !wall);
	stats_merge(c->stats, &acc);
	c->timed = true;
	return rc;
}

static void time_help(FILE *out)
{
	fputs("usage: time [--wall] COMMAND [ARG]...\n"
	      "Run COMMAND, wait for the device work it queued, and print on standard error:\n"
	      "  real      the wall time, from the start to the end of the device work\n"
	      "  jobs      how many flow-models ran, on which device, and their time inside\n"
	      "  platform  discovery, context and build (or binary-cache) time\n"
	      "  h2d ...   host-to-device, kernel, swap and device-to-host time, from OpenCL\n"
	      "            profiling events taken for every command\n"
	      "  --wall    print only real and jobs, and take no profiling events: the thread\n"
	      "            executor then runs as it does untimed (its launches go to the\n"
	      "            device's feeder thread); with `set stats=on` events are still taken\n",
	      out);
}

const struct carsh_cmd cmd_time = {
        .name = "time",
        .usage = "time [--wall] COMMAND [ARG]...",
        .summary = "run a command; print wall time and build, transfer, kernel and swap times",
        .min_args = 1,
        .max_args = -1,
        .exec = cmd_time_exec,
        .help = time_help,
};
