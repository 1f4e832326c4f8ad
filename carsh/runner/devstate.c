/* The device choice's state (runner/devstate.h, devplace-int.h): its history, read when
 * first wanted, and its end. */
#include "runner/devstate.h"

#include <pthread.h>
#include <stdlib.h>

#include "data/profstore.h"
#include "engines/energy.h"
#include "runner/devplace-int.h"
#include "util/clock.h"

struct profstore *placer_history(struct placer *p)
{
	if (!p->store && p->path) {
		p->store = profstore_open(p->path);
		p->saved_at = clock_ms();
	}
	return p->store;
}

void placer_free(struct placer *p)
{
	struct cs_err e;

	if (!p)
		return;
	if (p->store)
		(void)profstore_save(p->store, &e); /* a lost measurement is only a lost one */
	profstore_free(p->store);
	free(p->devs);
	free(p->path);
	if (p->meter)
		energy_close(p->meter);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
