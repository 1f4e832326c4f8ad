#include "util/parrun.h"

#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

void par_run(void *(*fn)(void *part), void *base, size_t stride, size_t k)
{
	pthread_t th[PARRUN_MAX];
	bool started[PARRUN_MAX] = {false};
	char *at = base;

	/* The caller's thread runs the first part (and any past PARRUN_MAX) itself. */
	for (size_t i = 1; i < k && i < PARRUN_MAX; i++)
		started[i] = pthread_create(&th[i], NULL, fn, at + i * stride) == 0;
	for (size_t i = 0; i < k; i++)
		if (i >= PARRUN_MAX || !started[i])
			fn(at + i * stride);
	for (size_t i = 1; i < k && i < PARRUN_MAX; i++)
		if (started[i])
			pthread_join(th[i], NULL);
}

size_t par_parts(size_t n, size_t min_bytes)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t k = min_bytes ? n / min_bytes : 1;

	if (cores > 0 && k > (size_t)cores)
		k = (size_t)cores;
	if (k > PARRUN_MAX)
		k = PARRUN_MAX;
	return k ? k : 1;
}
