#include "util/relpath.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/strvec.h"

/* Split at '/', dropping "" and ".", resolving ".." against what came before (and
 * dropping it at the root of an absolute path). */
static void components(const char *p, bool rooted, struct strvec *out)
{
	while (*p) {
		size_t n = strcspn(p, "/");
		bool up = n == 2 && p[0] == '.' && p[1] == '.';

		if (up && out->n && strcmp(out->v[out->n - 1], "..") != 0) {
			free(out->v[--out->n]);
			out->v[out->n] = NULL;
		} else if (up && !out->n && rooted) {
			/* "/.." is "/" */
		} else if (n && !(n == 1 && p[0] == '.')) {
			sv_push_owned(out, xstrndup(p, n));
		}
		p += n;
		p += *p == '/';
	}
}

char *path_normalise(const char *path, const char *cwd)
{
	struct strvec parts = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	bool abs = path_is_abs(path) || cwd;

	if (!path_is_abs(path) && cwd)
		components(cwd, true, &parts);
	components(path, abs, &parts);
	if (abs)
		sb_addc(&sb, '/');
	for (size_t i = 0; i < parts.n; i++)
		sb_addf(&sb, "%s%s", i ? "/" : "", parts.v[i]);
	if (!sb.len)
		sb_addc(&sb, '.');
	sv_free(&parts);
	return sb_detach(&sb);
}

char *path_relative(const char *dir, const char *path)
{
	struct strvec d = STRVEC_INIT, p = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	size_t common = 0;

	components(dir, true, &d);
	components(path, true, &p);
	while (common < d.n && common < p.n && strcmp(d.v[common], p.v[common]) == 0)
		common++;
	if (!common && d.n) { /* nothing in common but "/": the absolute path reads better */
		sv_free(&d);
		sv_free(&p);
		return xstrdup(path);
	}
	for (size_t i = common; i < d.n; i++)
		sb_adds(&sb, "../");
	for (size_t i = common; i < p.n; i++)
		sb_addf(&sb, "%s%s", i > common ? "/" : "", p.v[i]);
	if (!sb.len)
		sb_addc(&sb, '.');
	sv_free(&d);
	sv_free(&p);
	return sb_detach(&sb);
}

/* realpath() where the path exists, else the lexical absolute form. */
static char *resolve(const char *p, const char *cwd)
{
	char buf[PATH_MAX];

	if (realpath(p, buf))
		return xstrdup(buf);
	return path_normalise(p, cwd);
}

/* The file's directory resolved on disk, its name kept (the file need not exist yet). */
static char *resolve_file(const char *p, const char *cwd)
{
	char *dir = path_dirname(p), *rdir = resolve(dir, cwd);
	char *out = xasprintf("%s/%s", strcmp(rdir, "/") ? rdir : "", path_basename(p));

	free(dir);
	free(rdir);
	return out;
}

char *path_from_dir(const char *dir, const char *path)
{
	char cwd[PATH_MAX];
	char *rd, *rp, *rel;

	if (!getcwd(cwd, sizeof(cwd)))
		strcpy(cwd, "/");
	rd = resolve(dir, cwd);
	rp = resolve_file(path, cwd);
	rel = path_relative(rd, rp);
	free(rd);
	free(rp);
	return rel;
}
