#!/bin/sh
# tests/shell/jobrun.sh with the workers waiting for a window's next job before they sleep
# (CARSH_WORKER_SPIN=1: on the 2 cores of CI it would otherwise stay off), the workers the
# shell's own children, which inherit it (CARSH_SERVER=off).
CARSH_WORKER_SPIN=1
CARSH_SERVER=off
export CARSH_WORKER_SPIN CARSH_SERVER
. "$TOP_SRCDIR/tests/shell/jobrun.sh"
