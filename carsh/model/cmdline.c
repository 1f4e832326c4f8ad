/*
 * The shell grammar (DESIGN §4), one command at a time. The lexer reads straight from the
 * text: each construct (quotes, backslash, ${NAME}, redirections, '&') has its own small
 * reader that appends to the current word. Variables are expanded while the word is read,
 * so an expansion is never split into words or parsed again.
 */
#include "model/cmdline.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/strbuf.h"

/* Internal result of read_command: the command had no words (e.g. only `${EMPTY}`). */
enum { PARSE_EMPTY = 2 };

struct parse {
	struct shell_lexer *lx;
	shell_var_lookup lookup;
	void *ctx;
	struct cs_err *e;
	int start_line;        /* line where the command starts, for messages and origins */
	int open_line;         /* line of the quote that made the input incomplete */
	const char *open_what; /* "single quote", "double quote" or NULL for a backslash */
};

void shell_lexer_init(struct shell_lexer *lx, const char *text, const char *file, int first_line)
{
	lx->text = text;
	lx->pos = 0;
	lx->file = file;
	lx->line = first_line;
}

static char cur(const struct shell_lexer *lx)
{
	return lx->text[lx->pos];
}

static char next(const struct shell_lexer *lx)
{
	return cur(lx) ? lx->text[lx->pos + 1] : '\0';
}

/* Consume one character, keeping lx->line in step with the text. */
static char take(struct shell_lexer *lx)
{
	char c = cur(lx);

	if (c == '\n')
		lx->line++;
	if (c)
		lx->pos++;
	return c;
}

static bool is_blank(char c)
{
	/* '\r' too, so that a script saved with CRLF line ends does not grow '\r' words. */
	return c == ' ' || c == '\t' || c == '\r';
}

static bool is_continuation(const struct shell_lexer *lx)
{
	return cur(lx) == '\\' && next(lx) == '\n';
}

/* Characters that end an unquoted word. */
static bool ends_word(char c)
{
	return !c || is_blank(c) || strchr("\n;&<>|", c);
}

/* Blanks and backslash-newline continuations between words. */
static void skip_blanks(struct shell_lexer *lx)
{
	for (;;) {
		if (is_blank(cur(lx))) {
			take(lx);
		} else if (is_continuation(lx)) {
			take(lx);
			take(lx);
		} else {
			return;
		}
	}
}

/* A comment runs to the end of the line; the newline still ends the command. */
static void skip_comment(struct shell_lexer *lx)
{
	while (cur(lx) && cur(lx) != '\n')
		take(lx);
}

/* Blank lines, ';' and comments before a command. */
static void skip_empty_commands(struct shell_lexer *lx)
{
	for (;;) {
		skip_blanks(lx);
		if (cur(lx) == '\n' || cur(lx) == ';')
			take(lx);
		else if (cur(lx) == '#')
			skip_comment(lx);
		else
			return;
	}
}

static int incomplete(struct parse *p, const char *what, int line)
{
	p->open_what = what;
	p->open_line = line;
	return SHELL_INCOMPLETE;
}

static bool is_name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static int append_variable(struct parse *p, const char *name, struct strbuf *word)
{
	const char *value = p->lookup ? p->lookup(p->ctx, name) : NULL;

	if (!value)
		value = getenv(name);
	if (!value)
		return err_set(p->e, "${%s}: variable not set (set it with 'set %s=VALUE')", name,
		               name);
	sb_adds(word, value);
	return 0;
}

/* At "${": expand ${NAME}. */
static int read_variable(struct parse *p, struct strbuf *word)
{
	struct shell_lexer *lx = p->lx;
	const char *name = lx->text + lx->pos + 2;
	size_t len = 0;
	char *copy;
	int rc;

	if (is_name_start(name[0]))
		while (is_name_char(name[len]))
			len++;
	if (len == 0 || name[len] != '}')
		return err_set(p->e, "bad '${': write ${NAME} with a NAME of letters, digits and "
		                     "'_' that does not start with a digit");
	copy = xstrndup(name, len);
	rc = append_variable(p, copy, word);
	free(copy);
	lx->pos += len + 3;
	return rc;
}

/* At '$': ${NAME} expands, $? too (the last status, looked up as "?"); any other '$' is an
 * ordinary character. */
