/* The partition engine's summary, JSON and trace. */
#include <stdio.h>
#include <string.h>

#include "engines/partition/partition.h"
#include "util/atomicfile.h"
#include "util/json.h"

static double share_of(const struct part_result *r, const struct part_devstat *d)
{
	double total = (double)r->items * r->steps;

	return total > 0 ? (double)d->items / total : 0;
}

static void print_devices_line(FILE *f, const struct part_result *r)
{
	if (r->gpu && r->ngpu > 1)
		fprintf(f, "%u GPUs%s", r->ngpu,
		        r->standin ? " (gpu0 a CPU core standing in)" : "");
	else if (r->gpu && r->standin)
		fprintf(f, "gpu (a CPU core standing in)");
	else if (r->gpu)
		fprintf(f, "gpu");
	if (r->gpu && r->ncpu)
		fprintf(f, " + ");
	if (r->ncpu)
		fprintf(f, "%u CPU core%s", r->ncpu, r->ncpu == 1 ? "" : "s");
}

/* LogFit keeps a fit per GPU (003 §4 per accelerator). */
static void print_fits(FILE *f, const struct part_result *r)
{
	for (unsigned g = 0; g < r->ngpu; g++)
		if (r->fits[g].fitted)
			fprintf(f,
			        "fit      gpu%u: throughput = %.6g ln(chunk) + %.6g items/ms; GPU "
			        "chunk %.0f\n",
			        g, r->fits[g].a, r->fits[g].b, r->fits[g].chunk);
}

/* Across MPI ranks: the devices above are rank 0's; each rank's part of the last step. */
static void print_ranks(FILE *f, const struct part_result *r)
{
	for (unsigned k = 0; k < r->nranks; k++)
		fprintf(f, "rank%-3u %11zu rows %7.1f%% %11.3f ms  (last step)\n", k,
		        r->rank_rows[k],
		        r->items ? 100.0 * (double)r->rank_rows[k] / (double)r->items : 0,
		        r->rank_ms[k]);
}

void part_print_summary(FILE *f, const struct part_result *r)
{
	fprintf(f, "partition %s: %zu items x %u step%s, sched %s", r->label, r->items, r->steps,
	        r->steps == 1 ? "" : "s", sched_name(r->asked));
	if (r->ran != r->asked)
		fprintf(f, " (no GPU: ran as %s)", sched_name(r->ran));
	fprintf(f, ", %u thread%s: ", r->threads, r->threads == 1 ? "" : "s");
	print_devices_line(f, r);
	fprintf(f, "\n");
	fprintf(f, "time     %10.3f ms  (setup %.3f ms, of which builds %.3f ms, not included)\n",
	        r->time_ms, r->setup_ms, r->build_ms);
	fprintf(f, "energy   ");
	if (r->energy.gpu_ok)
		fprintf(f, "GPU %.3f J (%s)", r->energy.gpu_j, r->energy.gpu_note);
	else
		fprintf(f, "GPU n/a (%s)", r->energy.gpu_note);
	if (r->energy.cpu_ok)
		fprintf(f, "; CPU %.3f J (%s)\n", r->energy.cpu_j, r->energy.cpu_note);
	else
		fprintf(f, "; CPU n/a (%s)\n", r->energy.cpu_note);
	fprintf(f, "%-7s %7s %11s %8s %11s %9s %11s  %s\n", "device", "chunks", "items", "share",
	        "busy ms", "copy ms", "last chunk", "name");
	for (unsigned i = 0; i < r->ndev; i++) {
		const struct part_devstat *d = &r->dev[i];

		fprintf(f, "%-7s %7zu %11zu %7.1f%% %11.3f %9.3f %11zu  %s\n", d->label, d->chunks,
		        d->items, 100.0 * share_of(r, d), d->busy_ms, d->copy_ms, d->last_chunk,
		        d->name);
	}
	print_ranks(f, r);
	if (r->fitted && r->ngpu > 1 && r->ran == SCHED_LOGFIT)
		print_fits(f, r);
	else if (r->fitted)
		fprintf(f, "fit      throughput = %.6g ln(chunk) + %.6g items/ms; GPU chunk %.0f\n",
		        r->fit_a, r->fit_b, r->gpu_chunk);
	if (r->core_cost)
		fprintf(f, "cores    fixed cost %.3f ms a chunk; no chunk below %.0f items\n",
		        r->core_fixed_ms, r->core_min_chunk);
	if (r->gpu_fraction > 0)
		fprintf(f, "concord  GPU fraction %.4f\n", r->gpu_fraction);
	if (r->relative_speed > 0)
		fprintf(f, "hdss     GPU speed %.4g x a core\n", r->relative_speed);
	if (r->asked == SCHED_STATIC) {
		fprintf(f, "static   GPU share %.0f%%", 100.0 * r->gpu_share);
		if (r->profiled) {
			fprintf(f, "; profile:");
			for (int p = 0; p < PART_PROFILE_N; p++)
				fprintf(f, " %d%% %.3f ms%s", p * 10, r->profile_ms[p],
				        p + 1 < PART_PROFILE_N ? "," : "");
		}
		fprintf(f, "\n");
	}
	fflush(f);
}

static void json_energy(FILE *f, const char *key, bool ok, double j, const char *note)
{
	fprintf(f, "\"%s_j\":", key);
	if (ok)
		fprintf(f, "%.6f", j);
	else
		fprintf(f, "null");
	fprintf(f, ",\"%s_note\":", key);
	json_put_string(f, note);
}

