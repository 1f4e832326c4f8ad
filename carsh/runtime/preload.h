/*
 * Preloading the OpenCL vendor libraries in the master (process executor). A job's child
 * spends most of its start-up in the dynamic loader mapping the vendor library and its
 * dependencies (LLVM for PoCL): about 45 ms of a 50 ms start here. Loaded once in the
 * master, they are inherited by every child. dlopen creates no OpenCL context and calls no
 * OpenCL function; a library that starts threads when loaded would still make forking unsafe,
 * so each library is first loaded in a forked probe that counts its threads, and only a
 * library that started none is preloaded (the verdict is kept in the cache directory, keyed
 * by the library's path, size and modification time). CARSH_NO_PRELOAD=1 turns this off.
 */
#ifndef CARSH_RUNTIME_PRELOAD_H
#define CARSH_RUNTIME_PRELOAD_H

/* Preload the vendor libraries of the ICD files in $OCL_ICD_VENDORS or /etc/OpenCL/vendors.
 * Returns how many were loaded. Failures only mean no preloading. */
int rt_preload_vendors(void);

#endif
