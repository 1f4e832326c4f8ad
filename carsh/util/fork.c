/* The fork gate of util/fork.h: forks share it (readers), the thread that must not be forked
 * across holds it alone (the writer). */
#include "util/fork.h"

#include <pthread.h>

static pthread_rwlock_t gate = PTHREAD_RWLOCK_INITIALIZER;
static bool used; /* set before the forking threads start, read only after */

void fork_gate_use(void)
{
	used = true;
}

void fork_gate_close(void)
{
	pthread_rwlock_wrlock(&gate);
}

void fork_gate_open(void)
{
	pthread_rwlock_unlock(&gate);
}

void fork_gate_enter(void)
{
	if (used)
		pthread_rwlock_rdlock(&gate);
}

void fork_gate_leave(void)
{
	if (used)
		pthread_rwlock_unlock(&gate);
}
