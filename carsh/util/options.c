/* The builtins' option parser (options.h says what it accepts and how it fails). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/options.h"
#include "util/alloc.h"
#include "util/strbuf.h"

/* --help's column for the help text: names with their value up to this long stay on the
 * line, longer ones put the help on the next. */
#define HELP_NAME_MAX 18

int opt_uint(const char *v, double max, unsigned long long *out, struct cs_err *e)
{
	char *end;
	unsigned long long n;
	double x;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (v[0] >= '0' && v[0] <= '9' && !*end && !errno && n >= 1 && (double)n <= max) {
		*out = n;
		return 0;
	}
	/* A number in range with a fraction is refused for the fraction alone. */
	x = strtod(v, &end);
	if (end != v && !*end && x > 0 && x <= max)
		return err_set(e, "expected a whole number");
	return err_set(e, "expected a number above 0, at most %.0f", max);
}

int opt_real(const char *v, double max, double *out, struct cs_err *e)
{
	char *end;
	double x = strtod(v, &end);

	if (end == v || *end || !(x > 0 && x <= max))
		return err_set(e, "expected a number above 0, at most %g", max);
	*out = x;
	return 0;
}

int opt_percent(const char *v, double *fraction, struct cs_err *e)
{
	char *end;
	double p = strtod(v, &end);

	if (end == v || (*end && strcmp(end, "%") != 0) || !(p >= 0 && p <= 100))
		return err_set(e, "expected a percentage from 0 to 100");
	*fraction = p / 100.0;
	return 0;
}

