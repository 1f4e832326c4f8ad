#!/bin/sh
# The library as a program outside the tree uses it: a DESTDIR install of the build, then
# examples/c-api/saxpy.c and pipeline.c built with `pkg-config --cflags --libs carsh`
# against the installed tree only (its carsh.h, its libcarsh.so through the soname), and
# run; each checks its results against a C reference and says "0 of N wrong".
. "$TOP_SRCDIR/tests/shell/lib.sh"

dest="$T/dest"
mkvar() { sed -n "s/^$1 = //p" "$TOP_BUILDDIR/Makefile"; }
if ! make -s -C "$TOP_BUILDDIR" install DESTDIR="$dest" >"$T/install.log" 2>&1; then
	fail "make install DESTDIR=$dest: $(tail -20 "$T/install.log")"
	exit 1
fi
libdir=$(mkvar libdir | sed "s|\${exec_prefix}|$(mkvar exec_prefix)|; s|\${prefix}|$(mkvar prefix)|")
pc_dir="$dest$libdir/pkgconfig"
pkg() { PKG_CONFIG_PATH="$pc_dir" PKG_CONFIG_SYSROOT_DIR="$dest" pkg-config "$@" carsh; }

for f in include/carsh.h lib/pkgconfig/carsh.pc; do
	[ -n "$(find "$dest" -path "*/$f")" ] || fail "install: no $f under $dest"
done
if [ "$(find "$dest" -name '*.h' | wc -l)" -eq 1 ]; then
	pass "carsh.h is the one header installed"
else
	fail "headers installed: $(find "$dest" -name '*.h')"
fi
soname=$(objdump -p "$dest$libdir/libcarsh.so" 2>/dev/null | awk '$1 == "SONAME" { print $2 }')
case "$soname" in
libcarsh.so.[0-9]*) pass "libcarsh.so has a versioned soname ($soname)" ;;
*) fail "libcarsh.so's soname is '$soname'" ;;
esac
[ -f "$dest$libdir/libcarsh.a" ] || fail "no libcarsh.a installed"
pkg --exists || fail "pkg-config does not find carsh in $pc_dir"

# A sanitizer build's library needs its runtime in the program too, from the same compiler.
cc=$(mkvar CC)
cflags="$(pkg --cflags) $(mkvar SAN_CFLAGS)"
libs="$(pkg --libs)"
for ex in saxpy pipeline; do
	# shellcheck disable=SC2086
	if ! ${cc:-cc} -o "$T/$ex" "$TOP_SRCDIR/examples/c-api/$ex.c" $cflags $libs -lm \
		>"$T/$ex.cc" 2>&1; then
		fail "building examples/c-api/$ex.c with pkg-config: $(cat "$T/$ex.cc")"
		continue
	fi
	ldd "$T/$ex" | grep -q 'libcarsh\.so\.[0-9]' ||
		fail "$ex: not linked with libcarsh.so: $(ldd "$T/$ex")"
	expect 0 "" env LD_LIBRARY_PATH="$dest$libdir" "$T/$ex" "$FM/saxpy.xml" &&
		if grep -q "^$ex: 0 of [0-9]* wrong$" "$OUT"; then
			pass "examples/c-api/$ex.c, built from the installed tree, matches C: $(cat "$OUT")"
		else
			fail "$ex printed: $(cat "$OUT")"
		fi
done

# The same program on a machine of the suite's carsh server (the build's carsh).
if [ -x "$T/saxpy" ]; then
	expect 0 "" env LD_LIBRARY_PATH="$dest$libdir" CARSH_EXE="$CARSH" "$T/saxpy" \
		"$FM/saxpy.xml" server &&
		if grep -q "^saxpy: 0 of [0-9]* wrong$" "$OUT"; then
			pass "examples/c-api/saxpy.c on a server machine matches C: $(cat "$OUT")"
		else
			fail "saxpy on a server machine printed: $(cat "$OUT")"
		fi
fi
exit $((FAILS > 0))
