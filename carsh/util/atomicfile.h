/*
 * Writing a file so that a failure never leaves it half-written: a regular or new file is
 * written to a temporary file in the same directory and renamed over it (an existing file
 * keeps its permission bits; a symbolic link keeps pointing at the replaced file). Devices
 * and FIFOs are written in place; "-" is standard output.
 */
#ifndef CARSH_UTIL_ATOMICFILE_H
#define CARSH_UTIL_ATOMICFILE_H

#include <stdio.h>

#include "util/error.h"

/* Writes the contents to f (name is for messages); 0 or -1 with e set. */
typedef int (*file_writer)(FILE *f, const char *name, void *arg, struct cs_err *e);

int atomic_write(const char *path, file_writer writer, void *arg, struct cs_err *e);

/* A whole text. */
int atomic_write_text(const char *path, const char *text, struct cs_err *e);

/* A writer's last step, also where f is standard output and nothing closes it: flush f and
 * report any write that failed on it ("x.csv: write error"). */
int file_flush(FILE *f, const char *name, struct cs_err *e);

#endif
