#include "util/path.h"

#include <string.h>

#include "util/alloc.h"

bool path_is_abs(const char *p)
{
	return p[0] == '/';
}

bool path_is_stdio(const char *p)
{
	return p[0] == '-' && (p[1] == '\0' || p[1] == ':');
}

char *path_dirname(const char *p)
{
	const char *slash = strrchr(p, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == p)
		return xstrdup("/");
	return xstrndup(p, (size_t)(slash - p));
}

const char *path_basename(const char *p)
{
	const char *slash = strrchr(p, '/');

	return slash ? slash + 1 : p;
}

char *path_join(const char *dir, const char *rel)
{
	if (!dir || path_is_abs(rel) || path_is_stdio(rel) || strcmp(dir, ".") == 0)
		return xstrdup(rel);
	if (dir[0] && dir[strlen(dir) - 1] == '/')
		return xasprintf("%s%s", dir, rel);
	return xasprintf("%s/%s", dir, rel);
}
