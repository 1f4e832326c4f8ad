#!/bin/sh
# Device discovery and choice (DESIGN §4).
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
seq 1 8 >x.csv

expect 0 "" "$CARSH" -c devices
head -1 "$OUT" | grep -q "^INDEX" && pass "devices prints a header" || fail "devices: $(cat "$OUT")"
grep -q "^0 " "$OUT" && pass "devices lists index 0" || fail "no device 0: $(cat "$OUT")"
cpu=$(awk '$2 == "cpu" { print $1; exit }' "$OUT")
[ -n "$cpu" ] || fail "no CPU device listed (PoCL is installed by the quick start)"

expect 0 "" "$CARSH" --device cpu -c "time run $DATA/bad/good.xml x=x.csv y=-"
expect 0 "" "$CARSH" --device "$cpu" -c "time run $DATA/bad/good.xml x=x.csv y=-"
grep -q "^jobs  *1 on " "$ERR" && pass "time names the device" || fail "time: $(cat "$ERR")"
# A name substring, case-insensitive, taken from what devices printed.
word=$(awk -v i="$cpu" '$1 == i { print toupper(substr($3, 1, 4)) }' "$OUT.devices" 2>/dev/null)
"$CARSH" -c devices >devices.txt
word=$(awk -v i="$cpu" '$1 == i { print toupper(substr($3, 1, 4)) }' devices.txt)
expect 0 "" env CARSH_DEVICE="$word" "$CARSH" run "$DATA/bad/good.xml" x=x.csv y=-
if ! grep -q " gpu " devices.txt; then
	expect 1 "no OpenCL device matches 'gpu'" "$CARSH" --device gpu run "$DATA/bad/good.xml" x=x.csv y=-
	# With no GPU the default choice falls back to the CPU.
	expect 0 "" "$CARSH" run "$DATA/bad/good.xml" x=x.csv y=-
fi
# <Device select> in an executable beats --device.
cat >sel.exe.xml <<XML
<CarshExe>
  <FlowModel file="$DATA/bad/good.xml"/>
  <Device select="accelerator"/>
  <Input name="x"><DataFile>x.csv</DataFile></Input>
  <Output name="y"><DataFile>-</DataFile></Output>
</CarshExe>
XML
expect 1 "no OpenCL device matches 'accelerator' (from <Device select> of the executable)" \
	"$CARSH" --device cpu sel.exe.xml
finish
