/* The per-job device choice (runner/devplace.h, docs/auto.md): the device list, the
 * candidates and the choice; the arithmetic is devpick.c, the learning devlearn.c. */
#include "runner/devplace.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "engines/energy.h"
#include "exec/executor.h"
#include "exec/workers.h"
#include "runner/devplace-int.h"
#include "runner/devstate.h"
#include "runtime/cache.h"
#include "runtime/session.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/strbuf.h"

/* In a child (the shell must not start OpenCL): the device list, raw, on standard output. */
static int devices_child(void *arg, struct job_result *res)
{
	struct rt_devinfo *devs;
	size_t n;
	struct cs_err e;

	(void)arg;
	if (rt_devices_list(&devs, &n, &e)) {
		memcpy(res->msg, e.msg, sizeof(res->msg));
		return 1;
	}
	if (n > MAX_DEVS)
		n = MAX_DEVS;
	if (write(STDOUT_FILENO, &n, sizeof(n)) != (ssize_t)sizeof(n) ||
	    write(STDOUT_FILENO, devs, n * sizeof(*devs)) != (ssize_t)(n * sizeof(*devs)))
		return 1;
	free(devs);
	return 0;
}

static int devices_from_child(struct run_ctx *c, struct placer *p, struct cs_err *e)
{
	struct exec_env env = run_exec_env(c);
	struct child_io io = {-1, -1, -1};
	int fd[2], rc;
	size_t n = 0;

	if (pipe(fd) != 0)
		return err_errno(e, "cannot create a pipe");
	io.out_fd = fd[1];
	/* At most MAX_DEVS entries: less than a pipe holds, so the child never waits for us. */
	rc = exec_child_foreground(devices_child, NULL, &io, &env, e);
	close(fd[1]);
	if (rc == 0 && (read(fd[0], &n, sizeof(n)) != (ssize_t)sizeof(n) || n > MAX_DEVS))
		rc = err_set(e, "the device list could not be read");
	if (rc == 0) {
		p->devs = xcalloc(n ? n : 1, sizeof(*p->devs));
		if (read(fd[0], p->devs, n * sizeof(*p->devs)) != (ssize_t)(n * sizeof(*p->devs)))
			rc = err_set(e, "the device list could not be read");
		p->ndev = n;
	}
	close(fd[0]);
	return rc ? -1 : 0;
}

/* From a worker of the user's carsh server, which has OpenCL open already: a discovery child
 * starts it from cold (0.3 s on NVIDIA's platform) for every carsh of a script. The same
 * list (rt_devices_list's, in this environment); any failure leaves the child to answer. */
static int devices_from_server(struct run_ctx *c, struct placer *p)
{
	struct cs_err e;

	if (!c->s->workers || workers_devices(c->s->workers, &p->devs, &p->ndev, &e) != 0)
		return -1;
	if (p->ndev <= MAX_DEVS)
		return 0;
	free(p->devs);
	p->devs = NULL;
	p->ndev = 0;
	return -1;
}

static int devices_here(struct run_ctx *c, struct placer *p, struct cs_err *e)
{
	const struct rt_devinfo *devs;
	size_t n;

	if (rt_session_devices(texec_session(session_texec(c->s)), &devs, &n, e))
		return -1;
	p->ndev = n > MAX_DEVS ? MAX_DEVS : n;
	p->devs = xcalloc(p->ndev ? p->ndev : 1, sizeof(*p->devs));
	memcpy(p->devs, devs, p->ndev * sizeof(*devs));
	return 0;
}

/* "gpu" where it is the one of its type, else "gpu1" (its index). */
static void name_devices(struct placer *p)
{
	for (size_t i = 0; i < p->ndev; i++) {
		const char *t = rt_device_type_name(p->devs[i].type);
		int same = 0;

		for (size_t j = 0; j < p->ndev; j++)
			same += strcmp(rt_device_type_name(p->devs[j].type), t) == 0;
		if (same > 1)
			snprintf(p->names[i], sizeof(p->names[i]), "%s%zu", t, i);
		else
			snprintf(p->names[i], sizeof(p->names[i]), "%s", t);
	}
}

