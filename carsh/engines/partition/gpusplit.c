#include "engines/partition/gpusplit.h"

#include <math.h>

/* Cumulative rounding: each bound is the rounded cumulative weight, so the rounding errors
 * do not add up along the GPUs and every part is within one granule of its weight's. */
void gpu_split(size_t begin, size_t n, size_t granule, const double *w, unsigned k, size_t *bound)
{
	size_t units = granule ? n / granule : 0;
	double total = 0, sum = 0;

	for (unsigned i = 0; i < k; i++)
		total += isfinite(w[i]) && w[i] > 0 ? w[i] : 0;
	bound[0] = begin;
	for (unsigned i = 0; i < k; i++) {
		double wi = total > 0 ? (isfinite(w[i]) && w[i] > 0 ? w[i] : 0) : 1.0;
		size_t u;

		sum += wi;
		u = (size_t)((double)units * sum / (total > 0 ? total : (double)k) + 0.5);
		if (u > units)
			u = units;
		bound[i + 1] = begin + u * granule;
		if (bound[i + 1] < bound[i])
			bound[i + 1] = bound[i];
	}
	bound[k] = begin + n;
}
