/* The pipeline engine's report, as text and as JSON (engines/pipeline/pipeline.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engines/pipeline/pipeconf.h"
#include "engines/pipeline/pipefit.h"
#include "engines/pipeline/pipeline.h"
#include "engines/pipeline/pipemon.h"
#include "util/json.h"

static const char *cname(const struct pipe_result *r, const struct pm_config *c, char *buf)
{
	return pm_config_name(&r->sh, c, buf, PM_NAME_MAX);
}

/* (predicted - measured) / measured, in percent. */
static double error_pct(double pred, double meas)
{
	return meas > 0 ? (pred - meas) / meas * 100.0 : NAN;
}

static void print_machine(FILE *f, const struct pipe_result *r)
{
	fprintf(f, "pipeline %s: %zu item%s, %u stage%s, %u CPU core%s, ", r->name, r->items,
	        r->items == 1 ? "" : "s", r->sh.s, r->sh.s == 1 ? "" : "s", r->sh.nc,
	        r->sh.nc == 1 ? "" : "s");
	if (r->standin)
		fprintf(f, "a CPU core standing in for the GPU");
	else if (r->sh.gpu)
		fprintf(f, "GPU %s", r->gpu_name);
	else
		fprintf(f, "no GPU");
	fprintf(f, "; criterion %s\n", pm_criterion_name(r->crit));
}

/* The contention line the model takes the CG times from (pipefit.h), where it has one. */
static void print_cgfit(FILE *f, const struct pm_meas *m, const char *const *names)
{
	struct pm_cgfit fit;

	pm_cgfit(m, &fit);
	if (!fit.ok)
		return;
	fprintf(f, "\n  the model's contention line, ms per stage beside n threads:");
	for (unsigned k = 0; k < m->sh.s; k++)
		fprintf(f, "%s %s %.3f %c %.4f n", k ? "," : "", names[k], fit.a[k] * 1e3,
		        fit.b[k] < 0 ? '-' : '+', fabs(fit.b[k]) * 1e3);
}

/* The experiment beside the GPU as the model takes it (pipemodel.h). */
static void print_beside_ratio(FILE *f, const struct pm_meas *m)
{
	double used, ratio = pm_beside_ratio(m, &used);

	if (ratio > 0)
		fprintf(f,
		        "\n  CG beside the GPU's over the homogeneous, the item: %.3f; the model "
		        "slows the coupled CPU path by %.3f",
		        ratio, used);
}

static void print_measurements(FILE *f, const struct pipe_result *r, const struct pm_meas *m,
                               const char *const *names)
{
	fprintf(f, "  %-16s %10s %10s %10s %10s %10s %10s %10s %10s %10s\n", "stage", "CG ms",
	        "MG ms", "GPU ms", "h2d ms", "d2h ms", "CG in", "CG out", "MG in", "MG out");
	for (unsigned k = 0; k < m->sh.s; k++) {
		const struct pm_stage *st = &m->st[k];

		fprintf(f, "  %-16.16s %10.3f %10.3f", names[k], st->t_cg * 1e3, st->t_mg * 1e3);
		if ((m->sh.gpu_ok >> k) & 1u)
			fprintf(f, " %10.3f %10.3f %10.3f", st->t_g * 1e3, st->h2d_g * 1e3,
			        st->d2h_g * 1e3);
		else
			fprintf(f, " %10s %10s %10s", "-", "-", "-");
		fprintf(f, " %10.3f %10.3f %10.3f %10.3f\n", st->h2d_cg * 1e3, st->d2h_cg * 1e3,
		        st->h2d_mg * 1e3, st->d2h_mg * 1e3);
	}
	fprintf(f, "  CG, n threads at once, ms per item:");
	for (unsigned n = 1; n <= pm_max_threads(&m->sh); n++)
		fprintf(f, "  %u: %.3f", n, m->t_cgn[n] * 1e3);
	print_cgfit(f, m, names);
	if (m->sh.nc >= 3 && m->t_cgn[2] > 0 && m->t_cgn[3] > 0)
		fprintf(f, "\n  one thread's item, the median of 1, 2 and 3 threads': %.3f ms",
		        pm_one_thread_item(m) * 1e3);
	fprintf(f, "\n  serial stages, ms per item: input %.3f, output %.3f; TDP %s\n",
	        m->t_in * 1e3, m->t_out * 1e3, r->tdp_note);
	if (m->sh.gpu)
		fprintf(f,
		        "  the GPU's thread keeps %.2f of a core busy while its item is on the "
		        "GPU\n",
		        m->gpu_host);
	if (m->beside_n) {
		fprintf(f, "  CG, %u thread%s beside the GPU's, ms per stage:", m->beside_n,
		        m->beside_n == 1 ? "" : "s");
		for (unsigned k = 0; k < m->sh.s; k++)
			fprintf(f, "%s %s %.3f", k ? "," : "", names[k],
			        m->t_beside_stage[k] * 1e3);
		if (m->t_gpu_fed > 0)
			fprintf(f, "; the GPU's feeder, ms per item: %.3f", m->t_gpu_fed * 1e3);
		if (m->t_gpu_fed_median > 0 && m->t_gpu_alone > 0)
			fprintf(f, " (median %.3f; alone before them: %.3f)",
			        m->t_gpu_fed_median * 1e3, m->t_gpu_alone * 1e3);
		print_beside_ratio(f, m);
		fputc('\n', f);
	}
}

