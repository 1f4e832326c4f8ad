/*
 * Where a user's carsh server listens (docs/server.md): a directory of the user's own —
 * $CARSH_SERVER_DIR, else $XDG_RUNTIME_DIR/carsh, else /tmp/carsh-UID — created 0700 and
 * refused unless it is a real directory (not a link), owned by the user, with no group or
 * other permissions: whoever can write there could put a socket of theirs in the server's
 * place, and every job's data would go through it.
 *
 * The socket's name carries the build's identity (a hash of the executable's device, inode,
 * size and modification time, and the package version): a client and a server of different
 * builds never talk, since the job plans they exchange are a build's private format.
 */
#ifndef CARSH_EXEC_SERVERDIR_H
#define CARSH_EXEC_SERVERDIR_H

#include <sys/types.h>

#include "util/error.h"

/* The directory's path (a new string), created when missing and checked; NULL with e. */
char *server_dir(struct cs_err *e);

/* 0 when path is a directory fit for uid's server, else -1 with e saying why. */
int server_dir_check(const char *path, uid_t uid, struct cs_err *e);

/* This build's identity: 16 hex digits (a static string). */
const char *server_build_id(void);

/* The carsh program whose identity names the socket and which a start on demand executes:
 * /proc/self/exe unless set. A program that embeds the library is not carsh: its server
 * machines (carsh/api/api-remote.c) name the carsh program here, once, before connecting.
 * -1 with e when path is no file. */
int server_use_exe(const char *path, struct cs_err *e);
const char *server_exe(void);

/* "<dir>/server-<id>.<ext>" (a new string): ext is "sock", "lock" or "log". */
char *server_path(const char *dir, const char *ext);

#endif
