#!/bin/sh
# .npy files as numpy writes and reads them (docs/formats.md); skipped without numpy.
. "$TOP_SRCDIR/tests/shell/lib.sh"

PY=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import numpy' 2>/dev/null; then
		PY=$p
		break
	fi
done
if [ -z "$PY" ]; then
	echo "SKIP: numpy is not installed (Debian: python3-numpy)"
	exit 77
fi
cd "$T" || exit 1

# Every stream type from numpy.save, through a buffer, back into numpy.load.
for t in char:int8 uchar:uint8 short:int16 ushort:uint16 int:int32 uint:uint32 long:int64 \
	ulong:uint64 float:float32 double:float64; do
	ct=${t%%:*} nt=${t#*:}
	"$PY" -c "import numpy as np; np.save('in.npy', (np.arange(24) * 5 - 40).astype(np.$nt).reshape(4, 6))"
	expect 0 "" "$CARSH" -c "virtbuf create b $ct 24; virtbuf fill b in.npy; virtbuf dump b out.npy --columns 6"
	if "$PY" -c "import numpy as np; a = np.load('in.npy'); b = np.load('out.npy')
assert b.dtype == a.dtype and b.shape == (4, 6) and (a == b).all(), (b.dtype, b.shape)" 2>"$T/py.err"; then
		pass "$ct: numpy.save -> virtbuf fill -> virtbuf dump -> numpy.load"
	else
		fail "$ct: $(cat "$T/py.err")"
	fi
done

# Format version 2.0 (a 4-byte header length) is read too; Fortran order is refused.
"$PY" -c "import numpy as np
with open('v2.npy', 'wb') as f:
    np.lib.format.write_array(f, np.arange(6, dtype=np.float32), version=(2, 0))
np.save('f.npy', np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))"
expect 0 "" "$CARSH" -c "virtbuf create b float 6; virtbuf fill b v2.npy; virtbuf dump b --columns 6"
echo "0,1,2,3,4,5" >want
same_file "$OUT" want "a version 2.0 .npy file"
expect 1 "f.npy: fortran_order arrays are not read (save numpy.ascontiguousarray(a))" \
	"$CARSH" -c "virtbuf create b float 6; virtbuf fill b f.npy"

# numpy.savetxt of a 2-D array: blank-separated, read as CSV; values exact.
"$PY" -c "import numpy as np; np.savetxt('a.txt', np.linspace(-1, 1, 12).reshape(3, 4))"
expect 0 "" "$CARSH" -c "virtbuf create b double 12; virtbuf fill b a.txt; virtbuf dump b b.npy"
if "$PY" -c "import numpy as np; assert (np.load('b.npy') == np.loadtxt('a.txt').ravel()).all()" 2>"$T/py.err"; then
	pass "numpy.savetxt's text read bit-exact"
else
	fail "numpy.savetxt: $(cat "$T/py.err")"
fi
finish
