/*
 * fork() in a process with threads, safe under AddressSanitizer too (docs/hardening.md).
 *
 * glibc's malloc takes its locks around fork(), so a child never inherits one held by another
 * thread. ASan's allocator, thread registry and stack depot did not before LLVM 17: a job
 * forked while another thread of the master was inside malloc or starting up hung for ever in
 * the child's first malloc or pthread_create (seen in `make check` under --enable-sanitizers).
 * clang's ASan runtime is linked statically and has the functions that take those locks, so
 * they are taken here around fork(), in the order LLVM 17 takes them. Without that runtime
 * (a plain build, or GCC's libasan, which keeps them hidden) the weak symbols are NULL and this
 * is fork() alone. A fork also waits at the fork gate while a thread holds it closed: on a
 * rank of an MPI job whose MPI start was put off, MPI_Init_thread runs in another thread
 * (mpi/ranks.c), holding the dynamic loader's lock as it opens its components. The forks are
 * in exec/ and runtime/; the gate (util/fork.c) lets them wait without knowing of MPI.
 */
#ifndef CARSH_UTIL_FORK_H
#define CARSH_UTIL_FORK_H

#include <stdbool.h>
#include <unistd.h>

/* The fork gate. Once fork_gate_use was called (before the threads that fork start), every
 * fork_locked waits while a thread holds the gate between fork_gate_close and
 * fork_gate_open; before, the gate costs nothing. */
void fork_gate_use(void);
void fork_gate_close(void);
void fork_gate_open(void);
void fork_gate_enter(void);
void fork_gate_leave(void);

/* __lsan::LockThreadRegistry() and the others, by their C++ names. */
void _ZN6__lsan18LockThreadRegistryEv(void) __attribute__((weak));
void _ZN6__lsan20UnlockThreadRegistryEv(void) __attribute__((weak));
void _ZN6__lsan13LockAllocatorEv(void) __attribute__((weak));
void _ZN6__lsan15UnlockAllocatorEv(void) __attribute__((weak));
void _ZN11__sanitizer17StackDepotLockAllEv(void) __attribute__((weak));
void _ZN11__sanitizer19StackDepotUnlockAllEv(void) __attribute__((weak));

/* fork(), with ASan's locks held across it when the runtime has them. Nothing may allocate
 * between the locks and fork(), so this is called right where fork() would be. */
static inline pid_t fork_locked(void)
{
	bool asan = _ZN6__lsan18LockThreadRegistryEv && _ZN6__lsan20UnlockThreadRegistryEv &&
	            _ZN6__lsan13LockAllocatorEv && _ZN6__lsan15UnlockAllocatorEv &&
	            _ZN11__sanitizer17StackDepotLockAllEv &&
	            _ZN11__sanitizer19StackDepotUnlockAllEv;
	pid_t p;

	fork_gate_enter();
	if (asan) {
		_ZN6__lsan18LockThreadRegistryEv();
		_ZN6__lsan13LockAllocatorEv();
		_ZN11__sanitizer17StackDepotLockAllEv();
	}
	p = fork();
	if (asan) {
		_ZN11__sanitizer19StackDepotUnlockAllEv();
		_ZN6__lsan15UnlockAllocatorEv();
		_ZN6__lsan20UnlockThreadRegistryEv();
	}
	fork_gate_leave();
	return p;
}

#endif
