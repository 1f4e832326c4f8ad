/*
 * The interactive front-end: reads command lines from the terminal with GNU readline and runs
 * them in a session. It uses only the public API (carsh.h), like any other program would.
 */
#ifndef CARSH_SHELL_INTERACTIVE_H
#define CARSH_SHELL_INTERACTIVE_H

struct carsh_session;

/* Prompt, read and run commands until end of input (Ctrl-D) or `exit`, then wait for the
 * background jobs (carsh_session_wait), Ctrl-C still stopping them. Returns the exit status
 * the program should end with; ending the session is left to the caller. */
int interactive_run(struct carsh_session *s);

#endif
