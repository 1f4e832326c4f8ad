/* A flow-model's build options with its include folders made absolute (model/buildopts.h). */
#include "model/buildopts.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/path.h"
#include "util/strbuf.h"

#define SPACE " \t\r\n"

/* Whether a line of source is an `#include "..."` (or an `#include MACRO`, which may be
 * one): the kind that looks in the includer's folder, which for the kernel itself only
 * -I<kernel folder> gives. */
static bool includes_local(const char *source)
{
	for (const char *p = source; *p;) {
		const char *s = p + strspn(p, " \t");
		size_t n = strcspn(p, "\n");

		p += n + (p[n] == '\n');
		if (*s != '#')
			continue;
		s += 1 + strspn(s + 1, " \t");
		if (strncmp(s, "include", 7) == 0 && (s[7] == ' ' || s[7] == '\t' || s[7] == '"') &&
		    s[7 + strspn(s + 7, " \t")] != '<')
			return true;
	}
	return false;
}

static int add_dir(struct strbuf *sb, const char *dir, const char *why, struct cs_err *e)
{
	if (dir[strcspn(dir, SPACE)])
		return err_set(e,
		               "%s: the folder '%s' holds white space, which OpenCL build options "
		               "cannot carry; move the kernel's files to a folder without it",
		               why, dir);
	sb_addf(sb, "%s-I%s", sb->len ? " " : "", dir);
	return 0;
}

/* The options, each relative -I folder joined to kernel_dir, the rest as written. */
static int rewrite(struct strbuf *sb, const char *options, const char *kernel_dir, struct cs_err *e)
{
	for (const char *p = options; *p;) {
		size_t n;
		char *word, *dir;
		int rc;

		p += strspn(p, SPACE);
		n = strcspn(p, SPACE);
		if (n == 0)
			break;
		word = xstrndup(p, n);
		p += n;
		if (strcmp(word, "-I") == 0 && *(p + strspn(p, SPACE))) {
			free(word);
			p += strspn(p, SPACE);
			n = strcspn(p, SPACE);
			word = xasprintf("-I%.*s", (int)n, p);
			p += n;
		}
		if (strncmp(word, "-I", 2) != 0 || !word[2]) {
			sb_addf(sb, "%s%s", sb->len ? " " : "", word);
			free(word);
			continue;
		}
		dir = path_join(kernel_dir, word + 2);
		rc = add_dir(sb, dir, word, e);
		free(dir);
		free(word);
		if (rc)
			return -1;
	}
	return 0;
}

int buildopts_resolve(const char *options, const char *kernel_dir, const char *source, char **out,
                      struct cs_err *e)
{
	struct strbuf sb = STRBUF_INIT;
	char cwd[PATH_MAX];
	char *dir;
	int rc = 0;

	*out = NULL;
	if (path_is_abs(kernel_dir) || !getcwd(cwd, sizeof(cwd)))
		dir = xstrdup(kernel_dir);
	else
		dir = path_join(cwd, kernel_dir);
	if (includes_local(source))
		rc = add_dir(&sb, dir, "#include \"...\"", e);
	if (rc == 0)
		rc = rewrite(&sb, options, dir, e);
	free(dir);
	if (rc) {
		sb_free(&sb);
		return -1;
	}
	*out = sb.s ? sb_detach(&sb) : xstrdup("");
	return 0;
}
