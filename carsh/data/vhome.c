/* Where each virtual buffer's current data is (data/vhome.h). */
#include "data/vhome.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/hash.h"

struct home {
	char *shm;
	uint64_t key; /* shm's hash, compared before shm */
	struct vhome_state st;
	struct home *next;
};

struct vhome {
	pthread_mutex_t lock;
	struct home *head;
	/* How many are LOST (written under the lock, read without it): a check with none
	 * lost takes no lock (the thread executor asks before every job). */
	size_t nlost;
};

/* Lock held: o's state becomes where. */
static void set_where(struct vhome *h, struct home *o, enum vhome_where where)
{
	size_t n = h->nlost;

	if (o->st.where == VHOME_LOST)
		n--;
	if (where == VHOME_LOST)
		n++;
	o->st.where = where;
	__atomic_store_n(&h->nlost, n, __ATOMIC_RELEASE);
}

struct vhome *vhome_new(void)
{
	struct vhome *h = xcalloc(1, sizeof(*h));

	pthread_mutex_init(&h->lock, NULL);
	return h;
}

void vhome_free(struct vhome *h)
{
	if (!h)
		return;
	while (h->head) {
		struct home *o = h->head;

		h->head = o->next;
		free(o->shm);
		free(o);
	}
	pthread_mutex_destroy(&h->lock);
	free(h);
}

/* Lock held. With make, a buffer not seen yet gets its entry (in shared memory). */
static struct home *find(struct vhome *h, const char *shm, bool make)
{
	uint64_t key = fnv64(FNV64_INIT, shm, strlen(shm));
	struct home *o;

	for (o = h->head; o; o = o->next)
		if (o->key == key && strcmp(o->shm, shm) == 0)
			return o;
	if (!make)
		return NULL;
	o = xcalloc(1, sizeof(*o));
	o->shm = xstrdup(shm);
	o->key = key;
	o->st.where = VHOME_HOST;
	o->next = h->head;
	h->head = o;
	return o;
}

/* Lock held: o's state (NULL: unknown, in shared memory at generation 0) into out. */
static void get_locked(const struct home *o, struct vhome_state *out)
{
	if (o) {
		memcpy(out, &o->st, offsetof(struct vhome_state, lost));
		if (o->st.where == VHOME_LOST)
			memcpy(out->lost, o->st.lost, sizeof(out->lost));
		else
			out->lost[0] = '\0';
	} else {
		memset(out, 0, offsetof(struct vhome_state, lost) + 1);
	}
}

void vhome_get(struct vhome *h, const char *shm, struct vhome_state *out)
{
	pthread_mutex_lock(&h->lock);
	get_locked(find(h, shm, false), out);
	pthread_mutex_unlock(&h->lock);
}

int vhome_check(struct vhome *h, const char *shm, const char *name, struct cs_err *e)
{
	struct vhome_state st;

	if (__atomic_load_n(&h->nlost, __ATOMIC_ACQUIRE) == 0)
		return 0;
	vhome_get(h, shm, &st);
	if (st.where != VHOME_LOST)
		return 0;
	return err_set(e,
	               "virtual buffer '%s' was lost: %s; fill it ('virtbuf fill %s FILE') or "
	               "create it again",
	               name, st.lost, name);
}

/* Called for every buffer of every job: a bounded copy, not a formatted print. */
static void set_holder(struct home *o, uint64_t holder, const char *device)
{
	size_t n = device ? strnlen(device, sizeof(o->st.device) - 1) : 0;

	o->st.holder = holder;
	if (n) /* device may be NULL, and memcpy's source may not be, even for no bytes */
		memcpy(o->st.device, device, n);
	o->st.device[n] = '\0';
	o->st.lost[0] = '\0';
}

/* Lock held: a job on holder read o at its current generation. */
static void read_locked(struct vhome *h, struct home *o, uint64_t holder, const char *device)
{
	/* Read at the current generation: the job had it from its holder or from shared
	 * memory. A lost buffer is never read (vhome_check refuses the job first). */
	if (o->st.where == VHOME_HOST || o->st.where == VHOME_BOTH)
		set_where(h, o, VHOME_BOTH);
	else if (o->st.where == VHOME_DEVICE && o->st.holder != holder)
		set_where(h, o, VHOME_BOTH); /* written back for it: the caller made it so */
	if (o->st.where != VHOME_LOST)
		set_holder(o, holder, device);
}