static int read_dollar(struct parse *p, struct strbuf *word)
{
	if (next(p->lx) == '{')
		return read_variable(p, word);
	if (next(p->lx) == '?') {
		p->lx->pos += 2;
		return append_variable(p, "?", word);
	}
	sb_addc(word, take(p->lx));
	return 0;
}

/* At '\' outside quotes: the next character is literal; before a newline it joins lines. */
static int read_backslash(struct parse *p, struct strbuf *word)
{
	struct shell_lexer *lx = p->lx;

	take(lx);
	if (!cur(lx))
		return incomplete(p, NULL, lx->line);
	if (cur(lx) == '\n')
		take(lx);
	else
		sb_addc(word, take(lx));
	return 0;
}

static int read_single_quoted(struct parse *p, struct strbuf *word)
{
	struct shell_lexer *lx = p->lx;
	int line = lx->line;

	take(lx);
	while (cur(lx) != '\'') {
		if (!cur(lx))
			return incomplete(p, "single quote", line);
		sb_addc(word, take(lx));
	}
	take(lx);
	return 0;
}

/* At '\' inside double quotes: only " \ $ and newline are escaped, as in POSIX shells. */
static int read_quoted_backslash(struct parse *p, struct strbuf *word, int line)
{
	struct shell_lexer *lx = p->lx;
	char c = next(lx);

	if (!c)
		return incomplete(p, "double quote", line);
	take(lx);
	if (c == '\n') {
		take(lx);
	} else if (strchr("\"\\$", c)) {
		sb_addc(word, take(lx));
	} else {
		sb_addc(word, '\\');
	}
	return 0;
}

static int read_double_quoted(struct parse *p, struct strbuf *word)
{
	struct shell_lexer *lx = p->lx;
	int line = lx->line;
	int rc = 0;

	take(lx);
	while (rc == 0 && cur(lx) != '"') {
		if (!cur(lx))
			return incomplete(p, "double quote", line);
		if (cur(lx) == '\\')
			rc = read_quoted_backslash(p, word, line);
		else if (cur(lx) == '$')
			rc = read_dollar(p, word);
		else
			sb_addc(word, take(lx));
	}
	if (rc == 0)
		take(lx);
	return rc;
}

/* One word made of unquoted and quoted parts. *present is false when the word was only
 * unquoted expansions that gave nothing: like POSIX shells, `cmd ${EMPTY}` has no argument,
 * while `cmd ""` has an empty one. */
static int read_word(struct parse *p, struct strbuf *word, bool *present)
{
	struct shell_lexer *lx = p->lx;
	int rc = 0;

	*present = false;
	while (rc == 0 && !ends_word(cur(lx))) {
		char c = cur(lx);

		if (c == '$') {
			rc = read_dollar(p, word);
			continue;
		}
		if (c != '\\' || next(lx) != '\n')
			*present = true;
		if (c == '\'')
			rc = read_single_quoted(p, word);
		else if (c == '"')
			rc = read_double_quoted(p, word);
		else if (c == '\\')
			rc = read_backslash(p, word);
		else
			sb_addc(word, take(lx));
	}
	*present = *present || word->len > 0;
	return rc;
}

static int read_argument(struct parse *p, struct command *cmd)
{
	struct strbuf word = STRBUF_INIT;
	bool present;
	int rc = read_word(p, &word, &present);

	if (rc == 0 && present)
		sv_push_owned(&cmd->argv, sb_detach(&word));
	sb_free(&word);
	return rc;
}

/* The file name after '<', '>' or '>>'. */
static int read_redirection_target(struct parse *p, const char *op, char **target)
{
	struct strbuf word = STRBUF_INIT;
	bool present = false;
	int rc = 0;

	skip_blanks(p->lx);
	if (!ends_word(cur(p->lx)) && cur(p->lx) != '#')
		rc = read_word(p, &word, &present);
	if (rc == 0 && (!present || word.len == 0))
		rc = err_set(p->e, "'%s' needs a file name", op);
	if (rc == 0)
		*target = sb_detach(&word);
	sb_free(&word);
	return rc;
}

