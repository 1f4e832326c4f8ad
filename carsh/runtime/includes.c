/* The include files of a kernel's source (runtime/includes.h). */
#include "runtime/includes.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/hash.h"
#include "util/path.h"
#include "util/strbuf.h"

/* Deeper or wider than any real kernel: past it, the includes are "unknown". */
#define DEPTH_MAX 32
#define FILES_MAX 512

struct scan {
	char cwd[PATH_MAX];
	char **dirs; /* the -I folders, absolute */
	size_t ndirs;
	struct rt_includes *inc;
	char **found; /* the files taken, so that each is read once */
	size_t nfound;
	bool unknown;
	char why[PATH_MAX + 64];
};

/* A regular file's whole contents (NUL-terminated), or NULL. */
static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *buf;

	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
	    (uint64_t)st.st_size >= SIZE_MAX) {
		fclose(f);
		return NULL;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	*len = fread(buf, 1, (size_t)st.st_size, f);
	if (ferror(f) || *len != (size_t)st.st_size) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f); /* read-only: nothing a failed close could lose */
	buf[*len] = '\0';
	return buf;
}

static char *absolute(const struct scan *s, const char *dir)
{
	return path_join(s->cwd[0] ? s->cwd : NULL, dir);
}

/* The -I folders of the options, "-I DIR" or "-IDIR", split at white space as drivers do. */
static void option_dirs(struct scan *s, const char *options)
{
	const char *p = options ? options : "";

	while (*p) {
		size_t n;
		char *dir;

		p += strspn(p, " \t\r\n");
		n = strcspn(p, " \t\r\n");
		if (n < 2 || strncmp(p, "-I", 2) != 0) {
			p += n;
			continue;
		}
		if (n == 2) { /* the folder is the next word */
			p += n;
			p += strspn(p, " \t\r\n");
			n = strcspn(p, " \t\r\n");
			dir = xstrndup(p, n);
		} else {
			dir = xstrndup(p + 2, n - 2);
		}
		p += n;
		if (!*dir) {
			free(dir);
			continue;
		}
		s->dirs = xrealloc(s->dirs, (s->ndirs + 1) * sizeof(*s->dirs));
		s->dirs[s->ndirs++] = absolute(s, dir);
		free(dir);
	}
}

static bool listed(char *const *list, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], path) == 0)
			return true;
	return false;
}

static void scan_text(struct scan *s, const char *text, const char *dir, int depth);

/* One place NAME may be found: remembered; followed when a file is there. */
static void try_place(struct scan *s, char *path, int depth)
{
	struct rt_includes *inc = s->inc;
	struct strbuf sb = STRBUF_INIT;
	size_t len;
	char *text, *dir;

	if (!listed(inc->paths, inc->npaths, path)) {
		inc->paths = xrealloc(inc->paths, (inc->npaths + 1) * sizeof(*inc->paths));
		inc->paths[inc->npaths++] = xstrdup(path);
	}
	if (listed(s->found, s->nfound, path) || !(text = read_file(path, &len))) {
		free(path);
		return;
	}
	if (s->nfound == FILES_MAX) {
		s->unknown = true;
		snprintf(s->why, sizeof(s->why), "more than %d include files", FILES_MAX);
		free(text);
		free(path);
		return;
	}
	s->found = xrealloc(s->found, (s->nfound + 1) * sizeof(*s->found));
	s->found[s->nfound++] = path;
	sb_adds(&sb, inc->digest);
	sb_addf(&sb, "%zu %016llx %s\n", len, (unsigned long long)fnv64(FNV64_INIT, text, len),
	        path);
	free(inc->digest);
	inc->digest = sb_detach(&sb);
	dir = path_dirname(path);
	scan_text(s, text, dir, depth + 1);
	free(dir);
	free(text);
}

