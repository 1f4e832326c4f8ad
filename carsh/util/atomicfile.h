/*
 * Writing a file so that a failure never leaves it half-written: a regular or new file is
 * written to a temporary file in the same directory and renamed over it (an existing file
 * keeps its permission bits; a symbolic link keeps pointing at the replaced file). A file
 * of several hard links is written to the temporary file and then copied over in place, so
 * that every name keeps seeing it. Devices and FIFOs are written in place; "-" is standard
 * output.
 */
#ifndef CARSH_UTIL_ATOMICFILE_H
#define CARSH_UTIL_ATOMICFILE_H

#include <stdio.h>

#include "util/error.h"

/* Writes the contents to f (name is for messages); 0 or -1 with e set. */
typedef int (*file_writer)(FILE *f, const char *name, void *arg, struct cs_err *e);

/* An existing regular file is replaced only where this process may write it: a
 * write-protected file (mode 0444, or another user's) is refused as cp(1) refuses it,
 * although the rename would succeed. Root may write anything, and gets it replaced. */
int atomic_write(const char *path, file_writer writer, void *arg, struct cs_err *e);

/* The check atomic_write makes first, for callers that want to refuse before the work that
 * produces the contents: 0, or -1 with "y.csv: the file is write-protected ...". */
int atomic_writable(const char *path, struct cs_err *e);

/* A whole text. */
int atomic_write_text(const char *path, const char *text, struct cs_err *e);

/* A writer's last step, also where f is standard output and nothing closes it: flush f and
 * report any write that failed on it ("x.csv: write error"). */
int file_flush(FILE *f, const char *name, struct cs_err *e);

/*
 * Temporary files being written, so that a process told to stop removes them: the master's
 * signal thread calls temp_remove_all before it exits, and a job's process removes its own
 * from a handler (temp_remove_on_signals). Paths are kept absolute, in a fixed table that
 * needs no lock and no allocation to walk. A temporary file that does not fit in the table
 * is still written, only not tracked.
 */
int temp_track(const char *path); /* a slot for temp_untrack, or -1 */
void temp_untrack(int slot);

/* Unlink every tracked temporary file. Async-signal-safe. */
void temp_remove_all(void);

/* In a process that ends on SIGINT, SIGTERM or SIGHUP (a job's): remove the tracked files
 * first, then end by the same signal, so that the parent sees the same status. */
void temp_remove_on_signals(void);

#endif
