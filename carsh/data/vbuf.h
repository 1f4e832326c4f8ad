/*
 * Virtual buffers (004 §3.5, DESIGN §5): named, typed POSIX shared-memory objects. The
 * master creates and deletes them; jobs map the objects they were given. Object names are
 * "/carsh-<master pid>-<random>", created O_EXCL with mode 0600, sized with ftruncate (so they
 * start zero-filled, with no page given yet: a buffer larger than the room left in /dev/shm
 * is refused), their pages reserved by their first mapping (so a /dev/shm that filled since
 * is an error there, never a SIGBUS at the first write). A table maps the user's names to objects;
 * `virtbuf swap` exchanges two names and moves no data.
 */
#ifndef CARSH_DATA_VBUF_H
#define CARSH_DATA_VBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "data/types.h"
#include "util/error.h"

struct vbuf {
	char *name; /* the user's name */
	char *shm;  /* the shared-memory object */
	struct cs_type type;
	size_t count; /* elements */
	size_t bytes;
	bool borrowed; /* another process's object (vbuf_adopt): never unlinked here */
};

/* Limits refused before anything is allocated; 0 means no limit of its own (the system
 * decides). Set from CARSH_MAX_BUFFER and CARSH_MAX_SHM (bytes, with an optional K/M/G). */
struct vbuf_limits {
	size_t max_buffer;
	size_t max_total;
};

struct vbuf_table;

struct vbuf_table *vbuf_table_new(const struct vbuf_limits *lim);
/* Unlinks every object it still holds. */
void vbuf_table_free(struct vbuf_table *t);

/* Create a zero-filled buffer (nothing written: see above). Errors: the name is taken, a bad
 * name, the size overflows or passes a limit or the room left, shm_open/ftruncate failing
 * (with the reason). */
int vbuf_create(struct vbuf_table *t, const char *name, struct cs_type type, size_t count,
                struct cs_err *e);
/* Enter an object another process made and keeps (an engine's process, runner/
 * engineproc.h, works on its shell's buffers): named, typed and counted as there, mapped
 * like any other, never unlinked by this table. Errors as vbuf_create's for the name. */
int vbuf_adopt(struct vbuf_table *t, const char *name, const char *shm, struct cs_type type,
               size_t count, struct cs_err *e);
/* Remove and unlink. Error when the name is unknown. */
int vbuf_delete(struct vbuf_table *t, const char *name, struct cs_err *e);
/* Exchange two names (no data moves). */
int vbuf_swap(struct vbuf_table *t, const char *a, const char *b, struct cs_err *e);
/* When name is a buffer of that type and count: *shm (owned, NULL allowed) is its segment
 * now, replaced only where it was another, and true; else false and *shm unchanged (a kept
 * plan's binding resolved again under one look-up). */
bool vbuf_rebind(struct vbuf_table *t, const char *name, struct cs_type type, size_t count,
                 char **shm);
/* A copy of the entry (free it with vbuf_entry_free), or -1 with "no virtual buffer 're'
 * (see 'virtbuf list')". */
int vbuf_lookup(struct vbuf_table *t, const char *name, struct vbuf *out, struct cs_err *e);
void vbuf_entry_free(struct vbuf *v);
/* Copies of every entry in name order; free each entry and the array. */
size_t vbuf_list(struct vbuf_table *t, struct vbuf **out);
/* Names of every entry (for `virtbuf delete -a`); free with free() each and the array. */
size_t vbuf_names(struct vbuf_table *t, char ***out);

/* Map an object of `bytes` bytes (read-only unless writable). A first mapping reserves the
 * object's pages: the error "N bytes do not fit in the shared memory left ..." when there is
 * no room. */
void *vbuf_map(const char *shm, size_t bytes, bool writable, struct cs_err *e);
/* The same, its pages faulted in by their first touch: for a caller that writes every page from
 * all the cores itself (a value fill), whose faults then run in parallel. */
void *vbuf_map_lazy(const char *shm, size_t bytes, bool writable, struct cs_err *e);
void vbuf_unmap(void *p, size_t bytes);
/* Write bytes bytes at the start of the object, without mapping it: for a small write, whose
 * mapping would cost more than the write. 0, or -1 with e. */
int vbuf_write(const char *shm, const void *src, size_t bytes, struct cs_err *e);
/* Fill the whole object with value (size bytes, which divide its size) repeated. 0, or -1
 * with e. */
int vbuf_fill_pattern(const char *shm, const void *value, size_t size, struct cs_err *e);
/* Private zeroed memory laid out as a mapping (an inaccessible page on each side), for a
 * CPU device's copy of a buffer: a kernel that writes past it faults as on the mapping
 * itself. Freed with vbuf_unmap. protect: read-only (while a job only reads it) or not. */
void *vbuf_guarded_alloc(size_t bytes, struct cs_err *e);
int vbuf_guarded_protect(void *p, size_t bytes, bool writable);

/* Unlink segments whose master (the pid in the name) no longer runs. Returns how many. */
int vbuf_remove_stale(void);
/* Unlink every segment named from pid: a client whose session worker was killed removes
 * what the worker made in its name. Returns how many. */
int vbuf_remove_owned(pid_t pid);
/* Name the segments this process makes from pid instead of its own: a session worker of
 * the user's server (docs/server.md) makes them in its client's name, whose they are. */
void vbuf_set_owner(pid_t pid);
/* Unlink every object of the table without taking its lock or freeing memory: for the last
 * moments of a master ended by a signal. */
void vbuf_table_unlink_all(struct vbuf_table *t);

/* Parse "64M" style sizes (K, M, G: powers of 1024). */
int vbuf_parse_size(const char *s, size_t *out);

#endif
