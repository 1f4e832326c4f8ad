/* A readers-writer gate for PoCL CPU launches (see launchguard.h). */
#include "runtime/launchguard.h"

#include <pthread.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"

/* The widest launch at a non-zero offset so far of each kernel and local size, for the
 * process: PoCL's variants live as long as the process. */
struct widest {
	uint64_t key;
	size_t local, width;
	const void *device; /* the device of the last launch that ran alone */
	struct widest *next;
};

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_open = PTHREAD_COND_INITIALIZER;
static unsigned running, waiting_alone;
static bool alone_running;
static struct widest *widest_list;

bool rt_launch_guard_needed(const struct rt_devinfo *dev)
{
	for (const char *p = dev->platform_version; *p; p++)
		if (strncasecmp(p, "pocl", 4) == 0)
			return true;
	return false;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return (h ^ 0xff) * 1099511628211u; /* a separator: "ab","c" differs from "a","bc" */
}

uint64_t rt_launch_key(const char *kernel, const char *source, const char *options)
{
	return fnv1a(fnv1a(fnv1a(14695981039346656037u, kernel), source), options);
}

/* The kernel's widest launch so far; called with gate_lock held. */
static struct widest *widest_of(uint64_t key, size_t local)
{
	struct widest *w;

	for (w = widest_list; w; w = w->next)
		if (w->key == key && w->local == local)
			return w;
	w = xcalloc(1, sizeof(*w));
	w->key = key;
	w->local = local;
	w->next = widest_list;
	widest_list = w;
	return w;
}

/* The widest of the pieces at a non-zero offset (0: none). */
static size_t nonzero_width(size_t offset, size_t count, size_t piece)
{
	if (offset > 0)
		return count < piece ? count : piece;
	if (count <= piece)
		return 0;
	return count - piece < piece ? count - piece : piece;
}

bool rt_launch_enter(uint64_t key, const void *device, size_t local, size_t offset, size_t count,
                     size_t piece)
{
	size_t width = nonzero_width(offset, count, piece);
	struct widest *w;
	bool alone;

	pthread_mutex_lock(&gate_lock);
	w = widest_of(key, local);
	/* Another PoCL device compiles variants of its own: a launch there while this one's run
	 * is the same hazard as a second variant (tests/shell/partition-mgpu.sh, where PoCL
	 * devices stand in for two GPUs, aborted in 2 of 5 full suites under load). */
	alone = offset == 0 || width > w->width || device != w->device;
	if (alone) {
		/* Waiting launches that must run alone hold the others back, so that a stream of
		 * shared launches cannot starve them. */
		waiting_alone++;
		while (alone_running || running > 0)
			pthread_cond_wait(&gate_open, &gate_lock);
		waiting_alone--;
		alone_running = true;
		if (width > w->width)
			w->width = width;
		w->device = device;
	} else {
		while (alone_running || waiting_alone > 0)
			pthread_cond_wait(&gate_open, &gate_lock);
		running++;
	}
	pthread_mutex_unlock(&gate_lock);
	return alone;
}

size_t rt_launch_widest(uint64_t key, size_t local)
{
	size_t w;

	pthread_mutex_lock(&gate_lock);
	w = widest_of(key, local)->width;
	pthread_mutex_unlock(&gate_lock);
	return w;
}

void rt_launch_leave(bool alone)
{
	pthread_mutex_lock(&gate_lock);
	if (alone)
		alone_running = false;
	else
		running--;
	pthread_cond_broadcast(&gate_open);
	pthread_mutex_unlock(&gate_lock);
}
