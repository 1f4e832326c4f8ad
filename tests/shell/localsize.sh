#!/bin/sh
# local="device" (docs/formats.md, "<FlowModel>"): CarSh picks the work-group size on the
# device the job runs on, a divisor of the global size (the choice itself is checked with
# made-up limits in tests/unit/test_localsize.c). Every device allows 96 work-items for a
# kernel this small, so global sizes of 96 and 97 (a prime) take one group.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
cat >lsz.xml <<'XML'
<FlowModel name="lsz">
  <Param name="N" value="96"/>
  <Param name="M" value="1"/>
  <RuntimeType>OpenCL</RuntimeType>
  <Program>
    <Source>__kernel void lsz(__global int *l)
{
	size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);
	l[2 * i] = (int)get_local_size(0);
	l[2 * i + 1] = (int)get_local_size(1);
}</Source>
    <Kernel name="lsz"/>
  </Program>
  <WorkSize global="N,M" local="device"/>
  <Arguments>
    <Output name="l" type="int" count="2*N*M"/>
  </Arguments>
</FlowModel>
XML
# sizes N M: the distinct "local0,local1" pairs the kernel saw
sizes() {
	"$CARSH" run lsz.xml N="$1" M="$2" l=got.csv && paste -d, - - <got.csv | sort -u
}
[ "$(sizes 96 1)" = "96,1" ] && pass "local=\"device\", global 96: one group of 96" ||
	fail "global 96: local sizes $(sizes 96 1)"
[ "$(sizes 97 1)" = "97,1" ] && pass "global 97 (a prime): one group of 97" ||
	fail "global 97: local sizes $(sizes 97 1)"
[ "$(sizes 96 3)" = "96,1" ] && pass "global 96,3: local 96,1" ||
	fail "global 96,3: local sizes $(sizes 96 3)"
got=$(sizes 65536 1)
case "$got" in
*,1) l=${got%,1} ;;
*) l=0 ;;
esac
[ "$l" -ge 64 ] && [ $((65536 % l)) -eq 0 ] && [ $((l & (l - 1))) -eq 0 ] &&
	pass "global 65536: one local size $l, a power of two of at least 64" ||
	fail "global 65536: local sizes $got"
# "device" stands for every dimension; anything else is one expression per dimension.
sed 's/local="device"/local="DEV"/' lsz.xml >named.xml
expect 1 "carsh: named.xml:14: <WorkSize>: global has 2 dimensions but local has 1" \
	"$CARSH" run named.xml l=discard
exit $((FAILS > 0))
