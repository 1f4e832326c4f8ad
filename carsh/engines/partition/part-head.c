/* The step's head latch (struct prun's head_open): where every device is a PoCL one, a chunk
 * past offset 0 waits until the step's launch at offset 0 has passed PoCL's launch gate
 * (runtime/launchguard.h). The device threads (part-threads.c) close it as a step begins and
 * wait at it; the chunk at offset 0 (part-chunk.c) opens it. */
#include "engines/partition/partition-int.h"

/* Whether the step's chunks wait for its launch at offset 0 (r->head_open). That launch runs
 * alone at PoCL's launch gate, after every launch already running: where another device
 * launched first, it waited for that launch to end. A core standing in for the GPU, whose
 * share is at offset 0, waited 73 ms for a core's first chunk of Mandelbrot in a 163 ms step,
 * and Static's runs took from one to two times as long by which came first.
 * Only where every device is a PoCL one: a GPU's own launches pass no gate, and a core would
 * otherwise wait while the GPU wrote its copy streams before asking for its share. */
static bool head_latch(const struct prun *r)
{
	if (r->begin != 0 || r->ndev < 2)
		return false;
	for (unsigned i = 0; i < r->ndev; i++)
		if (!r->dev[i].guarded)
			return false;
	return true;
}

void part_head_close(struct prun *r)
{
	r->head_open = !head_latch(r);
}

void part_head_wait(struct prun *r, const struct sched_chunk *c)
{
	while (c->offset != 0 && !r->head_open && !r->failed && !part_interrupted(r))
		pthread_cond_wait(&r->cond, &r->lock);
}

void part_head_entered(struct prun *r)
{
	pthread_mutex_lock(&r->lock);
	if (!r->head_open) {
		r->head_open = true;
		pthread_cond_broadcast(&r->cond);
	}
	pthread_mutex_unlock(&r->lock);
}