void vhome_device_read(struct vhome *h, const char *shm, uint64_t holder, const char *device)
{
	pthread_mutex_lock(&h->lock);
	read_locked(h, find(h, shm, true), holder, device);
	pthread_mutex_unlock(&h->lock);
}

/* Lock held: a job on holder wrote o; its new generation. */
static uint64_t wrote_locked(struct vhome *h, struct home *o, uint64_t holder, const char *device)
{
	set_where(h, o, VHOME_DEVICE);
	o->st.uniform = 0; /* shared memory is stale, and written back it holds the job's data */
	o->st.pixels = o->st.value_only = false;
	set_holder(o, holder, device);
	return ++o->st.gen;
}

uint64_t vhome_device_wrote(struct vhome *h, const char *shm, uint64_t holder, const char *device)
{
	uint64_t gen;

	pthread_mutex_lock(&h->lock);
	gen = wrote_locked(h, find(h, shm, true), holder, device);
	pthread_mutex_unlock(&h->lock);
	return gen;
}

void vhome_device_use(struct vhome *h, const char *shm, uint64_t holder, bool wrote,
                      struct vhome_state *before)
{
	struct home *o;

	pthread_mutex_lock(&h->lock);
	o = find(h, shm, true);
	get_locked(o, before);
	if (wrote)
		(void)wrote_locked(h, o, holder, "");
	else
		read_locked(h, o, holder, "");
	pthread_mutex_unlock(&h->lock);
}

void vhome_device_failed(struct vhome *h, const char *shm, uint64_t holder, const char *how)
{
	struct home *o;

	pthread_mutex_lock(&h->lock);
	o = find(h, shm, false);
	if (o && o->st.holder == holder && o->st.where == VHOME_BOTH) {
		set_where(h, o, VHOME_HOST);
		set_holder(o, 0, NULL);
	} else if (o && o->st.holder == holder && o->st.where == VHOME_DEVICE) {
		set_where(h, o, VHOME_LOST);
		snprintf(o->st.lost, sizeof(o->st.lost),
		         "a job that failed wrote the only current copy, on a device (%s)", how);
		o->st.holder = 0;
	}
	pthread_mutex_unlock(&h->lock);
}

void vhome_host_stale(struct vhome *h, const char *shm)
{
	struct home *o;

	pthread_mutex_lock(&h->lock);
	o = find(h, shm, false);
	if (o && o->st.where == VHOME_BOTH) {
		set_where(h, o, VHOME_DEVICE);
		o->st.uniform = 0;
		o->st.pixels = o->st.value_only = false;
	}
	pthread_mutex_unlock(&h->lock);
}

void vhome_host_current(struct vhome *h, const char *shm)
{
	struct home *o;

	pthread_mutex_lock(&h->lock);
	o = find(h, shm, false);
	if (o && o->st.where == VHOME_DEVICE)
		set_where(h, o, VHOME_BOTH);
	pthread_mutex_unlock(&h->lock);
}

void vhome_host_wrote(struct vhome *h, const char *shm)
{
	struct home *o;

	pthread_mutex_lock(&h->lock);
	o = find(h, shm, false);
	if (o) {
		set_where(h, o, VHOME_HOST);
		o->st.gen++;
		o->st.uniform = 0;
		o->st.pixels = o->st.value_only = false;
		set_holder(o, 0, NULL);
	}
	pthread_mutex_unlock(&h->lock);
}

void vhome_host_pixels(struct vhome *h, const char *shm, enum scalar s)
{
	struct home *o;

	pthread_mutex_lock(&h->lock);
	o = find(h, shm, true);
	set_where(h, o, VHOME_HOST);
	o->st.gen++;
	o->st.uniform = 0;
	o->st.pixels = true;
	o->st.value_only = false;
	o->st.scalar = s;
	set_holder(o, 0, NULL);
	pthread_mutex_unlock(&h->lock);
}

