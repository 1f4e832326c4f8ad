/* Marrow (001 §3.2-3.3): one split per step, the GPUs' share at offset 0 and the cores the
 * rest, moved by a binary search toward the side that finished first (sched.h). */
#include <math.h>
#include <stdlib.h>

#include "engines/partition/sched-int.h"
#include "engines/partition/sched-learn.h"
#include "util/alloc.h"

/* A step is balanced when the finish times differ by at most MARROW_TOL of the later;
 * lbt(n) = unbalanced·W + lbt(n-1)·(1-W) with unbalanced meaning a difference over
 * MARROW_MAXDEV, and a new search starts when lbt reaches MARROW_LBT (with W = 2/3, 001's
 * default, three unbalanced steps in a row). */
#define MARROW_TOL    0.05
#define MARROW_MAXDEV 0.10
#define MARROW_W      (2.0 / 3.0)
#define MARROW_LBT    0.9
#define MARROW_REFINE (1.0 / 16) /* the first move from a known split */

/* Marrow's own state: the split, kept across steps, and the cores' cost model. */
struct marrow {
	struct learn *learn;
	double share, delta, best_share, best_ms, lbt, last_tg, last_tc;
	bool searching, shifting;
	int dir;
	unsigned same;
};

static struct marrow *marrow_of(const struct sched *s)
{
	return s->priv;
}

static void marrow_init(struct sched *s)
{
	struct marrow *mw = xcalloc(1, sizeof(*mw));

	s->priv = mw;
	mw->learn = learn_new(&s->c, s->ndev);
	/* 001 §3.2.2: all the work is transferable at first: half of it to each side. */
	mw->share = 0.5;
	mw->delta = 0.25;
	mw->searching = true;
}

/* The search is over: the split stays where the devices were balanced, else at the best
 * one seen; the transferable part for a later search is what the last move would have
 * been. */
static void marrow_settle(struct sched *s, bool balanced)
{
	struct marrow *mw = marrow_of(s);

	if (!balanced && mw->best_ms > 0)
		mw->share = mw->best_share;
	mw->searching = false;
	mw->lbt = 0;
}

/* At an end of the range (all to one side) the times cannot balance: the idle side has none.
 * A move pays only where that side, at its known throughput, would end the move's items
 * before the busy side ends the rest; beside a discrete GPU the cores never do, and the
 * search at 100 % kept giving them 1/16 (N-body's second run took 2.1 times Static's). Unknown
 * throughput: the move is tried. */
static bool move_pays(const struct sched *s, double delta, double tg, double tc)
{
	const struct marrow *mw = marrow_of(s);
	double moved = delta * (double)s->c.items, lc = sched_cpu_mean(s), lg = sched_gpu_lambda(s);

	if (mw->share >= 1 && lc > 0)
		return moved / (lc * s->c.ncpu) <
		       tg - moved / (tg > 0 ? (double)s->c.items / tg : 1);
	if (mw->share <= 0 && lg > 0)
		return moved / lg < tc - moved / (lc > 0 ? lc * s->c.ncpu : 1);
	return true;
}

/* How far the split may move: to where this step's throughputs say the sides end together,
 * not past it. 001's moves are fractions of the transferable part only; beside a GPU 300
 * times a core a refinement of 1/16 from a split of 98.8 % made the step 5.6 times longer. */
static double beyond_balance(const struct sched *s, double tg, double tc)
{
	const struct marrow *mw = marrow_of(s);
	double lg = tg > 0 ? mw->share / tg : 0, lc = tc > 0 ? (1 - mw->share) / tc : 0;

	/* With several GPUs tg is their balanced time, not one they took: no cap. */
	if (!(lg > 0 && lc > 0) || s->ng > 1)
		return 1;
	return fabs(lg / (lg + lc) - mw->share);
}

/* 001 §3.2.2's binary search: move the split toward the device that finished first by the
 * transferable part, which halves with each move; in a search started by a drift (001
 * §3.3.1's adaptive binary search) it doubles instead after more than two moves in one
 * direction, so that the split can leave the interval it was in. */
