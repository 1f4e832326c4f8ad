/* The fork gate of util/fork.h: forks share it (readers), the thread that must not be forked
 * across holds it alone (the writer). */
#include "util/fork.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_rwlock_t gate = PTHREAD_RWLOCK_INITIALIZER;
static bool used; /* set before the forking threads start, read only after */

/* The gate is static and used in pairs, so a failing call is a broken invariant (a
 * deadlock or an unlock without a lock): going on would fork across MPI's start. */
static void checked(int rc, const char *what)
{
	if (rc == 0)
		return;
	fprintf(stderr, "carsh: fork gate: %s: %s\n", what, strerror(rc));
	abort();
}

void fork_gate_use(void)
{
	used = true;
}

void fork_gate_close(void)
{
	checked(pthread_rwlock_wrlock(&gate), "close");
}

void fork_gate_open(void)
{
	checked(pthread_rwlock_unlock(&gate), "open");
}

void fork_gate_enter(void)
{
	if (used)
		checked(pthread_rwlock_rdlock(&gate), "enter");
}

void fork_gate_leave(void)
{
	if (used)
		checked(pthread_rwlock_unlock(&gate), "leave");
}
