/*
 * For the carsh program only, not the library's public face (carsh.h): `carsh -T` through the
 * user's server (docs/server.md, server/served.h). A non-interactive `carsh -T FILE | -c ... |
 * BUILTIN ...` hands its whole session to a session worker of the server, which opened its
 * devices before it was asked; that worker is the same program started as `carsh
 * --session-worker`.
 */
#ifndef CARSH_API_API_SERVED_H
#define CARSH_API_API_SERVED_H

#include <stdbool.h>

/* Run the session argv (argv[0] included; options end at argv[first_operand]) in a
 * session worker when the server can take it: a `carsh -T` session (thread_exec). Not with
 * CARSH_SERVER=off, not for `server` itself, nor for files only this process holds open
 * (/dev/fd/N). True with *status, what this process ends with; false to run it here (after a
 * warning when a server was wanted but could not be had). */
bool carsh_served_run(int argc, char **argv, int first_operand, const char *command,
                      bool thread_exec, int *status);

/* `carsh --session-worker`: wait for a session and take on its client's directory,
 * environment and descriptors; *argc and *argv are the session's command line. Returns
 * false when the session could not be taken on (said on standard error): end with
 * carsh_served_done(1). */
bool carsh_served_worker(int *argc, char ***argv);
/* The session's end: its status to the client, then this process ends. */
void __attribute__((noreturn)) carsh_served_done(int status);
/* The session's end: its status to the client; returns when this process serves another
 * session (carsh_served_worker again), else ends as carsh_served_done. */
void carsh_served_again(int status);

#endif