static void marrow_move(struct sched *s, double tg, double tc)
{
	struct marrow *mw = marrow_of(s);
	int d = tg > tc ? -1 : 1; /* the GPU finished later: less for it */
	double min = (double)s->c.granule / (double)s->c.items;

	mw->same = d == mw->dir ? mw->same + 1 : 0;
	mw->dir = d;
	if (mw->shifting && mw->same >= 2)
		mw->delta = fmin(2.0 * mw->delta, 0.5);
	if (mw->delta < min || (d < 0 && mw->share <= 0) || (d > 0 && mw->share >= 1)) {
		marrow_settle(s, false);
		return;
	}
	if ((mw->share >= 1 || mw->share <= 0) && !move_pays(s, mw->delta, tg, tc)) {
		marrow_settle(s, true);
		return;
	}
	mw->share =
	        fmin(1.0, fmax(0.0, mw->share + d * fmin(mw->delta, beyond_balance(s, tg, tc))));
	if (!(mw->shifting && mw->same >= 2))
		mw->delta /= 2;
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
	struct marrow *mw = marrow_of(s);

	if ((mw->share >= 1 || mw->share <= 0) && !move_pays(s, MARROW_REFINE, tg, tc))
		dev = 0; /* as balanced as it can be */
	mw->lbt = (dev > MARROW_MAXDEV ? MARROW_W : 0) + mw->lbt * (1 - MARROW_W);
	if (mw->lbt < MARROW_LBT)
		return false;
	mw->searching = mw->shifting = true;
	mw->delta = MARROW_REFINE;
	mw->same = 0;
	mw->dir = 0;
	mw->best_ms = 0;
	return true;
}

static void marrow_step_end(struct sched *s)
{
	struct marrow *mw = marrow_of(s);
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
	mw->last_tg = tg;
	mw->last_tc = tc;
	dev = fabs(tg - tc) / t;
	if (!mw->searching && !marrow_search_again(s, dev, tg, tc))
		return;
	if (mw->best_ms <= 0 || t < mw->best_ms) {
		mw->best_ms = t;
		mw->best_share = mw->share;
	}
	if (dev <= MARROW_TOL)
		marrow_settle(s, true);
	else
		marrow_move(s, tg, tc);
}

static void marrow_fini(struct sched *s)
{
	learn_free(marrow_of(s)->learn);
	free(s->priv);
}

static void marrow_step_begin(struct sched *s)
{
	struct marrow *mw = marrow_of(s);

	learn_step(mw->learn);
	sched_split_static(s, mw->share, true);
}

static enum sched_answer marrow_next(struct sched *s, unsigned dev, struct sched_chunk *out)
{
	return is_gpu(s, dev)
	               ? sched_take_part(s, dev, PHASE_BALANCE, out)
	               : sched_take_guided(s, marrow_of(s)->learn, &s->cpu_r, PHASE_BALANCE, out);
}

static void marrow_done(struct sched *s, unsigned dev, const struct sched_chunk *c, double ms,
                        double lambda)
{
	(void)lambda;
	learn_done(marrow_of(s)->learn, dev, is_gpu(s, dev), c, ms);
}

static struct learn *marrow_learner(const struct sched *s)
{
	return marrow_of(s)->learn;
}

static void marrow_prime(struct sched *s, const struct sched_prior *p)
{
	struct marrow *mw = marrow_of(s);

	/* A known split needs a refinement at most (001 §3.2.3). */
	mw->share = p->share;
	mw->delta = MARROW_REFINE;
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
	const struct marrow *mw = marrow_of(s);
	double lc = sched_cpu_mean(s), lg = sched_gpu_lambda(s);
	double share = mw->searching && mw->best_ms > 0 ? mw->best_share : mw->share;

	*p = (struct sched_prior){share, mw->last_tg > 0 ? lg : 0, lc};
	return mw->last_tg > 0 || mw->last_tc > 0;
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
        .fini = marrow_fini,
        .done = marrow_done,
        .learner = marrow_learner,
        .step_begin = marrow_step_begin,
        .next = marrow_next,
        .step_end = marrow_step_end,
        .prime = marrow_prime,
        .profile = marrow_profile,
};
