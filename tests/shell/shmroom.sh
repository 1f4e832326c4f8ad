#!/bin/sh
# A deleted buffer's room in /dev/shm is there for the next one at once. The shell's fills and
# dumps leave their mappings to a thread that unmaps them a moment later (util/unmaplater.h),
# and a deleted object's pages are given back only with its last mapping: a create or a fill
# that finds too little room waits for those mappings first. In a 40 MiB /dev/shm of its own,
# a 32 MiB buffer filled from a .npy file is deleted and another created and filled, five
# times in one session; each copy's bytes are compared with the file's (cmp).
. "$TOP_SRCDIR/tests/shell/lib.sh"

cd "$T" || exit 1
if ! unshare -m --propagation private true 2>/dev/null; then
	echo "SKIP: unshare cannot make a mount namespace here (root or user namespaces needed)"
	exit 77
fi
{
	printf '\223NUMPY\001\000\166\000'
	printf "%-117s\n" "{'descr': '<f4', 'fortran_order': False, 'shape': (8388608,), }"
	head -c 33554432 /dev/urandom
} >a.npy
tail -c +129 a.npy >a.data

script=""
for i in 1 2 3 4 5; do
	script="$script
virtbuf create b$i float 8388608; virtbuf fill b$i a.npy; virtbuf dump b$i out$i.npy
virtbuf delete b$i"
done
expect 0 "" unshare -m --propagation private sh -c \
	'mount -t tmpfs -o size=40M carsh-test /dev/shm && CARSH_SERVER=off exec "$1" -c "$2"' \
	sh "$CARSH" "$script"
for i in 1 2 3 4 5; do
	tail -c +129 "out$i.npy" >got
	cmp -s got a.data && pass "buffer $i of 32 MiB in a 40 MiB /dev/shm holds the file's bytes" ||
		fail "buffer $i: out$i.npy differs from a.npy"
done
finish