static void print_predictions(FILE *f, const struct pipe_result *r, const struct pipe_training *t)
{
	char name[PM_NAME_MAX];

	fprintf(f, "  %-22s %14s %14s\n", "configuration", "items/s", "J/item");
	for (size_t i = 0; i < t->ncfg; i++) {
		fprintf(f, "  %-22s %14.3f ", cname(r, &t->cfg[i], name), t->pred[i].lambda);
		if (t->pred[i].energy >= 0)
			fprintf(f, "%14.6f", t->pred[i].energy);
		else
			fprintf(f, "%14s", "-");
		fprintf(f, "%s\n", i == t->chosen ? "  <- chosen" : "");
	}
	fprintf(f, "  baseline: %s, GPU stages wait for the GPU\n", cname(r, &t->baseline, name));
}

static void print_training(FILE *f, const struct pipe_result *r, size_t i, bool explain)
{
	const struct pipe_training *t = &r->tr[i];
	char name[PM_NAME_MAX];

	fprintf(f, "training %zu: items %zu-%zu (%zu items, %.0f ms)", i + 1, t->first,
	        t->first + t->items - (t->items ? 1 : 0), t->items, t->ms);
	if (!t->complete) {
		fprintf(f, ": the stream ended before the last experiment\n");
		return;
	}
	fprintf(f, ": chose %s, %.3f items/s predicted\n", cname(r, &t->cfg[t->chosen], name),
	        t->pred[t->chosen].lambda);
	if (!explain)
		return;
	print_measurements(f, r, &t->m, r->stage_names);
	print_predictions(f, r, t);
}

static void print_run(FILE *f, const struct pipe_result *r, const struct pipe_run *run)
{
	char name[PM_NAME_MAX];

	fprintf(f, "%s %s: items %zu-%zu (%zu items, %.0f ms): %.3f items/s",
	        run->check ? (run->strict ? "  check baseline" : "  check")
	                   : (run->strict ? "baseline" : "running"),
	        cname(r, &run->c, name), run->first, run->first + run->items - (run->items ? 1 : 0),
	        run->items, run->ms, run->lambda);
	if (run->predicted)
		fprintf(f, " (predicted %.3f, %+.1f %%)", run->pred.lambda,
		        error_pct(run->pred.lambda, run->lambda));
	if (run->energy >= 0)
		fprintf(f, ", %.6f J/item", run->energy);
	fprintf(f, "%s\n", run->retrain ? "; the throughput changed: training again" : "");
}

/* A check's verdict, after its measurements. */
static void print_check(FILE *f, const struct pipe_result *r, const struct pipe_check *ck)
{
	char a[PM_NAME_MAX], b[PM_NAME_MAX];

	fprintf(f,
	        "check: %s measured twice: %.3f and %.3f items/s (noise %.1f %%), predicted %.3f: ",
	        cname(r, &r->tr[ck->training].cfg[r->tr[ck->training].chosen], a), ck->meas[0],
	        ck->meas[1], ck->noise * 100, ck->pred);
	if (!ck->disagrees)
		fprintf(f, "within the noise; ");
	else
		fprintf(f, "beyond the noise: measured the next %zu and the baseline; ",
		        ck->nrun > 3 ? ck->nrun - 3 : 0);
	if (ck->switched)
		fprintf(f, "switched to %s%s", ck->kept_strict ? "the baseline " : "",
		        cname(r, &ck->kept, b));
	else
		fprintf(f, "kept it");
	fprintf(f, "; cost %zu items on other configurations (%zu items checked)\n", ck->cost,
	        ck->items);
}