static int read_redirection(struct parse *p, struct command *cmd)
{
	struct shell_lexer *lx = p->lx;
	char c = take(lx);

	if (c == '<') {
		if (cmd->redir_in)
			return err_set(p->e, "two input redirections ('<') in one command");
		return read_redirection_target(p, "<", &cmd->redir_in);
	}
	if (cmd->redir_out)
		return err_set(p->e, "two output redirections ('>' or '>>') in one command");
	cmd->append = cur(lx) == '>';
	if (cmd->append)
		take(lx);
	if (cur(lx) == '&')
		return err_set(p->e, "'>&' is not supported: carsh redirects standard output to a "
		                     "file only");
	return read_redirection_target(p, cmd->append ? ">>" : ">", &cmd->redir_out);
}

/* At '&': the command runs in the background and, as in POSIX shells, '&' also separates
 * it from the next command ("a & b"). '&&' lists are not part of the grammar. */
static int read_background(struct parse *p, struct command *cmd)
{
	struct shell_lexer *lx = p->lx;

	take(lx);
	if (cur(lx) == '&')
		return err_set(p->e, "'&&' is not supported (a non-interactive carsh stops at the "
		                     "first failing command; separate commands with ';')");
	cmd->background = true;
	return 0;
}

/* At '|': CarSh has no pipes; said so instead of taking it literally. */
static int no_pipes(struct parse *p)
{
	if (next(p->lx) == '|')
		return err_set(p->e, "'||' is not supported (a non-interactive carsh stops at the "
		                     "first failing command; separate commands with ';')");
	return err_set(p->e, "'|' is not supported: carsh has no pipes; write to a file "
	                     "(y=out.csv) and read it in the next command, or pipe into carsh "
	                     "from a POSIX shell (seq 8 | carsh run f.xml x=- y=-)");
}

/* A word of digits just before '<' or '>' ("2>err", "2>&1"): descriptors other than
 * standard input and output cannot be redirected. */
static int no_fd_redirection(struct parse *p, const struct command *cmd)
{
	const char *w = cmd->argv.n ? cmd->argv.v[cmd->argv.n - 1] : "";

	if (!*w || strspn(w, "0123456789") != strlen(w))
		return 0;
	return err_set(p->e,
	               "'%s%c' is not supported: carsh redirects standard input ('<') and "
	               "output ('>', '>>') only; its messages go to standard error",
	               w, cur(p->lx));
}

static int finish_command(struct parse *p, struct command *cmd)
{
	if (cmd->argv.n > 0)
		return SHELL_COMMAND;
	if (cmd->background)
		return err_set(p->e, "'&' must follow a command");
	if (cmd->redir_in || cmd->redir_out)
		return err_set(p->e, "a redirection needs a command");
	return PARSE_EMPTY;
}

static int read_command(struct parse *p, struct command *cmd)
{
	struct shell_lexer *lx = p->lx;
	int rc = 0;

	while (rc == 0) {
		char c;

		skip_blanks(lx);
		c = cur(lx);
		if (!c)
			break;
		if (c == '\n' || c == ';') {
			take(lx);
			break;
		}
		if (c == '&') {
			rc = read_background(p, cmd);
			break;
		}
		if (c == '#')
			skip_comment(lx);
		else if (c == '|')
			rc = no_pipes(p);
		else if (c == '<' || c == '>')
			rc = read_redirection(p, cmd);
		else if ((rc = read_argument(p, cmd)) == 0 && (cur(lx) == '<' || cur(lx) == '>'))
			rc = no_fd_redirection(p, cmd);
	}
	return rc < 0 ? rc : finish_command(p, cmd);
}

/* Skip a quoted part whose opening quote is at pos, as the readers above would read it. */
static int skip_quoted(struct parse *p)
{
	struct shell_lexer *lx = p->lx;
	int line = lx->line;
	char quote = take(lx);

	while (cur(lx) && cur(lx) != quote) {
		if (quote == '"' && cur(lx) == '\\' && next(lx))
			take(lx);
		take(lx);
	}
	if (take(lx) != quote)
		return incomplete(p, quote == '"' ? "double quote" : "single quote", line);
	return 0;
}

static int skip_backslash(struct parse *p)
{
	take(p->lx);
	if (!take(p->lx))
		return incomplete(p, NULL, p->lx->line);
	return 0;
}

