#!/bin/sh
# An output bound to a symbolic link writes what the link points to, as a shell's '>' does:
# a live link is written through (the link stays), and so is a dangling one, whose target
# is created, also at the end of a chain of links and relative to the link's directory.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
seq 1 8 >x.csv
"$REF" scale 2 x.csv >want.csv
mkdir -p sub

ln -s live.csv live-link.csv
: >live.csv
expect 0 "" "$CARSH" run "$FM/scale.xml" x=x.csv y=live-link.csv N=8
[ -L live-link.csv ] && same_file live.csv want.csv "a live link written through"

ln -s new.csv dangling.csv
expect 0 "" "$CARSH" run "$FM/scale.xml" x=x.csv y=dangling.csv N=8
[ -L dangling.csv ] && pass "the dangling link is still a link" ||
	fail "dangling.csv was replaced: $(ls -l dangling.csv)"
[ -f new.csv ] && same_file new.csv want.csv "a dangling link's target created"

ln -s missing.csv sub/inner.csv
ln -s sub/inner.csv chain.csv
expect 0 "" "$CARSH" run "$FM/scale.xml" x=x.csv y=chain.csv N=8
[ -L chain.csv ] && [ -L sub/inner.csv ] && [ -f sub/missing.csv ] &&
	same_file sub/missing.csv want.csv "a chain of links: the target relative to the last link's folder" ||
	fail "chain: $(ls -l chain.csv sub)"
finish
