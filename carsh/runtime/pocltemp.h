/* The OpenCL platforms' first start, without the file PoCL leaves behind at it. */
#ifndef CARSH_RUNTIME_POCLTEMP_H
#define CARSH_RUNTIME_POCLTEMP_H

/* Starts the OpenCL platforms and their devices (the ICD loader and its drivers), once per
 * process; later calls return at once. PoCL 3.1 makes an empty kcache/tempfile_XXXXXX as it
 * starts its devices and never removes it: one per process that used a device (1,685 after
 * an afternoon of `carsh -T`). The new empty ones are removed here. Where the process survives
 * Ctrl-C, the drivers' threads start with SIGINT blocked, and carsh's SIGINT and SIGQUIT
 * dispositions are put back after the start (runtime/buildsig.h). */
void rt_platforms_start(void);

/* PoCL's kernel cache: $POCL_CACHE_DIR, else $XDG_CACHE_HOME/pocl/kcache, else
 * ~/.cache/pocl/kcache (a new string). NULL when none can be named. */
char *rt_pocl_kcache_dir(void);

#endif
