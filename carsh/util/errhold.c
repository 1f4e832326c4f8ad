#include "util/errhold.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

/* Held only around descriptor moves, never across the build: a signal thread that gives
 * the descriptor back waits microseconds, not for a compiler. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int saved = -1; /* the real standard error while held */
static bool given_back;

int errhold_begin(int fd)
{
	int rc = -1;

	pthread_mutex_lock(&lock);
	/* Close-on-exec: a job forked during the build must not keep it open. */
	if (!given_back && saved < 0 && (saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)) >= 0) {
		if (dup2(fd, STDERR_FILENO) >= 0) {
			rc = 0;
		} else {
			close(saved);
			saved = -1;
		}
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

/* With the lock held. */
static void restore(void)
{
	if (saved < 0)
		return;
	dup2(saved, STDERR_FILENO);
	close(saved);
	saved = -1;
}

void errhold_end(void)
{
	pthread_mutex_lock(&lock);
	restore();
	pthread_mutex_unlock(&lock);
}

void errhold_give_back(void)
{
	pthread_mutex_lock(&lock);
	given_back = true;
	restore();
	pthread_mutex_unlock(&lock);
}
