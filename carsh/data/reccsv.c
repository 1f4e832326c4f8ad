/* Records as CSV lines (data/reccsv.h). Struct streams are small next to numeric ones (a
 * graph's nodes, a table of points): lines are read one by one, with no fast path. */
#include "data/reccsv.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

struct rec_reader {
	const char *name;
	const struct cs_record *r;
	size_t ncomp; /* values a line */
	size_t line;
	struct cs_err *e;
};

static bool is_sep(char c)
{
	return c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_blank_line(const char *s)
{
	return s[strspn(s, " \t\r\n")] == '\0';
}

static int line_count_error(struct rec_reader *rd, size_t got)
{
	char *fields = record_field_list(rd->r);

	err_set(rd->e, "%s:%zu: %zu value%s, struct %s needs %zu a line (%s)", rd->name, rd->line,
	        got, got == 1 ? "" : "s", rd->r->name, rd->ncomp, fields);
	free(fields);
	return -1;
}

/* One value at column col (from 1) into its place in rec (NULL: only checked). */
static int parse_value(struct rec_reader *rd, const char *text, size_t col, unsigned char *rec)
{
	unsigned char scratch[8];
	size_t offset;
	const struct rec_field *f = record_component(rd->r, col - 1, &offset);

	if (number_parse(f->type.scalar, text, rec ? rec + offset : scratch, rd->e) == 0)
		return 0;
	return err_prefix(rd->e, "%s:%zu:%zu: field '%s' of struct %s: ", rd->name, rd->line, col,
	                  f->name, rd->r->name);
}

/* One line's values into rec; ',' or blanks separate them, as in numeric CSV. */
static int parse_line(struct rec_reader *rd, char *s, unsigned char *rec)
{
	size_t col = 0;
	char *p = s;

	while (*p) {
		char *end, saved;

		p += strspn(p, " \t\r\n");
		if (!*p)
			break;
		if (*p == ',')
			return err_set(
			        rd->e,
			        "%s:%zu:%zu: empty value: values are separated by one ',' or "
			        "blanks",
			        rd->name, rd->line, col + 1);
		end = p;
		while (*end && !is_sep(*end))
			end++;
		col++;
		saved = *end;
		*end = '\0';
		if (col <= rd->ncomp && parse_value(rd, p, col, rec))
			return -1;
		*end = saved;
		p = end + strspn(end, " \t\r\n");
		if (*p == ',')
			p++;
	}
	return col == rd->ncomp ? 0 : line_count_error(rd, col);
}

int reccsv_read(FILE *f, const char *name, const struct cs_record *r, void *dst, size_t n,
                size_t *found, struct cs_err *e)
{
	struct rec_reader rd = {name, r, record_components(r), 0, e};
	unsigned char *out = dst;
	size_t records = 0, cap = 0;
	char *line = NULL;
	int rc = 0;

	if (out)
		memset(out, 0, n * r->size);
	while (rc == 0 && getline(&line, &cap, f) >= 0) {
		rd.line++;
		if (is_blank_line(line))
			continue;
		if (out && records == n) {
			records++;
			break;
		}
		rc = parse_line(&rd, line, out ? out + records * r->size : NULL);
		records++;
	}
	if (rc == 0 && ferror(f))
		rc = err_errno(e, "%s", name);
	free(line);
	if (rc)
		return -1;
	if (found)
		*found = records;
	if (!out || records == n)
		return 0;
	if (records > n)
		return err_set(e,
		               "%s: more than %zu record%s, expected %zu (struct %s, one a line)",
		               name, n, n == 1 ? "" : "s", n, r->name);
	return err_set(e, "%s: %zu record%s, expected %zu (struct %s, one a line)", name, records,
	               records == 1 ? "" : "s", n, r->name);
}

/* One record's values, comma-separated, as number_format writes each scalar. */
static void write_record(FILE *f, const struct cs_record *r, const unsigned char *rec)
{
	size_t ncomp = record_components(r);
	char num[NUMBER_BUF];

	for (size_t k = 0; k < ncomp; k++) {
		size_t offset;
		const struct rec_field *fd = record_component(r, k, &offset);

		number_format(fd->type.scalar, rec + offset, num, sizeof(num));
		fputs(num, f);
		fputc(k + 1 < ncomp ? ',' : '\n', f);
	}
}

int reccsv_write(FILE *f, const char *name, const struct cs_record *r, const void *src, size_t n,
                 struct cs_err *e)
{
	const unsigned char *in = src;

	for (size_t i = 0; i < n; i++)
		write_record(f, r, in + i * r->size);
	if (ferror(f))
		return err_set(e, "%s: write error", name);
	return 0;
}
