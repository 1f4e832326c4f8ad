/* Throughput monitoring (engines/pipeline/pipemon.h). */
#include "engines/pipeline/pipemon.h"

#include <math.h>
#include <string.h>

void pmon_init(struct pmon *m, size_t window, double change, double t0)
{
	memset(m, 0, sizeof(*m));
	m->window = window ? window : 1;
	m->change = change;
	m->start = t0;
}

/* A finished window: the reference, or a comparison with it. */
static void window_done(struct pmon *m, double lambda)
{
	int trend = 0;

	m->windows++;
	m->last = lambda;
	if (m->windows == 1)
		return; /* the pipeline was filling */
	if (m->windows == 2) {
		m->ref = lambda;
		return;
	}
	if (lambda > m->ref * (1 + m->change))
		trend = 1;
	else if (lambda < m->ref * (1 - m->change))
		trend = -1;
	m->strikes = trend != 0 && trend == m->trend ? m->strikes + 1 : (trend != 0);
	m->trend = trend;
	if (m->strikes >= 2)
		m->changed = true;
}

bool pmon_item(struct pmon *m, double t)
{
	if (++m->count >= m->window) {
		double dt = t - m->start;

		window_done(m, dt > 0 ? (double)m->count / dt : INFINITY);
		m->count = 0;
		m->start = t;
	}
	return m->changed;
}

double pmon_throughput(const double *take, const double *done, size_t n, double fed)
{
	double sum = 0;

	if (fed <= 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		double a = take[i] > 0 ? take[i] : 0, b = done[i] < fed ? done[i] : fed;

		if (done[i] <= take[i])
			sum += take[i] <= fed; /* no measurable stay: it counts where it happened */
		else if (b > a)
			sum += (b - a) / (done[i] - take[i]);
	}
	return sum / fed;
}