/* The counters, opened when first wanted: a carsh that runs one job under auto:time with its
 * energy known needs none, and NVML's start (tens of ms) would otherwise be most of what auto
 * costs a served `carsh run` (bench/auto-list.sh). */
static void open_meter(struct placer *p)
{
	if (p->meter_tried)
		return;
	p->meter_tried = true;
	const struct rt_devinfo *gpu = rt_device_first(p->devs, p->ndev, CL_DEVICE_TYPE_GPU);
	struct energy_reading r;

	p->meter = energy_open(gpu ? gpu->name : NULL);
	energy_start(p->meter);
	energy_stop(p->meter, &r);
	p->gpu_counter = gpu && r.gpu_ok;
	p->cpu_counter = r.cpu_ok;
}

static struct placer *placer_get(struct run_ctx *c, struct cs_err *e)
{
	static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
	struct placer *p;
	int rc = 0;

	pthread_mutex_lock(&once);
	p = c->s->placer;
	if (!p) {
		p = xcalloc(1, sizeof(*p));
		pthread_mutex_init(&p->lock, NULL);
		if (c->s->thread_mode)
			rc = devices_here(c, p, e);
		else if (devices_from_server(c, p) != 0)
			rc = devices_from_child(c, p, e);
		if (rc == 0) {
			name_devices(p);
			p->path = cache_file(PROFSTORE_FILE);
			c->s->placer = p;
		} else {
			placer_free(p);
			p = NULL;
		}
	}
	pthread_mutex_unlock(&once);
	return p;
}

/* ---- which devices can run the plan ---- */

static bool needs_fp64(const struct kernel_plan *kp)
{
	for (size_t i = 0; i < kp->nargs; i++)
		if (kp->args[i].type.scalar == SC_DOUBLE)
			return true;
	return kp->source && strstr(kp->source, "double");
}

/* NULL when d can run kp, else why not. */
static const char *cannot_run(const struct kernel_plan *kp, const struct rt_devinfo *d)
{
	unsigned long long total = 0, local = 0;
	size_t group = 1;

	if (needs_fp64(kp) && !d->fp64)
		return "no double precision";
	for (size_t i = 0; i < kp->nargs; i++) {
		const struct kernel_arg *a = &kp->args[i];

		if (a->kind == ARG_LOCAL)
			local += a->bytes;
		else if (arg_is_stream(a->kind) && a->bytes > d->max_alloc)
			return "a stream larger than its largest buffer";
		else if (arg_is_stream(a->kind))
			total += a->bytes;
	}
	for (unsigned k = 0; kp->has_local && k < kp->dims; k++) {
		group *= kp->local[k];
		if (kp->local[k] > d->max_item_sizes[k])
			return "a local size beyond its limit";
	}
	if (total > d->global_mem)
		return "streams larger than its memory";
	if (local > d->local_mem)
		return "more local memory than it has";
	if (group > d->max_work_group)
		return "a work-group larger than its limit";
	return NULL;
}

static cl_device_type type_word(const char *s)
{
	if (s && strcasecmp(s, "cpu") == 0)
		return CL_DEVICE_TYPE_CPU;
	if (s && strcasecmp(s, "gpu") == 0)
		return CL_DEVICE_TYPE_GPU;
	if (s && strcasecmp(s, "accelerator") == 0)
		return CL_DEVICE_TYPE_ACCELERATOR;
	return 0;
}

/* Marks in ok[] the devices the flow-model's RuntimeType allows and that can run the plan;
 * how many, with why not in sb. */
static size_t eligible(const struct placer *p, const struct kernel_plan *kp, bool *ok,
                       struct strbuf *sb, struct cs_err *e)
{
	const char *fm = kp->device_fm;
	cl_device_type t = type_word(fm);
	size_t only = SIZE_MAX, n = 0;

	if (fm && *fm && !t && strcasecmp(fm, "any") != 0 && strncasecmp(fm, "auto", 4) != 0 &&
	    rt_device_pick(p->devs, p->ndev, NULL, NULL, fm, &only, e))
		return 0;
	for (size_t i = 0; i < p->ndev; i++) {
		const char *why = cannot_run(kp, &p->devs[i]);

		if (!why && t && !(p->devs[i].type & t))
			why = "not the flow-model's RuntimeType";
		if (!why && only != SIZE_MAX && i != only)
			why = "not the flow-model's RuntimeType";
		ok[i] = !why;
		n += ok[i];
		if (why)
			sb_addf(sb, "%s%s: %s", sb->len ? "; " : "", p->names[i], why);
	}
	return n;
}