/* "expected a, b or c" */
int opt_choice(const char *v, const char *const *choices, int *out, struct cs_err *e)
{
	struct strbuf sb = STRBUF_INIT;
	int n = 0;

	for (; choices[n]; n++)
		if (strcmp(v, choices[n]) == 0) {
			*out = n;
			return 0;
		}
	for (int i = 0; i < n; i++)
		sb_addf(&sb, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", choices[i]);
	err_set(e, "expected %s", sb_str(&sb));
	sb_free(&sb);
	return -1;
}

/* Store a value the option accepts; on a bad one, e says what was expected. */
static int store(const struct opt *o, void *args, const char *v, struct cs_err *e)
{
	char *field = (char *)args + o->offset;
	unsigned long long n;

	switch (o->type) {
	case OPT_TYPE_FLAG:
		*(bool *)field = true;
		return 0;
	case OPT_TYPE_STRING:
		*(const char **)field = v;
		return 0;
	case OPT_TYPE_UINT:
		if (opt_uint(v, o->max, &n, e))
			return -1;
		if (o->size == sizeof(unsigned))
			*(unsigned *)field = (unsigned)n;
		else
			*(unsigned long long *)field = n;
		return 0;
	case OPT_TYPE_REAL:
		return opt_real(v, o->max, (double *)field, e);
	case OPT_TYPE_PERCENT:
		return opt_percent(v, (double *)field, e);
	case OPT_TYPE_CHOICE:
		return opt_choice(v, o->choices, (int *)field, e);
	case OPT_TYPE_CALL:
		return o->call(args, v, e);
	}
	return 0;
}

static const struct opt *find(const struct opt *opts, const char *name, size_t len)
{
	for (; opts->name; opts++)
		if (strlen(opts->name) == len && strncmp(opts->name, name, len) == 0)
			return opts;
	return NULL;
}

/* One option word (and its value, from "--name=value" or the next word); *used: the words
 * it took. Returns 0, OPT_HELP or -1. */
static int take_option(const struct opt_cmd *oc, void *args, const char *word, const char *next,
                       int *used, struct cs_err *e)
{
	const char *eq = word[1] == '-' ? strchr(word, '=') : NULL;
	size_t len = eq ? (size_t)(eq - word) : strlen(word);
	const struct opt *o = find(oc->opts, word, len);
	const char *v = eq ? eq + 1 : next;

	*used = 1;
	if (!o && len == 6 && strncmp(word, "--help", 6) == 0)
		return OPT_HELP;
	if (!o)
		return err_set(e, "%s: unknown option '%.*s'; usage: %s", oc->name, (int)len, word,
		               oc->usage);
	if (o->type == OPT_TYPE_FLAG && eq)
		return err_set(e, "%s: %s takes no value; usage: %s", oc->name, o->name, oc->usage);
	if (o->type != OPT_TYPE_FLAG && !v)
		return err_set(e,
		               oc->flags & OPT_SAY_NEEDS_VALUE ? "%s: %s needs a value; usage: %s"
		                                               : "%s: missing value after '%s'; "
		                                                 "usage: %s",
		               oc->name, o->name, oc->usage);
	if (o->type != OPT_TYPE_FLAG && !eq)
		*used = 2;
	if (store(o, args, v, e))
		return err_prefix(e, "%s: %s '%s': ", oc->name, o->name, v);
	return 0;
}

/* "-" and "-:FORMAT" (standard input or output in a format, data/datafile.h) are operands,
 * and so is a negative number ("repeat -1 ..." is refused for its count, not as an option). */
static bool is_option(const char *w)
{
	return w[0] == '-' && w[1] != '\0' && w[1] != ':' && !(w[1] >= '0' && w[1] <= '9');
}

/* The template's count of operands; argc > 0: words were given (options, say). */
static int count_operands(const struct opt_cmd *oc, int argc, int n, char **words, struct cs_err *e)
{
	if (n < oc->min && oc->operand && argc > 0)
		return err_set(e, "%s: no %s given; usage: %s", oc->name, oc->operand, oc->usage);
	if (oc->max != OPT_ANY && n > oc->max && oc->operand)
		return err_set(e, "%s: one %s at a time, not also '%s'; usage: %s", oc->name,
		               oc->operand, words[oc->max], oc->usage);
	if (n < oc->min || (oc->max != OPT_ANY && n > oc->max))
		return err_set(e, "usage: %s", oc->usage);
	return 0;
}

int opt_parse(const struct opt_cmd *oc, void *args, int argc, char **argv, char ***operands,
              struct cs_err *e)
{
	char **words = xcalloc((size_t)argc + 1, sizeof(char *));
	bool options_end = false;
	int n = 0;

	for (int i = 0; i < argc; i++) {
		int used, rc;

		if (options_end || !oc->opts || !is_option(argv[i])) {
			words[n++] = argv[i];
			options_end = options_end || (oc->flags & OPT_STOP_AT_OPERAND);
			continue;
		}
		if (strcmp(argv[i], "--") == 0) {
			options_end = true;
			continue;
		}
		rc = take_option(oc, args, argv[i], i + 1 < argc ? argv[i + 1] : NULL, &used, e);
		if (rc) {
			free(words);
			*operands = NULL;
			return rc;
		}
		i += used - 1;
	}
	if (count_operands(oc, argc, n, words, e)) {
		free(words);
		*operands = NULL;
		return -1;
	}
	*operands = words;
	return n;
}

/* Each line of text after the first indented to col. */
static void put_indented(FILE *f, const char *text, int col)
{
	for (const char *nl; (nl = strchr(text, '\n')); text = nl + 1)
		fprintf(f, "%.*s\n%*s", (int)(nl - text), text, col, "");
	fprintf(f, "%s\n", text);
}

void opt_help(FILE *f, const struct opt_cmd *oc)
{
	int width = 0;
	char left[64];

	fprintf(f, "usage: %s\n", oc->usage);
	if (oc->about)
		fprintf(f, "%s\n", oc->about);
	for (const struct opt *o = oc->opts; o && o->name; o++) {
		int len = snprintf(left, sizeof(left), "%s%s%s", o->name, o->arg ? " " : "",
		                   o->arg ? o->arg : "");

		if (len <= HELP_NAME_MAX && len > width)
			width = len;
	}
	for (const struct opt *o = oc->opts; o && o->name; o++) {
		int len = snprintf(left, sizeof(left), "%s%s%s", o->name, o->arg ? " " : "",
		                   o->arg ? o->arg : "");

		if (len > width)
			fprintf(f, "  %s\n%*s", left, width + 4, "");
		else
			fprintf(f, "  %-*s  ", width, left);
		put_indented(f, o->help, width + 4);
	}
	if (oc->more)
		fprintf(f, "%s\n", oc->more);
}

int opt_failed(int rc, const struct opt_cmd *oc, FILE *out)
{
	if (rc != OPT_HELP)
		return 2;
	opt_help(out, oc);
	return 0;
}