/* After an error, move past the rest of the command (up to the next unquoted newline or ';')
 * without interpreting it. Returns SHELL_INCOMPLETE when the command's text ends inside
 * quotes or after a backslash, else 0. */
static int skip_command(struct parse *p)
{
	struct shell_lexer *lx = p->lx;
	bool word_start = true;
	int rc = 0;

	while (rc == 0 && cur(lx)) {
		char c = cur(lx);

		if (c == '\n' || c == ';') {
			take(lx);
			break;
		}
		if (c == '#' && word_start) {
			skip_comment(lx);
			continue;
		}
		if (is_continuation(lx)) {
			take(lx); /* a continuation leaves word_start as it was */
			take(lx);
			continue;
		}
		word_start = is_blank(c) || strchr("&<>", c);
		if (c == '\'' || c == '"')
			rc = skip_quoted(p);
		else if (c == '\\')
			rc = skip_backslash(p);
		else
			take(lx);
	}
	return rc;
}

static void locate_error(struct parse *p)
{
	if (p->lx->file)
		err_prefix(p->e, "%s:%d: ", p->lx->file, p->start_line);
}

static int report_incomplete(struct parse *p)
{
	struct shell_lexer *lx = p->lx;

	lx->pos += strlen(lx->text + lx->pos);
	if (!p->open_what)
		err_set(p->e, "'\\' at the end of the input");
	else if (lx->file && p->open_line != p->start_line)
		err_set(p->e, "unterminated %s (opened on line %d)", p->open_what, p->open_line);
	else
		err_set(p->e, "unterminated %s", p->open_what);
	locate_error(p);
	return SHELL_INCOMPLETE;
}

static int report_error(struct parse *p, size_t start_pos)
{
	struct shell_lexer *lx = p->lx;

	/* Rescan from the command's start: the error may have been found inside quotes. A
	 * command that is still being typed is incomplete rather than wrong. */
	lx->pos = start_pos;
	lx->line = p->start_line;
	if (skip_command(p) == SHELL_INCOMPLETE)
		return SHELL_INCOMPLETE;
	locate_error(p);
	return SHELL_ERROR;
}

int shell_next(struct shell_lexer *lx, shell_var_lookup lookup, void *ctx, struct command *cmd,
               struct cs_err *e)
{
	struct parse p = {.lx = lx, .lookup = lookup, .ctx = ctx, .e = e};
	size_t start_pos;
	int rc;

	do {
		skip_empty_commands(lx);
		if (!cur(lx))
			return SHELL_END;
		start_pos = lx->pos;
		p.start_line = lx->line;
		rc = read_command(&p, cmd);
	} while (rc == PARSE_EMPTY);
	if (rc == SHELL_ERROR)
		rc = report_error(&p, start_pos);
	if (rc == SHELL_INCOMPLETE)
		rc = report_incomplete(&p);
	if (rc != SHELL_COMMAND) {
		command_free(cmd);
		return rc;
	}
	if (lx->file)
		cmd->origin = xasprintf("%s:%d", lx->file, p.start_line);
	return SHELL_COMMAND;
}

/* Every variable is set while we only ask whether the text is complete. */
static const char *any_variable(void *ctx, const char *name)
{
	(void)ctx;
	(void)name;
	return "";
}

bool shell_text_incomplete(const char *text)
{
	struct shell_lexer lx;
	struct command cmd = COMMAND_INIT;
	struct cs_err e;
	int rc;

	shell_lexer_init(&lx, text, NULL, 1);
	do {
		rc = shell_next(&lx, any_variable, NULL, &cmd, &e);
		command_free(&cmd);
	} while (rc != SHELL_END && rc != SHELL_INCOMPLETE);
	return rc == SHELL_INCOMPLETE;
}

int shell_text_check(const char *text, size_t len, const char *file, int first_line,
                     struct cs_err *e)
{
	const char *nul = memchr(text, '\0', len);
	int line = first_line;

	if (!nul)
		return 0;
	for (const char *p = text; p < nul; p++)
		line += *p == '\n';
	return err_set(e,
	               "%s:%d: a NUL byte in a script (scripts are text; remove it, e.g. with "
	               "tr -d '\\000')",
	               file ? file : "<command line>", line);
}