static void print_runs(FILE *f, const struct pipe_result *r, size_t ri)
{
	print_run(f, r, &r->runs[ri]);
	for (size_t i = 0; i < r->nchecks; i++)
		if (r->checks[i].nrun && r->checks[i].run0 + r->checks[i].nrun == ri + 1)
			print_check(f, r, &r->checks[i]);
}

static size_t best_measured(const struct pipe_result *r)
{
	size_t best = 0;

	for (size_t i = 1; i + 1 < r->nval; i++)
		if (r->val[i].lambda > r->val[best].lambda)
			best = i;
	return best;
}

/* --validate: the chosen configuration within the measured noise of the best. */
static bool chosen_is_best(const struct pipe_result *r)
{
	const struct pipe_run *ch = &r->val[r->tr[0].chosen];

	return ch->lambda >= r->val[best_measured(r)].lambda * (1 - r->val_noise);
}

/* --validate: the CPU alone at the validation's start and at its end, and how far apart. */
static void print_drift(FILE *f, const struct pipe_result *r)
{
	char a[PM_NAME_MAX];

	if (r->nval_drift == 0)
		return;
	fputs("drift: the CPU alone measured first and again last:", f);
	for (unsigned i = 0; i < r->nval_drift; i++) {
		const struct pipe_run *s = &r->val[r->val_drift_of[i]], *d = &r->val_drift[i];

		fprintf(f, "%s %s %.3f and %.3f items/s (%+.1f %%)", i ? "," : "",
		        cname(r, &s->c, a), s->lambda, d->lambda, error_pct(d->lambda, s->lambda));
	}
	fputc('\n', f);
}

static void print_validation(FILE *f, const struct pipe_result *r)
{
	const struct pipe_training *t = &r->tr[0];
	const struct pipe_run *base = &r->val[r->nval - 1], *ch = &r->val[t->chosen];
	size_t best = best_measured(r);
	char a[PM_NAME_MAX], b[PM_NAME_MAX], c[PM_NAME_MAX];

	fprintf(f, "validation: every configuration over items 0-%zu", r->val_items - 1);
	if (r->val_secs > 0)
		fprintf(f, ", each taking items for %g s at most", r->val_secs);
	fputc('\n', f);
	fprintf(f, "  %-22s %12s %12s %8s %12s %12s %8s\n", "configuration", "pred item/s",
	        "meas item/s", "error", "pred J/item", "meas J/item", "error");
	for (size_t i = 0; i < r->nval; i++) {
		const struct pipe_run *v = &r->val[i];

		fprintf(f, "  %-22s", v->strict ? "baseline" : cname(r, &v->c, a));
		if (v->predicted)
			fprintf(f, " %12.3f %12.3f %+7.1f%%", v->pred.lambda, v->lambda,
			        error_pct(v->pred.lambda, v->lambda));
		else
			fprintf(f, " %12s %12.3f %8s", "-", v->lambda, "");
		if (v->predicted && v->pred.energy >= 0 && v->energy >= 0)
			fprintf(f, " %12.6f %12.6f %+7.1f%%", v->pred.energy, v->energy,
			        error_pct(v->pred.energy, v->energy));
		fprintf(f, "%s\n", v->strict ? cname(r, &v->c, a) : "");
	}
	fprintf(f,
	        "noise: %s measured again: %.3f items/s, %.1f %% from the first; within it of the "
	        "best, it counts as the best: %s\n",
	        cname(r, &ch->c, a), r->val_again.lambda, r->val_noise * 100,
	        chosen_is_best(r) ? "yes" : "no");
	print_drift(f, r);
	fprintf(f, "the running phase's check would keep %s%s: %.3f items/s\n",
	        r->val[r->val_kept].strict ? "the baseline " : "",
	        cname(r, &r->val[r->val_kept].c, a), r->val[r->val_kept].lambda);
	fprintf(f,
	        "chosen %s: %.3f items/s; measured best %s: %.3f (chosen/best %.3f); baseline %s: "
	        "%.3f (chosen/baseline %.3f)\n",
	        cname(r, &ch->c, a), ch->lambda, cname(r, &r->val[best].c, b), r->val[best].lambda,
	        ch->lambda / r->val[best].lambda, cname(r, &base->c, c), base->lambda,
	        ch->lambda / base->lambda);
}

