/* The model checked against the live stream (engines/pipeline/pipecheck.h). */
#include "engines/pipeline/pipecheck.h"

#include <math.h>

double pcheck_noise(double a, double b)
{
	double hi = fmax(a, b);

	if (hi <= 0)
		return 0;
	return fabs(a - b) / hi;
}

bool pcheck_disagrees(double pred, double meas, double noise)
{
	if (meas <= 0)
		return pred > 0;
	return fabs(pred - meas) / meas > fmax(noise, PCHECK_NOISE_FLOOR);
}

/* Whether i ranks above j: the higher score, the lower index among equals. */
static bool above(const struct pm_pred *p, size_t i, size_t j, enum pm_criterion crit)
{
	double si = pm_score(&p[i], crit), sj = pm_score(&p[j], crit);

	return si > sj || (si == sj && i < j);
}

size_t pcheck_next(const struct pm_pred *p, size_t n, size_t chosen, enum pm_criterion crit,
                   size_t *out, size_t k)
{
	size_t got = 0;

	/* k passes, each taking the best not yet taken: k is a handful. */
	while (got < k) {
		size_t best = n;

		for (size_t i = 0; i < n; i++) {
			bool taken = i == chosen;

			for (size_t j = 0; j < got && !taken; j++)
				taken = out[j] == i;
			if (!taken && (best == n || above(p, i, best, crit)))
				best = i;
		}
		if (best == n)
			break;
		out[got++] = best;
	}
	return got;
}

size_t pcheck_pick(const double *meas, size_t n, double noise)
{
	size_t best = 0;

	for (size_t i = 1; i < n; i++)
		if (meas[i] > meas[best])
			best = i;
	return n && meas[0] >= meas[best] * (1 - fmax(noise, PCHECK_NOISE_FLOOR)) ? 0 : best;
}

unsigned pcheck_family(const struct pm_config *c)
{
	return (c->dp ? 2u : 0u) + (c->mg ? 1u : 0u);
}

const char *pcheck_family_name(unsigned f)
{
	static const char *const names[PCHECK_FAMILIES] = {"CP-CG", "CP-MG", "DP-CG", "DP-MG"};

	return f < PCHECK_FAMILIES ? names[f] : "?";
}
