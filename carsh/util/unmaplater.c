#include "util/unmaplater.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

/* Below this a munmap costs less than handing it over. */
#define LATER_MIN ((size_t)4 << 20)
/* At most this many wait: a caller that outruns the thread unmaps its own, so the address
 * space and the pages held by deleted buffers stay bounded. */
#define QUEUE 8

struct mapping {
	void *p;
	size_t bytes;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t work, idle;
	struct mapping q[QUEUE];
	unsigned head, count;
	bool busy;   /* the thread is unmapping one it took */
	pid_t owner; /* the process whose thread it is; 0 before it starts */
} u = {.lock = PTHREAD_MUTEX_INITIALIZER,
       .work = PTHREAD_COND_INITIALIZER,
       .idle = PTHREAD_COND_INITIALIZER};

static void *unmapper(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&u.lock);
	for (;;) {
		struct mapping m;

		while (u.count == 0) {
			u.busy = false;
			pthread_cond_broadcast(&u.idle);
			pthread_cond_wait(&u.work, &u.lock);
		}
		m = u.q[u.head];
		u.head = (u.head + 1) % QUEUE;
		u.count--;
		u.busy = true;
		pthread_mutex_unlock(&u.lock);
		munmap(m.p, m.bytes);
		pthread_mutex_lock(&u.lock);
	}
	return NULL;
}

/* The thread, started once, with every signal blocked (a Ctrl-C is the shell's main thread's
 * to take); the caller holds u.lock. Whether it runs. */
static bool started_locked(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t t;
	bool ok;

	if (u.owner)
		return true;
	if (pthread_attr_init(&attr) != 0)
		return false;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ok = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
	     pthread_create(&t, &attr, unmapper, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (ok)
		__atomic_store_n(&u.owner, getpid(), __ATOMIC_RELEASE);
	return ok;
}

/* Whether this process may use the thread: a forked child's copy of u (its lock perhaps
 * copied held) is never touched. */
static bool mine(void)
{
	pid_t owner = __atomic_load_n(&u.owner, __ATOMIC_ACQUIRE);

	return owner == 0 || owner == getpid();
}

void unmap_later(void *p, size_t bytes)
{
	bool queued = false;

	if (!p)
		return;
	if (bytes >= LATER_MIN && mine() && madvise(p, bytes, MADV_DONTFORK) == 0) {
		pthread_mutex_lock(&u.lock);
		if (u.count < QUEUE && started_locked()) {
			u.q[(u.head + u.count) % QUEUE] = (struct mapping){p, bytes};
			u.count++;
			queued = true;
			pthread_cond_signal(&u.work);
		}
		pthread_mutex_unlock(&u.lock);
	}
	if (!queued)
		munmap(p, bytes);
}

void unmap_wait(void)
{
	if (!__atomic_load_n(&u.owner, __ATOMIC_ACQUIRE) || !mine())
		return;
	pthread_mutex_lock(&u.lock);
	while (u.count || u.busy)
		pthread_cond_wait(&u.idle, &u.lock);
	pthread_mutex_unlock(&u.lock);
}