/* The corrections the predictions took from earlier runs, and a note on the file. */
static void print_knowledge(FILE *f, const struct pipe_result *r, bool explain)
{
	bool any = false;

	for (unsigned i = 0; i < PCHECK_FAMILIES; i++)
		any |= r->factor[i] != 1;
	if (explain && any) {
		fprintf(f, "corrections from earlier runs (measured / predicted):");
		for (unsigned i = 0; i < PCHECK_FAMILIES; i++)
			if (r->factor[i] != 1)
				fprintf(f, " %s %.3f", pcheck_family_name(i), r->factor[i]);
		fputc('\n', f);
	}
	if (r->know_note[0])
		fprintf(f, "knowledge: %s\n", r->know_note);
}

void pipe_print_text(FILE *f, const struct pipe_result *r, bool explain)
{
	size_t ri = 0;

	print_machine(f, r);
	if (explain || r->nval)
		fprintf(f, "energy: CPU: %s; GPU: %s\n", r->cpu_note, r->gpu_note);
	/* Trainings and runs alternate in stream order. */
	for (size_t i = 0; i < r->ntr; i++) {
		print_training(f, r, i, explain);
		for (; ri < r->nruns && (i + 1 == r->ntr || r->runs[ri].first < r->tr[i + 1].first);
		     ri++)
			print_runs(f, r, ri);
	}
	for (; ri < r->nruns; ri++)
		print_runs(f, r, ri);
	if (r->nval)
		print_validation(f, r);
	print_knowledge(f, r, explain);
	fprintf(f, "total: %zu items in %.0f ms (%.3f items/s), setup %.0f ms\n", r->items,
	        r->time_ms, r->time_ms > 0 ? r->items / (r->time_ms / 1000.0) : 0, r->setup_ms);
}

/* ---- JSON ---- */

/* A number, or null where there is none (JSON has no NaN or infinity). */
static void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", v);
	else
		fputs("null", f);
}

static void json_energy(FILE *f, double v)
{
	json_num(f, v >= 0 ? v : NAN);
}

/* The buffers of set, as a list of their numbers. */
static void json_buffers(FILE *f, uint64_t set, unsigned nb)
{
	bool first = true;

	fputc('[', f);
	for (unsigned b = 0; b < nb; b++)
		if ((set >> b) & 1u) {
			fprintf(f, "%s%u", first ? "" : ",", b);
			first = false;
		}
	fputc(']', f);
}

/* Which stage reads and writes which buffer, and their sizes (pipemove.h). */
static void json_flow(FILE *f, const struct pm_meas *m)
{
	const struct pm_flow *fl = &m->flow;

	fputs(",\"flow\":{\"bytes\":[", f);
	for (unsigned b = 0; b < fl->nb; b++)
		fprintf(f, "%s%.17g", b ? "," : "", fl->bytes[b]);
	fputs("],\"reads\":[", f);
	for (unsigned k = 0; k < m->sh.s; k++) {
		fputs(k ? "," : "", f);
		json_buffers(f, fl->rd[k], fl->nb);
	}
	fputs("],\"writes\":[", f);
	for (unsigned k = 0; k < m->sh.s; k++) {
		fputs(k ? "," : "", f);
		json_buffers(f, fl->wr[k], fl->nb);
	}
	fputs("],\"sink\":", f);
	json_buffers(f, fl->sink, fl->nb);
	fputc('}', f);
}

