/* Paths written into generated batches: relative to the batch's directory, so that the
 * directory can be moved together with the executables it names. */
#ifndef CARSH_UTIL_RELPATH_H
#define CARSH_UTIL_RELPATH_H

/* Lexically normalise path ("a/./b/../c" -> "a/c"), made absolute against cwd when relative
 * and cwd is given. A new string. */
char *path_normalise(const char *path, const char *cwd);
/* path as seen from directory dir; both absolute and normalised. A new string: path itself
 * when the two share nothing but the root. */
char *path_relative(const char *dir, const char *path);
/* path as seen from directory dir, both as given on the command line or in a file: resolved
 * through the file system (symbolic links included) where they exist. A new string. */
char *path_from_dir(const char *dir, const char *path);

#endif
