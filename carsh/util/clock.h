#ifndef CARSH_UTIL_CLOCK_H
#define CARSH_UTIL_CLOCK_H

/* Milliseconds on the monotonic clock. */
double clock_ms(void);

#endif
