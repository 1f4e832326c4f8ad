/* Marrow (001 §3.2-3.3): one split per step, the GPUs' share at offset 0 and the cores the
 * rest, moved by a binary search toward the side that finished first (sched.h). */
#include <math.h>

#include "engines/partition/sched-int.h"

/* A step is balanced when the finish times differ by at most MARROW_TOL of the later;
 * lbt(n) = unbalanced·W + lbt(n-1)·(1-W) with unbalanced meaning a difference over
 * MARROW_MAXDEV, and a new search starts when lbt reaches MARROW_LBT (with W = 2/3, 001's
 * default, three unbalanced steps in a row). */
#define MARROW_TOL    0.05
#define MARROW_MAXDEV 0.10
#define MARROW_W      (2.0 / 3.0)
#define MARROW_LBT    0.9
#define MARROW_REFINE (1.0 / 16) /* the first move from a known split */

static void marrow_init(struct sched *s)
{
	/* 001 §3.2.2: all the work is transferable at first: half of it to each side. */
	s->share = 0.5;
	s->delta = 0.25;
	s->searching = true;
}

/* The search is over: the split stays where the devices were balanced, else at the best
 * one seen; the transferable part for a later search is what the last move would have
 * been. */
static void marrow_settle(struct sched *s, bool balanced)
{
	if (!balanced && s->best_ms > 0)
		s->share = s->best_share;
	s->searching = false;
	s->lbt = 0;
}

/* 001 §3.2.2's binary search: move the split toward the device that finished first by the
 * transferable part, which halves with each move; in a search started by a drift (001
 * §3.3.1's adaptive binary search) it doubles instead after more than two moves in one
 * direction, so that the split can leave the interval it was in. */
static void marrow_move(struct sched *s, double tg, double tc)
{
	int d = tg > tc ? -1 : 1; /* the GPU finished later: less for it */
	double min = (double)s->c.granule / (double)s->c.items;

	s->same = d == s->dir ? s->same + 1 : 0;
	s->dir = d;
	if (s->shifting && s->same >= 2)
		s->delta = fmin(2.0 * s->delta, 0.5);
	if (s->delta < min || (d < 0 && s->share <= 0) || (d > 0 && s->share >= 1)) {
		marrow_settle(s, false);
		return;
	}
	s->share = fmin(1.0, fmax(0.0, s->share + d * s->delta));
	if (!(s->shifting && s->same >= 2))
		s->delta /= 2;
}

/* With several GPUs, the time their side would have taken balanced among themselves: their
 * items over their throughputs together. The split among them follows their throughputs at
 * the next step (sched_split_gpus); were the latest of them compared with the cores, a step
 * with the GPUs out of balance (the first, split by compute units) would move the split
 * between the GPUs and the cores for a reason the next step no longer has. */
static double gpus_balanced_ms(const struct sched *s)
{
	size_t items = 0;
	double lg = 0;

	for (unsigned i = 0; i < s->ng; i++) {
		items += s->g[i].items;
		if (s->g[i].items > 0 && s->busy[s->c.ncpu + i] > 0)
			lg += (double)s->g[i].items / s->busy[s->c.ncpu + i];
	}
	return lg > 0 ? (double)items / lg : 0;
}

/* 001 §3.3: out of a search, lbt(n) = isUnbalanced(dev)·weight + lbt(n-1)·(1-weight); a new
 * search starts from the split there is, with the small first move of a known split.
 * False: no search in this step. */
static bool marrow_search_again(struct sched *s, double dev)
{
	s->lbt = (dev > MARROW_MAXDEV ? MARROW_W : 0) + s->lbt * (1 - MARROW_W);
	if (s->lbt < MARROW_LBT)
		return false;
	s->searching = s->shifting = true;
	s->delta = MARROW_REFINE;
	s->same = 0;
	s->dir = 0;
	s->best_ms = 0;
	return true;
}

static void marrow_step_end(struct sched *s)
{
	double tg = 0, tc = 0, t, dev;

	if (s->ng == 1)
		tg = s->busy[s->c.ncpu];
	else if (s->ng > 1)
		tg = gpus_balanced_ms(s);
	for (unsigned d = 0; d < s->c.ncpu; d++)
		tc = fmax(tc, s->busy[d]);
	t = fmax(tg, tc);
	if (!(t > 0) || s->c.ncpu == 0)
		return;
	s->last_tg = tg;
	s->last_tc = tc;
	dev = fabs(tg - tc) / t;
	if (!s->searching && !marrow_search_again(s, dev))
		return;
	if (s->best_ms <= 0 || t < s->best_ms) {
		s->best_ms = t;
		s->best_share = s->share;
	}
	if (dev <= MARROW_TOL)
		marrow_settle(s, true);
	else
		marrow_move(s, tg, tc);
}

static void marrow_step_begin(struct sched *s)
{
	sched_split_static(s, s->share, true);
}

static enum sched_answer marrow_next(struct sched *s, unsigned dev, struct sched_chunk *out)
{
	return is_gpu(s, dev) ? sched_take_part(s, dev, PHASE_BALANCE, out)
	                      : sched_take_guided(s, &s->cpu_r, PHASE_BALANCE, out);
}

static void marrow_prime(struct sched *s, const struct sched_prior *p)
{
	/* A known split needs a refinement at most (001 §3.2.3). */
	s->share = p->share;
	s->delta = MARROW_REFINE;
}

/* The split (the best one seen while a search is on) and the throughputs measured. */
static bool marrow_profile(const struct sched *s, struct sched_prior *p)
{
	double lc = sched_cpu_mean(s), lg = sched_gpu_lambda(s);
	double share = s->searching && s->best_ms > 0 ? s->best_share : s->share;

	*p = (struct sched_prior){share, s->last_tg > 0 ? lg : 0, lc};
	return s->last_tg > 0 || s->last_tc > 0;
}

const struct sched_ops sched_marrow_ops = {
        .init = marrow_init,
        .step_begin = marrow_step_begin,
        .next = marrow_next,
        .step_end = marrow_step_end,
        .prime = marrow_prime,
        .profile = marrow_profile,
};
