#!/bin/sh
# The persistent program binary cache (DESIGN §5): reused when nothing changed, never stale,
# rebuilt when corrupt, off with CARSH_NO_CACHE=1.
. "$TOP_SRCDIR/tests/shell/lib.sh"
# The disk cache is what a process that starts cold reads: a server's warm worker holds the
# programs it built in memory (docs/server.md), so these run without the server.
export CARSH_SERVER=off
cd "$T" || exit 1
export XDG_CACHE_HOME="$T/cache"
seq 1 8 >x.csv
sed 's|+ 1.0f;|+ 10.0f;|' "$DATA/bad/good.xml" >k.xml

expect 0 "(compiled)" "$CARSH" -c "time run k.xml x=x.csv y=-"
n=$(ls "$XDG_CACHE_HOME/carsh" | wc -l)
[ "$n" -eq 1 ] && pass "a first build stores one binary" || fail "cache holds $n files"
expect 0 "(binary cache)" "$CARSH" -c "time run k.xml x=x.csv y=-"
seq 11 18 >want
same_file "$OUT" want "the cached binary computes the same result"

# A changed source is rebuilt, never served from the old binary.
sed -i 's|+ 10.0f;|+ 20.0f;|' k.xml
expect 0 "(compiled)" "$CARSH" -c "time run k.xml x=x.csv y=-"
seq 21 28 >want
same_file "$OUT" want "an edited kernel gives the new result"
# Changed build options are a different binary too.
sed -i 's|<Kernel name="k"/>|<Kernel name="k"/><BuildOptions>-DUNUSED=1</BuildOptions>|' k.xml
expect 0 "(compiled)" "$CARSH" -c "time run k.xml x=x.csv y=-"

# A corrupt file is rebuilt.
for f in "$XDG_CACHE_HOME"/carsh/*; do printf 'garbage' | dd of="$f" bs=1 seek=40 conv=notrunc 2>/dev/null; done
expect 0 "(compiled)" "$CARSH" -c "time run k.xml x=x.csv y=-"
same_file "$OUT" want "a corrupt cache file is rebuilt, the result is right"
expect 0 "(binary cache)" "$CARSH" -c "time run k.xml x=x.csv y=-"

# CARSH_NO_CACHE=1 reads and writes nothing.
rm -rf "$XDG_CACHE_HOME/carsh"
expect 0 "(compiled)" env CARSH_NO_CACHE=1 "$CARSH" -c "time run k.xml x=x.csv y=-"
[ ! -e "$XDG_CACHE_HOME/carsh" ] || [ -z "$(ls "$XDG_CACHE_HOME/carsh")" ] &&
	pass "CARSH_NO_CACHE=1 stores nothing" || fail "cache written despite CARSH_NO_CACHE=1"

# time --wall: the wall time and the jobs, no profiled times; the same result.
expect 0 "jobs              1 on " "$CARSH" -c "time --wall run k.xml x=x.csv y=-"
same_file "$OUT" want "time --wall runs the command as it is"
grep -q "^real " "$ERR" && ! grep -q "kernel\|platform" "$ERR" &&
	pass "time --wall prints real and jobs only" || fail "time --wall printed: $(cat "$ERR")"
expect 0 "kernel " "$CARSH" -c "set stats=on; run k.xml x=x.csv y=-"
expect 2 "time: --wall needs a command" "$CARSH" -c "time --wall"
# The parsed-file cache (model/filecache.h): in one session, a file edited between two
# commands is read again by the second, however it was changed, also once the session has
# seen it unchanged often enough to watch it (util/filewatch.h). d/k.xml adds C to x.
mkdir d
sed 's|+ 1.0f;|+ 31.0f;|' "$DATA/bad/good.xml" >d/k.xml
start_carsh -i
round=0
run_round() { # WANTED-ADDEND: three runs (the third through the watch), each checked
	round=$((round + 1))
	for i in 1 2 3; do send "run d/k.xml x=x.csv y=got-$round-$i.csv"; done
	send "echo round $round"
	wait_until "round $round" grep -q "^round $round\$" "$T/carsh.out"
	awk -v c="$1" '{ print $1 + c }' x.csv >want-$round
	for i in 1 2 3; do same_file got-$round-$i.csv want-$round "round $round, run $i: + $1"; done
}
run_round 31
sed -i 's|+ 31.0f;|+ 32.0f;|' d/k.xml # a new file renamed over it
run_round 32
sed 's|+ 32.0f;|+ 33.0f;|' d/k.xml >k.new && cat k.new >d/k.xml # rewritten in place
run_round 33
sed 's|+ 33.0f;|+ 34.0f;|' d/k.xml >k.new && touch -r d/k.xml k.new &&
	cat k.new >d/k.xml && touch -r k.new d/k.xml # same size, same mtime
run_round 34
mv d old && mkdir d && sed 's|+ 34.0f;|+ 35.0f;|' old/k.xml >d/k.xml # its directory replaced
run_round 35
stop_carsh
[ "$CSTATUS" = 0 ] && pass "the session ended well" || fail "session: $CSTATUS $(cat "$T/carsh.err")"

expect 0 "CARSH_FEEDER='bogus' is not on, off or auto; using auto" \
	env CARSH_FEEDER=bogus "$CARSH" -T -c "run k.xml x=x.csv y=-"
finish
