#!/bin/sh
# Issue 24: a flow-model whose argument types, address spaces or number differ from its
# kernel's is refused with the element's file and line (runtime/kernelcheck.h); compile
# errors name the user's file and line, not the driver's copy, and come without the
# compiler's own "1 error generated."; flow-model errors found while planning or on the
# device name their element's line; a count mismatch suggests the parameter's value.
. "$TOP_SRCDIR/tests/shell/lib.sh"
E="$DATA/errors"
cd "$T" || exit 1
cp "$E"/arg*.xml "$E"/compile_file.* "$E"/local_mem.xml "$DATA"/bad/compile_error.xml \
	"$DATA"/bad/good.xml "$DATA"/bad/fewer.csv "$DATA"/bad/not_divisible.xml .
seq 1 8 >x8.csv

# only_line STATUS LINE COMMAND...: status and the whole of standard error.
only_line() {
	local want="$1" line="$2"
	shift 2
	expect "$want" "$line" "$@" || return
	[ "$(cat "$ERR")" = "$line" ] && pass "one line: $line" ||
		fail "$*: standard error is not just '$line': $(cat "$ERR")"
}

# Twice each: the second run loads the program from the binary cache.
for run in build cache; do
	only_line 1 "carsh: argtype_int.xml:15: <Input name=\"x\">: float, but kernel 'k' argument 0 is int *" \
		"$CARSH" run argtype_int.xml x=x8.csv y=-
	[ -s "$OUT" ] && fail "($run) a refused run wrote output: $(head -c 200 "$OUT")"
	only_line 1 "carsh: argtype_double.xml:16: <Output name=\"y\">: float, but kernel 'k' argument 1 is double *" \
		"$CARSH" run argtype_double.xml x=x8.csv y=-
	only_line 1 "carsh: argtype_const.xml:15: <Constant name=\"a\">: int, but kernel 'k' argument 0 is float" \
		"$CARSH" run argtype_const.xml x=x8.csv y=-
	only_line 1 "carsh: argspace.xml:17: <Local name=\"t\">: __local float *, but kernel 'k' argument 2 is __global float *" \
		"$CARSH" run argspace.xml x=x8.csv y=-
	only_line 1 "carsh: argcount.xml:14: kernel 'k' in <inline in argcount.xml> takes 3 arguments; the flow-model gives 2" \
		"$CARSH" run argcount.xml x=x8.csv y=-
done

# Vectors, __constant inputs, uint spelled "unsigned int": all fit.
printf '1,2,3,4,5,6,7,8\n' >v.csv
expect 0 "" "$CARSH" run argvector.xml x=v.csv y=- u=fill:1 N=2
[ "$(tr '\n' ',' <"$OUT")" = "2,4,6,8,10,12,14,16," ] && pass "float4 stream, uint constant: right values" ||
	fail "argvector output: $(cat "$OUT")"

# The same kernel object serves a good plan and then a bad one in one thread-executor shell.
expect 1 "argtype_const.xml:15: <Constant name=\"a\">: int, but kernel 'k' argument 0 is float" \
	"$CARSH" -c "run argvector.xml x=v.csv y=discard u=fill:1 N=2; run argtype_const.xml x=x8.csv y=discard"

# The partition engine builds for the CPU's cores itself: it checks too.
expect 1 "argtype_int.xml:15: <Input name=\"x\">: float, but kernel 'k' argument 0 is int *" \
	"$CARSH" partition --no-progress --gpu cpu argtype_int.xml x=x8.csv y=discard

# Compile errors: carsh's message first, at the user's file and line.
expect 1 "" "$CARSH" run compile_error.xml x=x8.csv y=-
head -n 1 "$ERR" | grep -q "^carsh: compile_error.xml: <inline in compile_error.xml>: build failed on " &&
	pass "carsh's message is the first line" || fail "first line: $(head -n 1 "$ERR")"
grep -q "generated\." "$ERR" && fail "the compiler's count is still printed: $(cat "$ERR")" ||
	pass "no 'N error(s) generated.'"
grep -q "compile_error.xml:8:59: .*undeclared_thing" "$ERR" &&
	pass "inline source: the error at the XML file's line" || fail "inline: $(cat "$ERR")"
grep -q "tempfile\|kcache" "$ERR" && fail "the driver's temporary file shows: $(cat "$ERR")" ||
	pass "no driver temporary file"
expect 1 "compile_file.cl:4:" "$CARSH" run compile_file.xml x=x8.csv y=-
grep -q "generated\." "$ERR" && fail "source file: the compiler's count is printed" ||
	pass "source file: no 'N error(s) generated.'"

# Errors of evaluating a flow-model name the element's line.
only_line 1 "carsh: not_divisible.xml:13: <WorkSize>: work size 10 is not divisible by local size 4 in dimension 0" \
	"$CARSH" run not_divisible.xml x=x8.csv y=-
only_line 1 "carsh: good.xml:13: <WorkSize>: global work size is 0: it must be at least 1" \
	"$CARSH" run good.xml x=x8.csv y=- N=0
expect 1 "carsh: local_mem.xml:17: Local arguments need 4294967296 bytes; device '" \
	"$CARSH" run local_mem.xml x=x8.csv y=-

# A count mismatch suggests the parameter's value, where the count is one parameter given
# (left unset, it would take the file's length: tests/shell/lengths.sh).
only_line 1 "carsh: good.xml: stream 'x': fewer.csv: 5 values, expected 8 (count=\"N\" with N=8; set N=5?)" \
	"$CARSH" run good.xml x=fewer.csv y=- N=8
sed 's/count="N"/count="N*1"/' good.xml >expr.xml
only_line 1 "carsh: expr.xml: stream 'x': fewer.csv: 5 values, expected 8" \
	"$CARSH" run expr.xml x=fewer.csv y=-
only_line 1 "carsh: good.xml: stream 'x': <stdin>: 5 values, expected 8" \
	"$CARSH" run good.xml x=- y=- N=8 <fewer.csv
only_line 1 "carsh: argvector.xml: stream 'x': fewer.csv: 5 values, expected 8" \
	"$CARSH" run argvector.xml x=fewer.csv y=- u=fill:1 N=2
printf '1,2,3,4,5,6,7,8,9,10,11,12\n' >v12.csv
only_line 1 "carsh: argvector.xml: stream 'x': v12.csv: 12 values, expected 8 (count=\"N\" with N=2; set N=3?)" \
	"$CARSH" run argvector.xml x=v12.csv y=- u=fill:1 N=2

[ "$FAILS" = 0 ]
