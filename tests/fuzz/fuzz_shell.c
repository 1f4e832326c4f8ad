/* libFuzzer target: the shell line parser. The input is a script; it is parsed command by
 * command as `carsh SCRIPT` does, with variables N and EMPTY set. Each call must consume
 * input, so parsing ends after at most one call per byte (plus the end). Then the prompt's
 * question "is this line complete?" is asked of the same text. */
#include <stdio.h>

#include "fuzz.h"
#include "model/cmdline.h"

static const char *lookup(void *ctx, const char *name)
{
	(void)ctx;
	if (strcmp(name, "N") == 0)
		return "1024";
	if (strcmp(name, "EMPTY") == 0)
		return "";
	if (strcmp(name, "SPACE") == 0)
		return "a b;c&d";
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct shell_lexer lx;
	struct cs_err e;
	size_t calls = 0;
	int rc;

	shell_lexer_init(&lx, text, "fuzz.csh", 1);
	do {
		struct command cmd = COMMAND_INIT;
		size_t before = lx.pos;

		rc = shell_next(&lx, lookup, NULL, &cmd, &e);
		if (rc == SHELL_COMMAND && (cmd.argv.n == 0 || !cmd.origin))
			abort();
		command_free(&cmd);
		if (lx.pos > strlen(text) || (rc != SHELL_END && lx.pos == before) ||
		    ++calls > size + 1) {
			fprintf(stderr, "parser stuck at %zu (rc %d)\n", lx.pos, rc);
			abort();
		}
	} while (rc != SHELL_END && rc != SHELL_INCOMPLETE);
	(void)shell_text_incomplete(text);
	free(text);
	return 0;
}
