#include "engines/partition/logfit.h"

#include <math.h>

int logfit_fit(const double *x, const double *y, size_t n, double *a, double *b)
{
	double su = 0, sy = 0, suu = 0, suy = 0, den, na, nb;

	if (n < 2)
		return -1;
	for (size_t i = 0; i < n; i++) {
		double u;

		if (!(x[i] > 0) || !isfinite(x[i]) || !isfinite(y[i]))
			return -1;
		u = log(x[i]);
		su += u;
		sy += y[i];
		suu += u * u;
		suy += u * y[i];
	}
	/* The normal equations of the line y = a·u + b in u = ln x. */
	den = (double)n * suu - su * su;
	if (!(fabs(den) > 1e-12 * (double)n * suu))
		return -1;
	na = ((double)n * suy - su * sy) / den;
	nb = (sy - na * su) / (double)n;
	if (!isfinite(na) || !isfinite(nb))
		return -1;
	*a = na;
	*b = nb;
	return 0;
}

double logfit_eval(double a, double b, double x)
{
	return a * log(x) + b;
}

double logfit_gpu_chunk(double a, double thld)
{
	return a > 0 && thld > 0 ? a / thld : 0;
}

double logfit_cpu_chunk(double gpu_chunk, double lambda_cpu, double lambda_gpu)
{
	if (!(lambda_cpu > 0) || !(lambda_gpu > 0) || !(gpu_chunk > 0))
		return 0;
	return gpu_chunk * lambda_cpu / lambda_gpu;
}

double logfit_sample_size(unsigned neu, unsigned k)
{
	return (double)neu * ldexp(1.0, (int)k - 1);
}