/* ---- the choice ---- */

static size_t work_size(const struct kernel_plan *kp)
{
	size_t items = 1;

	for (unsigned k = 0; k < kp->dims; k++)
		items *= kp->global[k];
	return items * (size_t)(kp->swap_count + 1);
}

/* The history's key of kp: its flow-model's file (absolute where it resolves), kernel. */
static char *model_key(const struct kernel_plan *kp)
{
	char buf[PATH_MAX];

	if (kp->fm_file && realpath(kp->fm_file, buf))
		return xstrdup(buf);
	return xstrdup(kp->fm_file ? kp->fm_file : kp->label);
}

bool placer_has_counter(struct placer *p, size_t i)
{
	open_meter(p);
	if (p->devs[i].type & CL_DEVICE_TYPE_GPU)
		return p->gpu_counter;
	return (p->devs[i].type & CL_DEVICE_TYPE_CPU) && p->cpu_counter;
}

int placer_counter_of(const struct placer *p, size_t i)
{
	if (p->devs[i].type & CL_DEVICE_TYPE_GPU)
		return COUNTER_GPU;
	return p->devs[i].type & CL_DEVICE_TYPE_CPU ? COUNTER_CPU : -1;
}

/* The candidate of device i from the history and the jobs in flight (lock held). */
static void candidate(struct placer *p, const struct profstore *ps, size_t i, const char *model,
                      const char *kernel, size_t size, struct place_cand *c)
{
	const char *keys[] = {model, kernel, p->devs[i].name};
	const struct prof_rec *lo, *hi;
	/* The first job queued there, and the forecasts of the rest summed up. */
	double fc[2] = {0, 0}, at[2] = {0, 0}, now = clock_ms();
	size_t q = 0;

	*c = (struct place_cand){.name = p->names[i], .energy_mj = -1};
	c->known = profstore_near(ps, KIND, keys, size, &lo, &hi);
	if (c->known) {
		c->time_ms = place_forecast(lo, hi, size, V_TIME);
		c->energy_mj = place_forecast(lo, hi, size, V_ENERGY);
	}
	for (struct inflight *j = p->jobs; j; j = j->next) {
		if (j->dev != (int)i)
			continue;
		c->queued++;
		c->exploring |= !c->known && strcmp(j->keys[0], model) == 0 &&
		                strcmp(j->keys[1], kernel) == 0;
		fc[q ? 1 : 0] += j->forecast_ms;
		if (q++ == 0)
			at[0] = j->placed_at;
	}
	c->busy_ms = place_busy_ms(fc, at, q < 2 ? q : 2, p->last_end[i], now);
}

void placer_counters(struct placer *p, double *gpu_j, double *cpu_j)
{
	struct energy_reading r;

	open_meter(p);
	energy_stop(p->meter, &r);
	*gpu_j = r.gpu_ok ? r.gpu_j : -1;
	*cpu_j = r.cpu_ok ? r.cpu_j : -1;
}

/* "auto (from --device/CARSH_DEVICE)" and the selector itself. */
static const char *selector(const struct kernel_plan *kp, const char **origin)
{
	const char *sels[] = {kp->device_exe, kp->device_cli, kp->device_fm};
	const char *origins[] = {"<Device select> of the executable", "--device/CARSH_DEVICE",
	                         "<RuntimeType device> of the flow-model"};

	for (size_t i = 0; i < 3; i++) {
		if (sels[i] && *sels[i] && strcasecmp(sels[i], "any") != 0) {
			*origin = origins[i];
			return sels[i];
		}
	}
	return NULL;
}

