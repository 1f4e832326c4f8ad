#ifndef CARSH_UTIL_ERRHOLD_H
#define CARSH_UTIL_ERRHOLD_H

/* Standard error held aside: descriptor 2 lent to a temporary file for a while (a kernel
 * build, runtime/program.c), and given back at once to a process that must say why it ends
 * before it goes (a signal, api/api.c), so that its last line reaches the user's standard
 * error, not the temporary file. One hold at a time in a process. */

/* Point descriptor 2 at fd, keeping the real one aside. 0, or -1 (nothing changed) where it
 * cannot, or where errhold_give_back was called: the process is ending. */
int errhold_begin(int fd);

/* Descriptor 2 back where it was, if it is still held. */
void errhold_end(void);

/* Descriptor 2 back where it was for good: no hold starts after this. */
void errhold_give_back(void);

#endif
