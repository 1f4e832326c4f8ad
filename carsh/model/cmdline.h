/*
 * The shell grammar (DESIGN §4): commands separated by newlines or ';'; a trailing '&' runs
 * the command in the background (and, as in POSIX shells, separates it from a next one); '#' at the
 * start of a word starts a comment; words may be quoted with '...' (literal) or "..." (with ${NAME}
 * expansion and \" \\ \$ escapes); a backslash outside quotes escapes the next character, and
 * before a newline joins lines;
 * ${NAME} expands a variable outside single quotes, and $? the last command's status; '< FILE', '>
 * FILE' and '>> FILE' redirect standard input and output.
 *
 * Commands are parsed one at a time so that `set N=4; echo ${N}` sees the new value.
 */
#ifndef CARSH_MODEL_CMDLINE_H
#define CARSH_MODEL_CMDLINE_H

#include <stdbool.h>

#include "model/command.h"
#include "util/error.h"

/* A variable's value, or NULL when it is not set. */
typedef const char *(*shell_var_lookup)(void *ctx, const char *name);

struct shell_lexer {
	const char *text;
	size_t pos;
	const char *file; /* for origins and messages; NULL for the prompt and -c */
	int line;         /* line number of text[pos] */
};

void shell_lexer_init(struct shell_lexer *lx, const char *text, const char *file, int first_line);

enum {
	SHELL_ERROR = -1,      /* e says why; the lexer is past the bad command */
	SHELL_END = 0,         /* no more commands */
	SHELL_COMMAND = 1,     /* *cmd holds the next command */
	SHELL_INCOMPLETE = -2, /* the input ends inside quotes or after a '\': need more lines */
};

/* Parse the next non-empty command into *cmd (which must be COMMAND_INIT). Errors name the
 * place: "run.csh:3: unterminated quote", "${FOO}: variable not set", "'>' needs a file
 * name", "'&&' is not supported". An unset variable is looked up in the environment before
 * it is an error. */
int shell_next(struct shell_lexer *lx, shell_var_lookup lookup, void *ctx, struct command *cmd,
               struct cs_err *e);

/* Refuse a script holding a NUL byte, which would end its text there: "x.csh:3: a NUL byte
 * ...". len is the text's length as read; file (may be NULL) and first_line name it. */
int shell_text_check(const char *text, size_t len, const char *file, int first_line,
                     struct cs_err *e);

/* True when text ends inside quotes or after a '\' (the front-end asks for another line). */
bool shell_text_incomplete(const char *text);

#endif
