/* File-name helpers. Paths in XML files are relative to the directory of the file. */
#ifndef CARSH_UTIL_PATH_H
#define CARSH_UTIL_PATH_H

#include <stdbool.h>

bool path_is_abs(const char *p);
/* The directory part of p ("." when p has none); a new string. */
char *path_dirname(const char *p);
/* The last component of p; points into p. */
const char *path_basename(const char *p);
/* rel taken relative to directory dir (unchanged when absolute, or when dir is NULL); new string.
 */
char *path_join(const char *dir, const char *rel);
/* True for "-", the name of standard input or output, and for "-:FORMAT" (data/datafile.h). */
bool path_is_stdio(const char *p);

#endif