static void follow(struct scan *s, const char *name, const char *dir, int depth)
{
	if (depth >= DEPTH_MAX) {
		s->unknown = true;
		snprintf(s->why, sizeof(s->why), "includes nested deeper than %d", DEPTH_MAX);
		return;
	}
	if (path_is_abs(name)) {
		try_place(s, xstrdup(name), depth);
		return;
	}
	try_place(s, path_join(dir, name), depth);
	if (s->cwd[0] && strcmp(dir, s->cwd) != 0)
		try_place(s, path_join(s->cwd, name), depth);
	for (size_t i = 0; i < s->ndirs; i++)
		try_place(s, path_join(s->dirs[i], name), depth);
}

/* The NAME of an include line at p (after "#include"), or NULL for a macro. */
static char *include_name(const char *p)
{
	char close;
	size_t n;

	p += strspn(p, " \t");
	if (*p != '"' && *p != '<')
		return NULL;
	close = *p == '"' ? '"' : '>';
	n = strcspn(p + 1, close == '"' ? "\"\n" : ">\n");
	if (p[1 + n] != close || n == 0)
		return NULL;
	return xstrndup(p + 1, n);
}

static void scan_text(struct scan *s, const char *text, const char *dir, int depth)
{
	for (const char *p = text; *p && !s->unknown;) {
		const char *line = p + strspn(p, " \t");
		size_t n = strcspn(p, "\n");
		char *name;

		p += n + (p[n] == '\n');
		if (*line != '#')
			continue;
		line += 1 + strspn(line + 1, " \t");
		if (strncmp(line, "include", 7) != 0 || isalnum((unsigned char)line[7]) ||
		    line[7] == '_')
			continue;
		name = include_name(line + 7);
		if (!name) {
			s->unknown = true;
			snprintf(s->why, sizeof(s->why), "#include%.*s",
			         (int)strcspn(line + 7, "\n"), line + 7);
			return;
		}
		follow(s, name, dir, depth);
		free(name);
	}
}

void rt_includes_scan(const char *source, const char *options, struct rt_includes *inc)
{
	struct scan s = {.inc = inc};

	memset(inc, 0, sizeof(*inc));
	inc->digest = xstrdup("");
	if (!strstr(source, "include"))
		return; /* the common case, at the cost of one search */
	if (!getcwd(s.cwd, sizeof(s.cwd)))
		s.cwd[0] = '\0';
	option_dirs(&s, options);
	scan_text(&s, source, s.cwd[0] ? s.cwd : ".", 0);
	if (s.unknown) {
		free(inc->digest);
		inc->digest = xasprintf("unknown (%s)\n", s.why);
	}
	for (size_t i = 0; i < s.ndirs; i++)
		free(s.dirs[i]);
	free(s.dirs);
	for (size_t i = 0; i < s.nfound; i++)
		free(s.found[i]);
	free(s.found);
}

void rt_includes_free(struct rt_includes *inc)
{
	for (size_t i = 0; i < inc->npaths; i++)
		free(inc->paths[i]);
	free(inc->paths);
	free(inc->digest);
	memset(inc, 0, sizeof(*inc));
}

bool rt_includes_known(const char *digest)
{
	return !digest || strncmp(digest, "unknown", 7) != 0;
}

bool rt_includes_unchanged(const char *digest)
{
	if (!rt_includes_known(digest))
		return false;
	for (const char *p = digest ? digest : ""; *p;) {
		size_t n = strcspn(p, "\n"), size, len;
		unsigned long long hash;
		int at = 0;
		char *path, *text;
		bool same;

		if (sscanf(p, "%zu %llx %n", &size, &hash, &at) != 2 || at == 0 || (size_t)at >= n)
			return false;
		path = xstrndup(p + at, n - (size_t)at);
		text = read_file(path, &len);
		same = text && len == size && fnv64(FNV64_INIT, text, len) == hash;
		free(text);
		free(path);
		if (!same)
			return false;
		p += n + (p[n] == '\n');
	}
	return true;
}