/* The candidates (energy: only devices with a counter); how many; map[k] their devices. */
static size_t candidates(struct placer *p, const struct kernel_plan *kp, enum place_crit crit,
                         const bool *ok, struct place_cand *c, size_t *map, const char *model)
{
	struct profstore *ps = placer_history(p);
	struct profstore empty = {0};
	size_t n = 0;
	bool counted[2] = {false, false};

	for (size_t i = 0; i < p->ndev; i++) {
		int k = placer_counter_of(p, i);

		if (!ok[i] || (crit == PLACE_ENERGY && !placer_has_counter(p, i)))
			continue;
		candidate(p, ps ? ps : &empty, i, model, kp->kernel, work_size(kp), &c[n]);
		/* A counter covers every device of its kind: its idle power counts once. */
		if (k >= 0 && !counted[k]) {
			c[n].idle_w = p->idle_w[k];
			counted[k] = true;
		}
		map[n++] = i;
	}
	return n;
}

static int when_placed(const struct placer *p, size_t dev)
{
	if (p->ended[dev] > 0)
		return J_WARM;
	for (const struct inflight *j = p->jobs; j; j = j->next)
		if (j->dev == (int)dev)
			return J_BEHIND_FIRST;
	return J_FIRST;
}

/* energy: read the counters around the job (its device has one, and auto:energy, or its
 * energy there is not known yet). Not for every job: reading NVML's energy counter costs
 * milliseconds; 64 tiny jobs under auto:time took 458 ms against 14 on the cores alone. */
static void track(struct placer *p, struct job_plan *jp, size_t dev, double forecast,
                  const char *model, bool energy)
{
	struct inflight *j = xcalloc(1, sizeof(*j)), **pp;

	*j = (struct inflight){.p = p,
	                       .dev = (int)dev,
	                       .forecast_ms = forecast,
	                       .placed_at = clock_ms(),
	                       .size = work_size(&jp->kp),
	                       .when = when_placed(p, dev)};
	j->gpu_j0 = j->cpu_j0 = -1;
	if (energy)
		placer_counters(p, &j->gpu_j0, &j->cpu_j0);
	j->keys[0] = xstrdup(model);
	j->keys[1] = xstrdup(jp->kp.kernel);
	j->keys[2] = xstrdup(p->devs[dev].name);
	for (pp = &p->jobs; *pp; pp = &(*pp)->next)
		;
	*pp = j;
	jp->on_end = placer_job_ended;
	jp->on_end_arg = j;
}

/* Whether to read the counters around a job on dev: where its energy there is not known
 * yet, and under auto:energy with a choice to make, every ENERGY_EVERY-th job of the device
 * (so that the history follows the device). Not around every job: a read of NVML's counter
 * costs milliseconds, more than a job of the GPU often runs. */
static bool measure_energy(struct placer *p, size_t dev, enum place_crit crit, size_t n,
                           double known_mj)
{
	bool refresh = crit == PLACE_ENERGY && n > 1;

	if (known_mj >= 0 && !refresh)
		return false; /* before has_counter: it opens the meter */
	if (!placer_has_counter(p, dev))
		return false;
	return known_mj < 0 || p->energy_jobs[dev]++ % ENERGY_EVERY == 0;
}

/* Choose among the devices (lock held); the chosen index, or -1 with e set. */
static int choose(struct placer *p, struct job_plan *jp, enum place_crit crit, const char *sel,
                  const char *origin, char *why, size_t len, struct cs_err *e)
{
	bool ok[MAX_DEVS];
	struct place_cand c[MAX_DEVS];
	size_t map[MAX_DEVS], n, at;
	struct strbuf sb = STRBUF_INIT;
	char *model;

	if (eligible(p, &jp->kp, ok, &sb, e) == 0) {
		if (!e->msg[0] || sb.len)
			err_set(e, "%s (from %s): no device can run it (%s)", sel, origin,
			        sb.len ? sb_str(&sb) : "no device");
		sb_free(&sb);
		return -1;
	}
	sb_free(&sb);
	model = model_key(&jp->kp);
	n = candidates(p, &jp->kp, crit, ok, c, map, model);
	if (n == 0) {
		free(model);
		return err_set(e,
		               "%s (from %s): no device that can run it has an energy counter "
		               "(NVML for a GPU, RAPL for the CPU); use auto:time or name a device",
		               sel, origin);
	}
	at = place_pick(c, n, crit, why, len);
	track(p, jp, map[at], c[at].known ? c[at].time_ms : 0, model,
	      measure_energy(p, map[at], crit, n, c[at].energy_mj));
	free(model);
	return (int)map[at];
}

