/*
 * Parsed files kept for the life of the process, so that a batch repeating a step does not
 * read and parse its executable, flow-model and kernel source at every step. An entry is
 * used only while every file it was read from is unchanged (with a kernel's headers, and
 * every place an include was looked for in vain, which must stay absent: runtime/includes.h)
 * (device, inode, size, mtime and ctime with nanoseconds), checked once per command: an edited
 * kernel is read again by the next command, never served stale. From an entry's second check on,
 * its files are watched (util/filewatch.h) and the check is one read of the kernel's change notices
 * while none came; files that cannot be watched are stat'ed at every command. Entries are
 * immutable; a changed file gets a new entry and the old one stays valid for whoever still uses it.
 */
#ifndef CARSH_MODEL_FILECACHE_H
#define CARSH_MODEL_FILECACHE_H

#include <stdbool.h>
#include <sys/stat.h>

#include "model/batch.h"
#include "model/exe.h"

/* The root element's name ("CarshExe", ...); owned by the cache. */
const char *filecache_root(const char *path, struct cs_err *e);
/* Whether path is an executable of one job: a flow-model or a CarshExe (not a batch or a
 * graph); false also when it cannot be read. */
bool filecache_is_executable(const char *path);
/* A <FlowModel> file, as flowmodel_read; owned by the cache. */
const struct flowmodel *filecache_flowmodel(const char *path, struct cs_err *e);
/* A <CarshExe> file, as exe_read; owned by the cache. */
const struct exe *filecache_exe(const char *path, struct cs_err *e);
/* A <CarshBat> file, as batch_read; owned by the cache. *file: the file's stat as the cache
 * last found it unchanged (this command), st_ino 0 for one read from a stream. */
const struct batch *filecache_batch(const char *path, struct stat *file, struct cs_err *e);
/* A new command starts: entries are checked against their files again (once each per
 * generation; a batch repeating a step does not stat its files at every step). Also after
 * the working directory changed. */
void filecache_new_generation(void);
/* Free every entry (at exit, after the last job). */
void filecache_clear(void);

#endif
