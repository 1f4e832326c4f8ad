#!/bin/sh
# tests/shell/fft.sh with the worker's launches through the device's feeder: on the CPU
# devices of CI the feeder stays off and a worker waits for every job, so both are forced on
# (CARSH_FEEDER=on, CARSH_QUEUE_CPU=1), and the workers are the shell's own children, which
# inherit them (CARSH_SERVER=off).
CARSH_FEEDER=on
CARSH_QUEUE_CPU=1
CARSH_SERVER=off
export CARSH_FEEDER CARSH_QUEUE_CPU CARSH_SERVER
. "$TOP_SRCDIR/tests/shell/fft.sh"
