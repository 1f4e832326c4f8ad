/*
 * The one command representation (DESIGN §2): the shell line parser and the batch reader both
 * produce these, and the command layer runs them.
 */
#ifndef CARSH_MODEL_COMMAND_H
#define CARSH_MODEL_COMMAND_H

#include <stdbool.h>

#include "util/strvec.h"

struct command {
	struct strvec argv;
	char *redir_in;  /* < FILE */
	char *redir_out; /* > FILE, or >> FILE when append */
	bool append;
	bool background; /* trailing & */
	char *origin;    /* where it was written, for messages: "run.csh:12", "fft.bat.xml:7";
	                    NULL at the prompt and in -c */
};

#define COMMAND_INIT                                        \
	{                                                   \
		STRVEC_INIT, NULL, NULL, false, false, NULL \
	}

void command_free(struct command *c);
/* A deep copy. */
void command_copy(struct command *dst, const struct command *src);

#endif
