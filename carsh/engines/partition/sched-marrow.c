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

/* At an end of the range (all to one side) the times cannot balance: the idle side has none.
 * A move pays only where that side, at its known throughput, would end the move's items
 * before the busy side ends the rest; beside a discrete GPU the cores never do, and the
 * search at 100 % kept giving them 1/16 (N-body's second run took 2.1 times Static's). Unknown
 * throughput: the move is tried. */
static bool move_pays(const struct sched *s, double delta, double tg, double tc)
{
	double moved = delta * (double)s->c.items, lc = sched_cpu_mean(s), lg = sched_gpu_lambda(s);

	if (s->share >= 1 && lc > 0)
		return moved / (lc * s->c.ncpu) <
		       tg - moved / (tg > 0 ? (double)s->c.items / tg : 1);
	if (s->share <= 0 && lg > 0)
		return moved / lg < tc - moved / (lc > 0 ? lc * s->c.ncpu : 1);
	return true;
}

/* How far the split may move: to where this step's throughputs say the sides end together,
 * not past it. 001's moves are fractions of the transferable part only; beside a GPU 300
 * times a core a refinement of 1/16 from a split of 98.8 % made the step 5.6 times longer. */
static double beyond_balance(const struct sched *s, double tg, double tc)
{
	double lg = tg > 0 ? s->share / tg : 0, lc = tc > 0 ? (1 - s->share) / tc : 0;

	/* With several GPUs tg is their balanced time, not one they took: no cap. */
	if (!(lg > 0 && lc > 0) || s->ng > 1)
		return 1;
	return fabs(lg / (lg + lc) - s->share);
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
	if ((s->share >= 1 || s->share <= 0) && !move_pays(s, s->delta, tg, tc)) {
		marrow_settle(s, true);
		return;
	}
	s->share = fmin(1.0, fmax(0.0, s->share + d * fmin(s->delta, beyond_balance(s, tg, tc))));
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
static bool marrow_search_again(struct sched *s, double dev, double tg, double tc)
{
	if ((s->share >= 1 || s->share <= 0) && !move_pays(s, MARROW_REFINE, tg, tc))
		dev = 0; /* as balanced as it can be */
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
	if (!s->searching && !marrow_search_again(s, dev, tg, tc))
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
	/* The throughputs, for move_pays; the GPUs' split among several stays by compute units
	 * until they are measured (sched_split_gpus). */
	if (s->c.gpu && s->ng == 1)
		s->lambda[s->c.ncpu] = p->lgpu;
	for (unsigned d = 0; d < s->c.ncpu; d++)
		s->lambda[d] = p->lcpu;
}

/* The split (the best one seen while a search is on) and the throughputs measured. */
static bool marrow_profile(const struct sched *s, struct sched_prior *p)
{
	double lc = sched_cpu_mean(s), lg = sched_gpu_lambda(s);
	double share = s->searching && s->best_ms > 0 ? s->best_share : s->share;

	*p = (struct sched_prior){share, s->last_tg > 0 ? lg : 0, lc};
	return s->last_tg > 0 || s->last_tc > 0;
}

/* A core wakes only where the split leaves the cores a part: at 100 % to the GPU 16 cores
 * woke at every step to find nothing, and the step's end waited for them (Marrow's second
 * SpMV run took 1.13 times Static's, where Static runs the GPU's thread alone). Their busy
 * time stays 0, as when they woke for nothing. */
static bool marrow_uses(const struct sched *s, unsigned dev)
{
	return is_gpu(s, dev) || left(&s->cpu_r) > 0;
}

const struct sched_ops sched_marrow_ops = {
        .uses = marrow_uses,
        .init = marrow_init,
        .step_begin = marrow_step_begin,
        .next = marrow_next,
        .step_end = marrow_step_end,
        .prime = marrow_prime,
        .profile = marrow_profile,
};