void vhome_host_widened(struct vhome *h, const char *shm)
{
	struct home *o;

	pthread_mutex_lock(&h->lock);
	o = find(h, shm, false);
	if (o)
		o->st.pixels = false;
	pthread_mutex_unlock(&h->lock);
}

static void filled(struct vhome *h, const char *shm, const void *value, size_t size,
                   bool value_only)
{
	struct home *o;

	pthread_mutex_lock(&h->lock);
	o = find(h, shm, true);
	set_where(h, o, VHOME_HOST);
	o->st.gen++;
	set_holder(o, 0, NULL);
	o->st.pixels = false;
	o->st.uniform = size <= sizeof(o->st.value) ? size : 0;
	o->st.value_only = value_only && o->st.uniform;
	if (o->st.uniform)
		memcpy(o->st.value, value, o->st.uniform);
	pthread_mutex_unlock(&h->lock);
}

void vhome_host_filled(struct vhome *h, const char *shm, const void *value, size_t size)
{
	filled(h, shm, value, size, false);
}

void vhome_host_valued(struct vhome *h, const char *shm, const void *value, size_t size)
{
	filled(h, shm, value, size, true);
}

void vhome_host_value_written(struct vhome *h, const char *shm)
{
	struct home *o;

	pthread_mutex_lock(&h->lock);
	o = find(h, shm, false);
	if (o)
		o->st.value_only = false;
	pthread_mutex_unlock(&h->lock);
}

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

bool vhome_holds_value(struct vhome *h, const char *shm, const void *value, size_t size)
{
	struct home *o;
	bool same = false;

	pthread_mutex_lock(&h->lock);
	o = find(h, shm, false);
	if (o && o->st.uniform && !o->st.value_only &&
	    (o->st.where == VHOME_HOST || o->st.where == VHOME_BOTH))
		same = (o->st.uniform == size && memcmp(o->st.value, value, size) == 0) ||
		       (all_zero(o->st.value, o->st.uniform) && all_zero(value, size));
	pthread_mutex_unlock(&h->lock);
	return same;
}

size_t vhome_holder_ended(struct vhome *h, uint64_t holder, const char *how)
{
	size_t lost = 0;

	pthread_mutex_lock(&h->lock);
	for (struct home *o = h->head; o; o = o->next) {
		if (holder == 0 || o->st.holder != holder)
			continue;
		if (o->st.where == VHOME_DEVICE) {
			set_where(h, o, VHOME_LOST);
			snprintf(o->st.lost, sizeof(o->st.lost),
			         "its newest data was on the device of a worker that ended (%s)",
			         how);
			lost++;
		} else if (o->st.where == VHOME_BOTH) {
			set_where(h, o, VHOME_HOST);
		}
		o->st.holder = 0;
		o->st.device[0] = '\0';
	}
	pthread_mutex_unlock(&h->lock);
	return lost;
}

void vhome_restore(struct vhome *h, const char *shm, const struct vhome_state *st)
{
	struct home *o;

	pthread_mutex_lock(&h->lock);
	o = find(h, shm, true);
	set_where(h, o, st->where);
	o->st = *st;
	pthread_mutex_unlock(&h->lock);
}

void vhome_forget(struct vhome *h, const char *shm)
{
	struct home **pp, *o = NULL;

	pthread_mutex_lock(&h->lock);
	for (pp = &h->head; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->shm, shm) == 0) {
			o = *pp;
			set_where(h, o, VHOME_HOST);
			*pp = o->next;
			break;
		}
	pthread_mutex_unlock(&h->lock);
	if (o) {
		free(o->shm);
		free(o);
	}
}

size_t vhome_on_devices(struct vhome *h, char ***shms)
{
	size_t n = 0, cap = 0;

	*shms = NULL;
	pthread_mutex_lock(&h->lock);
	for (struct home *o = h->head; o; o = o->next) {
		if (o->st.where != VHOME_DEVICE && !o->st.pixels && !o->st.value_only)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			*shms = xrealloc(*shms, cap * sizeof(**shms));
		}
		(*shms)[n++] = xstrdup(o->shm);
	}
	pthread_mutex_unlock(&h->lock);
	return n;
}
