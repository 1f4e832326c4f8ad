/*
 * Whether files may have changed, told by the kernel (inotify) rather than by a stat of each
 * file at every command: a batch of a dozen flow-models run in a loop from a script otherwise
 * pays a stat of every file it was read from before its first job (15 system calls a run of
 * the FFT filter, ~10 µs, longer than its first kernel takes on a GPU).
 *
 * A watched path is its file and every directory its name goes through, so that an edit in
 * place, a file renamed over it, a directory renamed or removed all count as a change. What
 * cannot be watched reliably is refused, and its caller stats as before: a path through a
 * symbolic link, a file system whose changes inotify may not see (NFS, FUSE, overlays: only
 * ext2/3/4, XFS, Btrfs, F2FS and tmpfs are trusted, and the read-only images squashfs
 * and EROFS), no inotify instance or watch left.
 *
 * Thread-safe: the count is one for the process, so a change to any watched file makes every
 * user check its own files again (model/filecache.c, runtime/icdkept.c). A forked child
 * does not share its parent's instance: its first call drops the inherited one, and what
 * was watched before counts as unwatched (filewatch_epoch changes).
 */
#ifndef CARSH_UTIL_FILEWATCH_H
#define CARSH_UTIL_FILEWATCH_H

#include <stdbool.h>
#include <sys/stat.h>

/* The count of changes seen so far, after reading the events queued since the last call. A
 * file watched when the count was C is unchanged since then while the count is still C (and
 * the epoch the same). */
unsigned long filewatch_changes(void);

/* Changes whenever the watches made before stop counting (a fork, a lost instance), as of
 * the last filewatch_changes or filewatch_add. Never 0. */
unsigned long filewatch_epoch(void);

/* Whether two stats of a path say the same file, unchanged: device, inode, size, and the
 * modification and change times (ctime: a copy that keeps mtime and size, cp -p, rsync -t,
 * would otherwise pass). What a caller compares where a path cannot be watched, or to check
 * it once after its watch is made. */
bool filewatch_same_stat(const struct stat *a, const struct stat *b);

/* Watch path: true when every change to what it names will now count. The caller then
 * checks the file itself (a change before the watch is not reported). A path that ends in
 * "/" names a directory: what counts there is an entry created, removed or renamed (not an
 * edit of a file in it). */
bool filewatch_add(const char *path);

#endif
