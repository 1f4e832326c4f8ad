/*
 * The persistent program binary cache (DESIGN §5): $XDG_CACHE_HOME/carsh (else
 * ~/.cache/carsh), one file per key. The key holds device, driver, build options and the
 * source itself with the contents of every file it includes; a file is used only when its stored
 * key equals the wanted key exactly and its checksum matches, so a changed input never reuses a
 * stale binary and a corrupt file is treated as a miss (and rebuilt). CARSH_NO_CACHE=1 disables the
 * cache.
 */
#ifndef CARSH_RUNTIME_CACHE_H
#define CARSH_RUNTIME_CACHE_H

#include <stddef.h>

#include "util/error.h"

/* The cache directory, created if needed; NULL when disabled or unusable. Free it. */
char *cache_dir(void);
/* The path of the file name in the cache directory; NULL as for cache_dir. Free it. */
char *cache_file(const char *name);

/* The key text for a build; includes: the digest of the files the source includes
 * (runtime/includes.h), NULL for none. Free it. */
char *cache_key(const char *platform_version, const char *device_name, const char *device_version,
                const char *driver_version, const char *options, const char *source,
                const char *includes);

/* 0 and a malloc'ed binary on a hit; 1 on a miss (absent, corrupt, other key). */
int cache_load(const char *dir, const char *key, unsigned char **bin, size_t *len);

/* Store atomically (temporary file + rename). Failure to store is not fatal for a run:
 * callers may ignore the error. */
int cache_store(const char *dir, const char *key, const unsigned char *bin, size_t len,
                struct cs_err *e);

/*
 * Builds are serialized across processes: PoCL's own kernel cache ($XDG_CACHE_HOME/pocl) is
 * not safe when several processes build at once (pocl/pocl#430; seen here as "unable to
 * rename temporary .../kcache/tempfile_..." and a failed build), and carsh runs flow-models
 * in concurrent processes by design. Returns a descriptor holding an flock on
 * $XDG_CACHE_HOME/carsh-build.lock (else ~/.cache/...), or -1 when no lock could be had, in
 * which case the build goes ahead unserialized.
 */
int cache_build_lock(void);
/* The same lock shared, for removing what the drivers' start left (runtime/pocltemp.h):
 * those go on side by side, and none while a build runs. Waits 2 s at most for a build to
 * end; -1 then, or when no lock could be had. Released by cache_build_unlock. */
int cache_start_lock(void);
void cache_build_unlock(int fd);

/* The file a key is stored in (for tests and `help cache`). Free it. */
char *cache_file_for(const char *dir, const char *key);

#endif
