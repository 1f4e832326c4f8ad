/* Whether the disk of PoCL's kernel cache is full (runtime/cachedisk.h). */
#include "runtime/cachedisk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "runtime/pocltemp.h"
#include "util/alloc.h"

/* Less than this is no room for a build: PoCL writes the source, LLVM bitcode and a shared
 * object of tens to hundreds of KiB per program. */
#define ROOM_MIN (1024 * 1024)

/* The free bytes of dir's file system, from its nearest existing folder; -1 unknown. */
static long long free_bytes(char *dir)
{
	struct statvfs sv;

	for (;;) {
		char *slash;

		if (statvfs(dir, &sv) == 0)
			return (long long)sv.f_bavail * (long long)sv.f_frsize;
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return -1;
		*slash = '\0';
	}
}

bool rt_kcache_disk_full(char *note, size_t n)
{
	char *dir = rt_pocl_kcache_dir();
	char *shown;
	long long left;

	if (!dir)
		return false;
	shown = xstrdup(dir);
	left = free_bytes(dir);
	if (left >= 0 && left < ROOM_MIN)
		snprintf(note, n,
		         "the disk of PoCL's kernel cache %s is full (%lld KiB free): free space "
		         "there, or point POCL_CACHE_DIR (or XDG_CACHE_HOME) to a disk with room",
		         shown, left / 1024);
	free(shown);
	free(dir);
	return left >= 0 && left < ROOM_MIN;
}
