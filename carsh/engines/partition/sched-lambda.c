/* The devices' throughputs as the schedulers read them (sched-int.h): each device's last,
 * items/ms, 0 where it has measured none yet. */
#include "engines/partition/sched-int.h"

/* Mean throughput of the cores measured so far (0 when none is). */
double sched_cpu_mean(const struct sched *s)
{
	double sum = 0;
	unsigned n = 0;

	for (unsigned d = 0; d < s->c.ncpu; d++)
		if (s->lambda[d] > 0) {
			sum += s->lambda[d];
			n++;
		}
	return n ? sum / n : 0;
}

/* A core's throughput: its own last one, else the mean of the others (0: none known). */
double sched_cpu_lambda(const struct sched *s, unsigned dev)
{
	return s->lambda[dev] > 0 ? s->lambda[dev] : sched_cpu_mean(s);
}

/* Sum of the cores' throughputs, a core not measured yet counted at the mean of the others
 * (0 when none is measured). */
double sched_cpu_total(const struct sched *s)
{
	double t = 0;

	for (unsigned d = 0; d < s->c.ncpu; d++)
		t += sched_cpu_lambda(s, d);
	return t;
}

/* The GPUs' throughputs together (one GPU: its own), 0 when none is measured. */
double sched_gpu_lambda(const struct sched *s)
{
	double t = 0;

	for (unsigned i = 0; s->c.gpu && i < s->ng; i++)
		t += s->lambda[s->c.ncpu + i];
	return t;
}
