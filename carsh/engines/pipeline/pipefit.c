/* The CG experiments' contention line (engines/pipeline/pipefit.h). */
#include "engines/pipeline/pipefit.h"

#include <string.h>

/* Least squares of y = a + b·n over the n = 1 .. last where below (with below set) y lies at
 * or under the line (a0, b0); false with fewer than PM_FIT_MIN such points. */
static bool fit(const double *y, unsigned last, bool below, double a0, double b0, double *a,
                double *b)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, d;
	unsigned np = 0;

	for (unsigned n = 1; n <= last; n++) {
		if (below && y[n] > a0 + b0 * n)
			continue;
		np++;
		sx += n;
		sy += y[n];
		sxx += (double)n * n;
		sxy += n * y[n];
	}
	d = np * sxx - sx * sx;
	if (np < PM_FIT_MIN || !(d > 0))
		return false;
	*b = (np * sxy - sx * sy) / d;
	*a = (sy - *b * sx) / np;
	return true;
}

/* Stage k's line: the least squares over every experiment, then again over those at or below
 * it. One batch per n only ever loses time to what else the machine does (a late item, the
 * threads' stages in step, as they are not in a stream), so the lower points are the ones that
 * measure the cores; false where a time is not positive or the line leaves the positive. */
static bool line(const struct pm_meas *m, unsigned k, unsigned last, double *a, double *b)
{
	double y[PM_MAX_CORES + 2], a1, b1;

	for (unsigned n = 1; n <= last; n++) {
		y[n] = m->t_cgn_stage[n][k];
		if (!(y[n] > 0))
			return false;
	}
	if (!fit(y, last, false, 0, 0, a, b))
		return false;
	if (fit(y, last, true, *a, *b, &a1, &b1)) {
		*a = a1;
		*b = b1;
	}
	return *a + *b > 0 && *a + *b * last > 0;
}

void pm_cgfit(const struct pm_meas *m, struct pm_cgfit *f)
{
	memset(f, 0, sizeof(*f));
	f->s = m->sh.s;
	f->last = m->sh.nc < PM_MAX_CORES ? m->sh.nc : PM_MAX_CORES;
	if (f->last < PM_FIT_MIN)
		return;
	for (unsigned k = 0; k < f->s; k++)
		if (!line(m, k, f->last, &f->a[k], &f->b[k]))
			return;
	f->ok = true;
}

double pm_cgfit_stage(const struct pm_cgfit *f, unsigned k, unsigned n)
{
	return f->a[k] + f->b[k] * (n < f->last ? n : f->last);
}

double pm_cgfit_time(const struct pm_cgfit *f, unsigned n)
{
	double item = 0;
	unsigned cores = n < f->last ? n : f->last;

	for (unsigned k = 0; k < f->s; k++)
		item += pm_cgfit_stage(f, k, n);
	return item / cores;
}
