/* The item's moves between the host and the GPU, buffer by buffer (engines/pipeline/pipemove.h). */
#include "engines/pipeline/pipemove.h"

#include <string.h>

static double bytes_of(const struct pm_flow *f, uint64_t set)
{
	double sum = 0;

	for (unsigned b = 0; b < f->nb; b++)
		if ((set >> b) & 1u)
			sum += f->bytes[b];
	return sum;
}

/* Share a timing t of the moves of `set` among its buffers by size; where a buffer was timed
 * twice, the faster timing stays (the same bytes over the same bus). */
static void share(const struct pm_flow *f, uint64_t set, double t, double *per)
{
	double all = bytes_of(f, set);

	if (!(t > 0) || !(all > 0))
		return;
	for (unsigned b = 0; b < f->nb; b++) {
		double x = t * f->bytes[b] / all;

		if (((set >> b) & 1u) && (per[b] == 0 || x < per[b]))
			per[b] = x;
	}
}

/* The GPU experiment as it ran: every stage on the GPU, its outputs brought back and their
 * device copies dropped after it (engines/pipeline/pipestage.c), so each stage moved in what
 * it reads that an earlier stage wrote and no stage since read. */
void pmove_buffer_times(const struct pm_meas *m, double *in, double *back)
{
	const struct pm_flow *f = &m->flow;
	uint64_t stale = ~(uint64_t)0;

	memset(in, 0, PIPE_MAX_BUFFERS * sizeof(*in));
	memset(back, 0, PIPE_MAX_BUFFERS * sizeof(*back));
	for (unsigned k = 0; k < m->sh.s; k++) {
		uint64_t moved = f->rd[k] & stale;

		if (!((m->sh.gpu_ok >> k) & 1u)) {
			stale |= f->wr[k];
			continue;
		}
		share(f, moved, m->st[k].h2d_g, in);
		share(f, f->wr[k], m->st[k].d2h_g, back);
		stale = (stale & ~moved) | f->wr[k];
	}
}

/* A buffer back from the GPU: the faster of the experiment's two timings of its bytes, out
 * after its writer and in again before its next reader (docs/pipeline.md). */
static double back_cost(const double *in, const double *back, unsigned b)
{
	return in[b] > 0 && in[b] < back[b] ? in[b] : back[b];
}

static double sum_over(const struct pm_flow *f, uint64_t set, const double *in, const double *back,
                       bool going_in)
{
	double t = 0;

	for (unsigned b = 0; b < f->nb; b++)
		if ((set >> b) & 1u)
			t += going_in ? in[b] : back_cost(in, back, b);
	return t;
}

bool pmove_gpu_time(const struct pm_meas *m, uint32_t mask, double *t)
{
	const struct pm_flow *f = &m->flow;
	double in[PIPE_MAX_BUFFERS], back[PIPE_MAX_BUFFERS];
	uint64_t on_gpu = 0, on_host = ~(uint64_t)0; /* where each buffer is current */

	if (f->nb == 0)
		return false;
	pmove_buffer_times(m, in, back);
	*t = 0;
	for (unsigned k = 0; k < m->sh.s; k++) {
		if ((mask >> k) & 1u) {
			*t += sum_over(f, f->rd[k] & ~on_gpu, in, back, true);
			on_gpu |= f->rd[k] | f->wr[k];
			on_host &= ~f->wr[k];
		} else {
			*t += sum_over(f, f->rd[k] & ~on_host, in, back, false);
			on_host |= f->rd[k] | f->wr[k];
			on_gpu &= ~f->wr[k];
		}
	}
	*t += sum_over(f, f->sink & ~on_host, in, back, false);
	return true;
}
