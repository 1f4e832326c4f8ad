/*
 * Launches of one kernel on several PoCL CPU queues at once, made safe.
 *
 * PoCL's CPU drivers (PoCL 5.0; 3.1 has the same code with its
 * assertions compiled out) keep one compiled work-group function per kernel, local size,
 * global offset zero or not, and largest grid width, but when a kernel command ends they
 * look the function up again by kernel and local size alone (pocl_release_dlhandle_cache)
 * and take a reference from the first they find. While commands of one kernel use two
 * variants at once, one of them releases the other's variant and PoCL aborts with
 * "Assertion `found->ref_count > 0' failed": every partition run with 2 to 16 cores did.
 * A variant is only found first when it was the last one used, so launches that use a
 * second variant (a zero offset) or make a new one (a wider launch than any before) run
 * alone, and all the others together.
 */
#ifndef CARSH_RUNTIME_LAUNCHGUARD_H
#define CARSH_RUNTIME_LAUNCHGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/runtime.h"

/* Whether launches on dev need the guard: its platform is PoCL. */
bool rt_launch_guard_needed(const struct rt_devinfo *dev);

/* What identifies a kernel's compiled variants: its name, source and build options. */
uint64_t rt_launch_key(const char *kernel, const char *source, const char *options);

/* Before enqueueing the launches of the kernel with this local size that cover
 * [offset, offset + count) in pieces of at most piece work-items on device (the root device:
 * the sub-devices of one CPU device share its variants). Waits until they may run; returns
 * whether they run alone: a zero offset, a launch wider than any before, or a device other
 * than the last that ran alone. Call rt_launch_leave with that value once they have
 * finished (clFinish). */
bool rt_launch_enter(uint64_t key, const void *device, size_t local, size_t offset, size_t count,
                     size_t piece);
void rt_launch_leave(bool alone);

/* The widest launch at a non-zero offset of the kernel with this local size in the process so
 * far (0: none): one no wider runs beside the others. */
size_t rt_launch_widest(uint64_t key, size_t local);

#endif