static void json_meas(FILE *f, const struct pipe_result *r, const struct pm_meas *m)
{
	fputs("{\"stages\":[", f);
	for (unsigned k = 0; k < m->sh.s; k++) {
		const struct pm_stage *st = &m->st[k];
		bool g = (m->sh.gpu_ok >> k) & 1u;

		fprintf(f, "%s{\"name\":", k ? "," : "");
		json_put_string(f, r->stage_names[k]);
		fprintf(f, ",\"cg_ms\":%.9g,\"mg_ms\":%.9g,\"gpu_ms\":", st->t_cg * 1e3,
		        st->t_mg * 1e3);
		json_num(f, g ? st->t_g * 1e3 : NAN);
		fputs(",\"h2d_ms\":", f);
		json_num(f, g ? st->h2d_g * 1e3 : NAN);
		fputs(",\"d2h_ms\":", f);
		json_num(f, g ? st->d2h_g * 1e3 : NAN);
		fprintf(f,
		        ",\"cg_in_ms\":%.9g,\"cg_out_ms\":%.9g,\"mg_in_ms\":%.9g,\"mg_out_ms\":%."
		        "9g",
		        st->h2d_cg * 1e3, st->d2h_cg * 1e3, st->h2d_mg * 1e3, st->d2h_mg * 1e3);
		fprintf(f, ",\"cg_j\":");
		json_energy(f, m->energy ? st->e_cg.c + st->e_cg.g + st->e_cg.u : -1);
		fprintf(f, ",\"mg_j\":");
		json_energy(f, m->energy ? st->e_mg.c + st->e_mg.g + st->e_mg.u : -1);
		fprintf(f, ",\"gpu_j\":");
		json_energy(f, m->energy && g ? st->e_g.c + st->e_g.g + st->e_g.u : -1);
		fputc('}', f);
	}
	fputs("],\"cg_threads_ms\":[", f);
	for (unsigned n = 1; n <= pm_max_threads(&m->sh); n++)
		fprintf(f, "%s%.9g", n > 1 ? "," : "", m->t_cgn[n] * 1e3);
	fputs("],\"cg_threads_stage_ms\":[", f);
	for (unsigned n = 1; n <= pm_max_threads(&m->sh); n++) {
		fputs(n > 1 ? ",[" : "[", f);
		for (unsigned k = 0; k < m->sh.s; k++)
			fprintf(f, "%s%.9g", k ? "," : "", m->t_cgn_stage[n][k] * 1e3);
		fputc(']', f);
	}
	fprintf(f, "],\"input_ms\":%.9g,\"output_ms\":%.9g,\"collect_ms\":%.9g,\"tdp_w\":",
	        m->t_in * 1e3, m->t_out * 1e3, m->t_collect * 1e3);
	json_num(f, m->tdp > 0 ? m->tdp : NAN);
	fputs(",\"gpu_host\":", f);
	json_num(f, m->sh.gpu ? m->gpu_host : NAN);
	fprintf(f, ",\"beside_threads\":%u,\"beside_stage_ms\":[", m->beside_n);
	for (unsigned k = 0; m->beside_n && k < m->sh.s; k++)
		fprintf(f, "%s%.9g", k ? "," : "", m->t_beside_stage[k] * 1e3);
	fputs("],\"beside_gpu_item_ms\":", f);
	json_num(f, m->t_gpu_fed > 0 ? m->t_gpu_fed * 1e3 : NAN);
	fputs(",\"beside_gpu_median_ms\":", f);
	json_num(f, m->t_gpu_fed_median > 0 ? m->t_gpu_fed_median * 1e3 : NAN);
	fputs(",\"beside_gpu_alone_ms\":", f);
	json_num(f, m->t_gpu_alone > 0 ? m->t_gpu_alone * 1e3 : NAN);
	json_flow(f, m);
	fputc('}', f);
}

static void json_training(FILE *f, const struct pipe_result *r, const struct pipe_training *t)
{
	char name[PM_NAME_MAX];

	fprintf(f, "{\"first\":%zu,\"items\":%zu,\"ms\":%.9g,\"complete\":%s", t->first, t->items,
	        t->ms, t->complete ? "true" : "false");
	if (t->complete) {
		fputs(",\"measurements\":", f);
		json_meas(f, r, &t->m);
		fputs(",\"configurations\":[", f);
		for (size_t i = 0; i < t->ncfg; i++) {
			fprintf(f, "%s{\"config\":", i ? "," : "");
			json_put_string(f, cname(r, &t->cfg[i], name));
			fputs(",\"throughput\":", f);
			json_num(f, t->pred[i].lambda);
			fputs(",\"energy_j\":", f);
			json_energy(f, t->pred[i].energy);
			fputc('}', f);
		}
		fputs("],\"chosen\":", f);
		json_put_string(f, cname(r, &t->cfg[t->chosen], name));
		fputs(",\"baseline\":", f);
		json_put_string(f, cname(r, &t->baseline, name));
	}
	fputc('}', f);
}

