/* A driver's abort during an engine's device work, said in CarSh's words. */
#ifndef CARSH_RUNTIME_ABORTNOTE_H
#define CARSH_RUNTIME_ABORTNOTE_H

/* While armed, a SIGABRT (an OpenCL driver's failed assertion or abort(), which the engines'
 * in-process device work cannot survive) first writes "carsh: WHAT: the OpenCL driver
 * aborted ..." on standard error, naming PoCL's kernel cache (a corrupt one aborts so),
 * and the process then ends as the abort would have ended it (status 134). Arms nest
 * (concurrent engines of one session): the first installs the handler, the last disarm
 * puts the previous disposition back; the note is the latest arm's. */
void rt_abort_note_arm(const char *what);
void rt_abort_note_disarm(void);

/* After building programs: a driver's compiler (PoCL's LLVM) puts its crash handler over
 * the note's on its first build, and that handler ends an abort without the note. While
 * armed, the note's handler goes back on top; the compiler's is what disarm restores. */
void rt_abort_note_rearm(void);

#endif
