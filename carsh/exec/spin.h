/*
 * Waiting by polling instead of sleeping, where a core is free for it. Waking a process or
 * thread that sleeps costs some 15 us on the H200 machine, and a batch's run of jobs has
 * three such waits at each command's start and end (the worker's for the first job, its
 * feeder's for the first launch, the shell's for a write-back's answer), against a hand-
 * written program's none (docs/executors.md, "Where a job's time goes"). By default on four
 * cores or more; CARSH_WORKER_SPIN=0 turns it off, =1 on.
 */
#ifndef CARSH_EXEC_SPIN_H
#define CARSH_EXEC_SPIN_H

#include <stdbool.h>

/* Whether to poll before sleeping. */
bool spin_wanted(void);

/* Polls fd for something to read for up to ms milliseconds (where spin_wanted): whether
 * there is. */
bool spin_readable(int fd, double ms);

#endif