/* A path's items and their mean times: in pstage_item and per stage (null without items). */
static void json_path(FILE *f, const char *name, const struct prun_path *p, size_t nstages)
{
	double n = (double)p->items;

	fprintf(f, ",\"%s_items\":%zu,\"%s_item_ms\":", name, p->items, name);
	json_num(f, p->items ? p->wall / n * 1e3 : NAN);
	fprintf(f, ",\"%s_stage_ms\":[", name);
	for (size_t k = 0; k < nstages; k++) {
		if (k)
			fputc(',', f);
		json_num(f, p->items ? p->stage[k] / n * 1e3 : NAN);
	}
	fputc(']', f);
}

static void json_run(FILE *f, const struct pipe_result *r, const struct pipe_run *v)
{
	char name[PM_NAME_MAX];

	fputs("{\"config\":", f);
	json_put_string(f, cname(r, &v->c, name));
	fprintf(f, ",\"strict\":%s,\"first\":%zu,\"items\":%zu,\"ms\":%.9g,\"throughput\":",
	        v->strict ? "true" : "false", v->first, v->items, v->ms);
	json_num(f, v->lambda);
	fputs(",\"predicted\":", f);
	json_num(f, v->predicted ? v->pred.lambda : NAN);
	fputs(",\"error\":", f);
	json_num(f, v->predicted ? error_pct(v->pred.lambda, v->lambda) / 100.0 : NAN);
	fputs(",\"energy_j\":", f);
	json_energy(f, v->energy);
	fputs(",\"predicted_j\":", f);
	json_energy(f, v->predicted ? v->pred.energy : -1);
	fprintf(f, ",\"check\":%s", v->check ? "true" : "false");
	json_path(f, "gpu", &v->gpu, r->sh.s);
	json_path(f, "cpu", &v->cpu, r->sh.s);
	fprintf(f, ",\"retrain\":%s}", v->retrain ? "true" : "false");
}

/* --validate: the CPU alone at the validation's start and at its end (print_drift). */
static void json_drift(FILE *f, const struct pipe_result *r)
{
	char name[PM_NAME_MAX];

	fputs(",\"drift\":[", f);
	for (unsigned i = 0; i < r->nval_drift; i++) {
		fputs(i ? ",{\"config\":" : "{\"config\":", f);
		json_put_string(f, cname(r, &r->val_drift[i].c, name));
		fputs(",\"start\":", f);
		json_num(f, r->val[r->val_drift_of[i]].lambda);
		fputs(",\"end\":", f);
		json_num(f, r->val_drift[i].lambda);
		fputc('}', f);
	}
	fputc(']', f);
}

static void json_validation(FILE *f, const struct pipe_result *r)
{
	const struct pipe_run *base = &r->val[r->nval - 1], *ch = &r->val[r->tr[0].chosen];
	size_t best = best_measured(r);
	char name[PM_NAME_MAX];

	fprintf(f, ",\"validation\":{\"items\":%zu,\"seconds\":", r->val_items);
	json_num(f, r->val_secs > 0 ? r->val_secs : NAN);
	fputs(",\"runs\":[", f);
	for (size_t i = 0; i < r->nval; i++) {
		fputs(i ? "," : "", f);
		json_run(f, r, &r->val[i]);
	}
	fputs("],\"chosen\":", f);
	json_put_string(f, cname(r, &ch->c, name));
	fputs(",\"best\":", f);
	json_put_string(f, cname(r, &r->val[best].c, name));
	fputs(",\"baseline\":", f);
	json_put_string(f, cname(r, &base->c, name));
	fputs(",\"chosen_over_best\":", f);
	json_num(f, ch->lambda / r->val[best].lambda);
	fputs(",\"chosen_over_baseline\":", f);
	json_num(f, ch->lambda / base->lambda);
	fputs(",\"chosen_again\":", f);
	json_num(f, r->val_again.lambda);
	fputs(",\"noise\":", f);
	json_num(f, r->val_noise);
	fprintf(f, ",\"chosen_is_best\":%s,\"checked\":", chosen_is_best(r) ? "true" : "false");
	json_put_string(f, cname(r, &r->val[r->val_kept].c, name));
	fprintf(f, ",\"checked_baseline\":%s,\"checked_over_best\":",
	        r->val[r->val_kept].strict ? "true" : "false");
	json_num(f, r->val[r->val_kept].lambda / r->val[best].lambda);
	fputs(",\"checked_over_baseline\":", f);
	json_num(f, r->val[r->val_kept].lambda / base->lambda);
	json_drift(f, r);
	fputc('}', f);
}