/* Several GPUs only (one GPU's JSON is as it was): how many, and each one's fit. */
static void json_fits(FILE *f, const struct part_result *r)
{
	fprintf(f, ",\"gpus\":%u,\"fits\":[", r->ngpu);
	for (unsigned g = 0; g < r->ngpu; g++) {
		const struct part_fit *x = &r->fits[g];

		if (g)
			fputc(',', f);
		if (x->fitted && r->ran == SCHED_LOGFIT)
			fprintf(f, "{\"a\":%.9g,\"b\":%.9g,\"gpu_chunk\":%.9g}", x->a, x->b,
			        x->chunk);
		else
			fprintf(f, "null");
	}
	fputc(']', f);
}

void part_print_json(FILE *f, const struct part_result *r)
{
	fprintf(f, "{\"exe\":");
	json_put_string(f, r->label);
	fprintf(f,
	        ",\"sched\":\"%s\",\"ran\":\"%s\",\"items\":%zu,\"granule\":%zu,\"steps\":%u,"
	        "\"threads\":%u,\"cpu_cores\":%u,\"gpu\":%s,\"gpu_standin\":%s,"
	        "\"time_ms\":%.6f,\"setup_ms\":%.6f,\"build_ms\":%.6f,\"energy\":{",
	        sched_name(r->asked), sched_name(r->ran), r->items, r->granule, r->steps,
	        r->threads, r->ncpu, r->gpu ? "true" : "false", r->standin ? "true" : "false",
	        r->time_ms, r->setup_ms, r->build_ms);
	json_energy(f, "gpu", r->energy.gpu_ok, r->energy.gpu_j, r->energy.gpu_note);
	fputc(',', f);
	json_energy(f, "cpu", r->energy.cpu_ok, r->energy.cpu_j, r->energy.cpu_note);
	fprintf(f, "},\"devices\":[");
	for (unsigned i = 0; i < r->ndev; i++) {
		const struct part_devstat *d = &r->dev[i];

		fprintf(f, "%s{\"label\":\"%s\",\"name\":", i ? "," : "", d->label);
		json_put_string(f, d->name);
		fprintf(f,
		        ",\"gpu\":%s,\"compute_units\":%u,\"chunks\":%zu,\"items\":%zu,"
		        "\"share\":%.6f,\"busy_ms\":%.6f,\"copy_ms\":%.6f,\"last_chunk\":%zu,"
		        "\"in_bytes\":%zu}",
		        d->gpu ? "true" : "false", d->compute_units, d->chunks, d->items,
		        share_of(r, d), d->busy_ms, d->copy_ms, d->last_chunk, d->in_bytes);
	}
	fprintf(f, "]");
	if (r->fitted)
		fprintf(f, ",\"fit\":{\"a\":%.9g,\"b\":%.9g,\"gpu_chunk\":%.9g}", r->fit_a,
		        r->fit_b, r->gpu_chunk);
	else
		fprintf(f, ",\"fit\":null");
	if (r->ngpu > 1)
		json_fits(f, r);
	if (r->nranks) {
		fprintf(f, ",\"ranks\":[");
		for (unsigned k = 0; k < r->nranks; k++)
			fprintf(f, "%s{\"rows\":%zu,\"ms\":%.6f}", k ? "," : "", r->rank_rows[k],
			        r->rank_ms[k]);
		fputc(']', f);
	}
	if (r->core_cost)
		fprintf(f, ",\"core_cost\":{\"fixed_ms\":%.6f,\"min_chunk\":%.0f}",
		        r->core_fixed_ms, r->core_min_chunk);
	else
		fprintf(f, ",\"core_cost\":null");
	fprintf(f, ",\"gpu_fraction\":%.9g,\"relative_speed\":%.9g", r->gpu_fraction,
	        r->relative_speed);
	fprintf(f, ",\"gpu_share\":%.3f,\"profile_ms\":", r->gpu_share);
	if (r->profiled) {
		fputc('[', f);
		for (int p = 0; p < PART_PROFILE_N; p++)
			fprintf(f, "%s%.6f", p ? "," : "", r->profile_ms[p]);
		fputc(']', f);
	} else {
		fprintf(f, "null");
	}
	fprintf(f, "}\n");
	fflush(f);
}

static int write_trace(FILE *f, const char *name, void *arg, struct cs_err *e)
{
	const struct part_result *r = arg;

	fprintf(f, "step,device,offset,size,start_ms,end_ms,throughput,phase\n");
	for (size_t i = 0; i < r->ntrace; i++) {
		const struct part_trace *t = &r->trace[i];
		double ms = t->end_ms - t->start_ms;

		fprintf(f, "%u,%s,%zu,%zu,%.6f,%.6f,%.6g,%s\n", t->step, r->dev[t->dev].label,
		        t->offset, t->size, t->start_ms, t->end_ms,
		        (double)t->size / (ms > 1e-6 ? ms : 1e-6), sched_phase_name(t->phase));
	}
	if (ferror(f))
		return err_errno(e, "%s", name);
	return 0;
}

int part_write_trace(const char *path, const struct part_result *r, struct cs_err *e)
{
	return atomic_write(path, write_trace, (void *)r, e);
}
