/*
 * For the carsh program only, not the library's public face (carsh.h): an engine's run
 * (partition, pipeline) under the thread executor goes to a fresh copy of the program
 * (runner/engineproc.h), so that a driver's abort there ends that copy, never the shell.
 * The library in another program keeps its engines in its own process: /proc/self/exe is
 * not carsh there.
 */
#ifndef CARSH_API_API_ENGINE_H
#define CARSH_API_API_ENGINE_H

/* This process is the carsh program: engines may run in fresh copies of it. */
void carsh_engines_apart(void);

/* `carsh --engine-child`: run the engine the shell described, then end. */
void __attribute__((noreturn)) carsh_engine_child(void);

#endif