/* The machine, the options, the energy counters. */
static void json_head(FILE *f, const struct pipe_result *r)
{
	fputs("{\"pipeline\":", f);
	json_put_string(f, r->name);
	fprintf(f, ",\"items\":%zu,\"stages\":[", r->items);
	for (unsigned k = 0; k < r->sh.s; k++) {
		fputs(k ? "," : "", f);
		json_put_string(f, r->stage_names[k]);
	}
	fprintf(f, "],\"cores\":%u,\"gpu\":", r->sh.nc);
	if (r->sh.gpu)
		json_put_string(f, r->standin ? "cpu stand-in" : r->gpu_name);
	else
		fputs("null", f);
	fputs(",\"cpu\":", f);
	json_put_string(f, r->cpu_name);
	fprintf(f, ",\"criterion\":\"%s\",\"overhead\":%.9g,\"tokens\":%zu,\"adaptive\":%s",
	        pm_criterion_name(r->crit), r->overhead, r->tokens, r->adaptive ? "true" : "false");
	fprintf(f, ",\"energy\":{\"available\":%s,\"cpu\":", r->energy_ok ? "true" : "false");
	json_put_string(f, r->cpu_note);
	fputs(",\"gpu\":", f);
	json_put_string(f, r->gpu_note);
	fputs(",\"tdp\":", f);
	json_put_string(f, r->tdp_note);
	fputc('}', f);
}

static void json_check(FILE *f, const struct pipe_result *r, const struct pipe_check *ck)
{
	const struct pipe_training *t = &r->tr[ck->training];
	char name[PM_NAME_MAX];

	fprintf(f, "{\"training\":%zu,\"first\":%zu,\"items\":%zu,\"cost_items\":%zu,",
	        ck->training + 1, ck->first, ck->items, ck->cost);
	fputs("\"chosen\":", f);
	json_put_string(f, cname(r, &t->cfg[t->chosen], name));
	fputs(",\"measured\":[", f);
	json_num(f, ck->meas[0]);
	fputc(',', f);
	json_num(f, ck->meas[1]);
	fputs("],\"noise\":", f);
	json_num(f, ck->noise);
	fputs(",\"predicted\":", f);
	json_num(f, ck->pred);
	fprintf(f, ",\"disagrees\":%s,\"kept\":", ck->disagrees ? "true" : "false");
	json_put_string(f, cname(r, &ck->kept, name));
	fprintf(f, ",\"kept_baseline\":%s,\"switched\":%s}", ck->kept_strict ? "true" : "false",
	        ck->switched ? "true" : "false");
}

static void json_knowledge(FILE *f, const struct pipe_result *r)
{
	fputs(",\"corrections\":{", f);
	for (unsigned i = 0; i < PCHECK_FAMILIES; i++)
		fprintf(f, "%s\"%s\":%.9g", i ? "," : "", pcheck_family_name(i), r->factor[i]);
	fputs("},\"knowledge_note\":", f);
	json_put_string(f, r->know_note);
	fputs(",\"checks\":[", f);
	for (size_t i = 0; i < r->nchecks; i++) {
		fputs(i ? "," : "", f);
		json_check(f, r, &r->checks[i]);
	}
	fputc(']', f);
}

void pipe_print_json(FILE *f, const struct pipe_result *r)
{
	json_head(f, r);
	fputs(",\"trainings\":[", f);
	for (size_t i = 0; i < r->ntr; i++) {
		fputs(i ? "," : "", f);
		json_training(f, r, &r->tr[i]);
	}
	fputs("],\"runs\":[", f);
	for (size_t i = 0; i < r->nruns; i++) {
		fputs(i ? "," : "", f);
		json_run(f, r, &r->runs[i]);
	}
	fputc(']', f);
	json_knowledge(f, r);
	if (r->nval)
		json_validation(f, r);
	fprintf(f,
	        ",\"time_ms\":%.9g,\"setup_ms\":%.9g,\"build_ms\":%.9g,\"throughput\":", r->time_ms,
	        r->setup_ms, r->build_ms);
	json_num(f, r->time_ms > 0 ? r->items / (r->time_ms / 1000.0) : NAN);
	fputs("}\n", f);
}
