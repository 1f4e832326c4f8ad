/* Statistics of foreground jobs, for `time` and `set stats=on`. */
#include "runner/stats.h"

#include <stdio.h>
#include <string.h>

#include "util/json.h"

void stats_add_queued(struct stats_acc *acc, const struct run_stats *st)
{
	run_stats_add_device(&acc->sum, st);
}

int run_flush(struct run_ctx *c, struct cs_err *e)
{
	struct run_stats st;
	int rc;

	if (!c->s->texec)
		return 0;
	rc = texec_flush(c->s->texec, c->stats, &st, e);
	stats_add_queued(c->stats, &st);
	return rc;
}

void stats_place(struct stats_acc *acc, const char *why)
{
	acc->placed++;
	snprintf(acc->place, sizeof(acc->place), "%s", why);
}

void stats_merge(struct stats_acc *dst, const struct stats_acc *src)
{
	int jobs = dst->jobs + src->jobs;

	if (src->placed) {
		dst->placed += src->placed;
		memcpy(dst->place, src->place, sizeof(dst->place));
	}
	if (!src->jobs)
		return;
	stats_add(dst, &src->sum);
	dst->jobs = jobs;
}

void stats_add(struct stats_acc *acc, const struct run_stats *st)
{
	struct run_stats *s = &acc->sum;

	if (acc->jobs == 0)
		memcpy(s->device, st->device, sizeof(s->device));
	else if (strcmp(s->device, st->device) != 0)
		snprintf(s->device, sizeof(s->device), "several devices");
	acc->jobs++;
	s->wall_ms += st->wall_ms;
	s->platform_ms += st->platform_ms;
	s->context_ms += st->context_ms;
	s->build_ms += st->build_ms;
	s->cache_hit = acc->jobs == 1 ? st->cache_hit : s->cache_hit && st->cache_hit;
	s->h2d_ms += st->h2d_ms;
	s->kernel_ms += st->kernel_ms;
	s->swap_ms += st->swap_ms;
	s->d2h_ms += st->d2h_ms;
	s->in_ms += st->in_ms;
	s->out_ms += st->out_ms;
	s->launches += st->launches;
}

void stats_print(FILE *f, const struct stats_acc *acc, double wall_ms, bool profiled)
{
	const struct run_stats *s = &acc->sum;

	if (wall_ms >= 0)
		fprintf(f, "real     %10.3f ms\n", wall_ms);
	if (acc->jobs)
		fprintf(f, "jobs     %10d on %s; %.3f ms inside them\n", acc->jobs, s->device,
		        s->wall_ms);
	/* Also without foreground jobs: rank="auto" places background ones (mpi/placement.h). */
	if (acc->placed == 1)
		fprintf(f, "place    %s\n", acc->place);
	else if (acc->placed > 1)
		fprintf(f, "place    %d jobs by auto, the last: %s\n", acc->placed, acc->place);
	if (acc->jobs == 0)
		return;
	if (!profiled) {
		fflush(f);
		return;
	}
	fprintf(f, "platform %10.3f ms  context %.3f ms  build %.3f ms (%s)\n", s->platform_ms,
	        s->context_ms, s->build_ms, s->cache_hit ? "binary cache" : "compiled");
	fprintf(f,
	        "h2d      %10.3f ms  kernel %.3f ms (%lld launches)  swap %.3f ms  d2h %.3f ms\n",
	        s->h2d_ms, s->kernel_ms, s->launches, s->swap_ms, s->d2h_ms);
	fprintf(f, "files    %10.3f ms in  %.3f ms out\n", s->in_ms, s->out_ms);
	fflush(f);
}

void stats_print_json(FILE *f, const struct stats_acc *acc, double wall_ms, bool profiled)
{
	const struct run_stats *s = &acc->sum;

	fprintf(f, "{\"real_ms\": %.3f, \"jobs\": %d", wall_ms, acc->jobs);
	if (acc->jobs) {
		fputs(", \"device\": ", f);
		json_put_string(f, s->device);
		fprintf(f, ", \"inside_ms\": %.3f", s->wall_ms);
	}
	if (acc->jobs && profiled)
		fprintf(f,
		        ", \"platform_ms\": %.3f, \"context_ms\": %.3f, \"build_ms\": %.3f, "
		        "\"h2d_ms\": %.3f, \"kernel_ms\": %.3f, \"launches\": %lld, "
		        "\"swap_ms\": %.3f, \"d2h_ms\": %.3f, \"in_ms\": %.3f, \"out_ms\": %.3f",
		        s->platform_ms, s->context_ms, s->build_ms, s->h2d_ms, s->kernel_ms,
		        s->launches, s->swap_ms, s->d2h_ms, s->in_ms, s->out_ms);
	if (acc->placed) {
		fprintf(f, ", \"placed\": %d, \"placement\": ", acc->placed);
		json_put_string(f, acc->place);
	}
	fputs("}\n", f);
	fflush(f);
}
