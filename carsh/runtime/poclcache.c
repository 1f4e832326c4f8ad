/* Why PoCL's kernel cache cannot be made (poclcache.h). */
#include "runtime/poclcache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/pocltemp.h"

int rt_pocl_cache_unfit(char *buf, size_t n)
{
	char *path = rt_pocl_kcache_dir(), *slash;
	struct stat st;
	int unfit = 0;

	/* From the cache's folder up: the first part that exists decides. */
	while (path && path[0] && !unfit) {
		if (stat(path, &st) == 0) {
			if (!S_ISDIR(st.st_mode)) {
				snprintf(buf, n, "'%s' is not a directory", path);
				unfit = 1;
			}
			break;
		}
		slash = strrchr(path, '/');
		if (!slash || slash == path)
			break;
		*slash = '\0';
	}
	free(path);
	return unfit;
}