int place_job(struct run_ctx *c, struct job_plan *jp, char **saved, char *why, size_t len,
              struct cs_err *e)
{
	enum place_crit crit;
	const char *origin = NULL, *sel = selector(&jp->kp, &origin);
	struct placer *p;
	int mode = place_mode(sel, &crit), dev;

	*saved = NULL;
	why[0] = '\0';
	if (mode == 0)
		return 0;
	if (mode < 0)
		return err_set(e, "'%s' (from %s): expected auto, auto:time or auto:energy", sel,
		               origin);
	e->msg[0] = '\0';
	p = placer_get(c, e);
	if (!p)
		return -1;
	pthread_mutex_lock(&p->lock);
	dev = choose(p, jp, crit, sel, origin, why, len, e);
	pthread_mutex_unlock(&p->lock);
	if (dev < 0)
		return -1;
	*saved = jp->kp.device_exe;
	jp->kp.device_exe = xasprintf("%d", dev);
	return 0;
}

/* The least forecast time among the devices marked in ok (lock held); 0 where none known. */
static int best_forecast(struct placer *p, const struct kernel_plan *kp, const bool *ok, double *ms)
{
	struct profstore *ps = placer_history(p);
	char *model = model_key(kp);
	size_t size = work_size(kp);
	int known = 0;

	for (size_t i = 0; ps && i < p->ndev; i++) {
		const char *keys[] = {model, kp->kernel, p->devs[i].name};
		const struct prof_rec *lo, *hi;
		double t;

		if (!ok[i] || !profstore_near(ps, KIND, keys, size, &lo, &hi))
			continue;
		t = place_forecast(lo, hi, size, V_TIME);
		if (!known++ || t < *ms)
			*ms = t;
	}
	free(model);
	return known > 0;
}

int place_job_forecast(struct run_ctx *c, const struct job_plan *jp, double *ms)
{
	struct strbuf sb = STRBUF_INIT;
	struct cs_err e = {0};
	bool ok[MAX_DEVS];
	struct placer *p = placer_get(c, &e);
	int known = 0;

	if (!p)
		return 0;
	pthread_mutex_lock(&p->lock);
	if (eligible(p, &jp->kp, ok, &sb, &e) > 0)
		known = best_forecast(p, &jp->kp, ok, ms);
	pthread_mutex_unlock(&p->lock);
	sb_free(&sb);
	return known;
}

void place_restore(struct job_plan *jp, char *saved)
{
	if (!jp || jp->kp.device_exe == saved)
		return;
	free(jp->kp.device_exe);
	jp->kp.device_exe = saved;
}

/* What this shell learnt and has not saved yet goes to the file first: `devices --profiles`
 * after a run shows that run. */
static void save_now(struct placer *p)
{
	struct cs_err e;

	pthread_mutex_lock(&p->lock);
	if (p->store && profstore_save(p->store, &e) == 0)
		p->saved_at = clock_ms();
	pthread_mutex_unlock(&p->lock);
}

int place_profiles_print(struct placer *p, FILE *f, char *warn, size_t n, struct cs_err *e)
{
	char *path = cache_file(PROFSTORE_FILE);
	struct profstore *ps;

	if (p)
		save_now(p);

	if (!path)
		return err_set(e, "devices --profiles: no cache directory (CARSH_NO_CACHE=1, or "
		                  "no HOME)");
	ps = profstore_open(path);
	free(path);
	snprintf(warn, n, "%s", ps->warning);
	for (size_t i = 0; i < ps->n; i++) {
		const struct prof_rec *x = &ps->r[i];

		if (strcmp(x->kind, KIND) != 0)
			continue;
		fprintf(f, "%s %s  [%s]  %zu items: %.4g ms", x->keys[0], x->keys[1], x->keys[2],
		        x->size, x->v[V_TIME]);
		if (x->v[V_ENERGY] >= 0)
			fprintf(f, ", %.4g J", x->v[V_ENERGY] / 1000);
		if (x->v[V_RUNS] == 0)
			fprintf(f, ", a first run (replaced by the next)\n");
		else
			fprintf(f, ", %.0f run%s\n", x->v[V_RUNS], x->v[V_RUNS] == 1 ? "" : "s");
	}
	profstore_free(ps);
	return 0;
}
