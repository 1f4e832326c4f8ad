#!/bin/sh
# The per-job device choice `auto` (docs/auto.md, 002 §4-5) on two PoCL devices: a first
# encounter tries each device once, then the earliest forecast end wins; a device busy with
# this shell's job is avoided; auto:energy refuses where there is no energy counter; the
# history shows in `devices --profiles`; `time` and `jobs` say where and why. Every output
# is checked against y = x + 1.
. "$TOP_SRCDIR/tests/shell/lib.sh"
cd "$T" || exit 1
POCL_DEVICES="pthread basic"
XDG_CACHE_HOME="$T/xdg"
export POCL_DEVICES XDG_CACHE_HOME
mkdir -p "$XDG_CACHE_HOME/carsh"
seq 1 8 >x.csv
seq 2 9 >ref.csv
cp "$DATA/bad/good.xml" g.xml

if [ "$("$CARSH" -c devices | grep -c ' cpu ')" -ne 2 ]; then
	echo "POCL_DEVICES='$POCL_DEVICES' gives no two devices here: skipped"
	exit 77
fi

# Exploration: the first two runs go to each device once.
expect 0 "place    auto: cpu" "$CARSH" --device auto -c "time run g.xml x=x.csv y=y1.csv"
first=$(sed -n 's/^place    auto: \(cpu[01]\), a first run there (no profile yet)$/\1/p' "$ERR")
[ -n "$first" ] && pass "a first encounter explores ($first)" || fail "first: $(cat "$ERR")"
close_to y1.csv ref.csv 0 "auto, first run: y"
expect 0 "" env CARSH_DEVICE=auto "$CARSH" -c "time run g.xml x=x.csv y=y2.csv"
second=$(sed -n 's/^place    auto: \(cpu[01]\), a first run there (no profile yet)$/\1/p' "$ERR")
[ -n "$second" ] && [ "$second" != "$first" ] && pass "the other device is explored next" ||
	fail "second ($first first): $(cat "$ERR")"
close_to y2.csv ref.csv 0 "auto, second run: y"
# Both known: the earliest forecast end decides, and says so.
expect 0 "" "$CARSH" -c "set device=auto:time; time run g.xml x=x.csv y=y3.csv"
grep -Eq "^place    auto: cpu[01], forecast [0-9.e+]+ ms vs cpu[01] [0-9.e+]+ ms$" "$ERR" &&
	pass "time says where and why" || fail "time: $(cat "$ERR")"
close_to y3.csv ref.csv 0 "auto, known profiles: y"
expect 0 "" "$CARSH" -c "time --json run g.xml x=x.csv y=y4.csv"
[ -s y4.csv ] || fail "no y4"
expect 0 "" "$CARSH" --device auto -c "time --json run g.xml x=x.csv y=y4.csv"
grep -q '"placement": "auto: cpu[01], forecast ' "$ERR" && pass "time --json carries it" ||
	fail "json: $(cat "$ERR")"

# The history: one line per device, this flow-model, 8 items.
expect 0 "" "$CARSH" -c "devices --profiles"
# A record of one shell's first job on a device (the compiler's first run in it) says so.
[ "$(grep -Ec "/g.xml k  \[.*\]  8 items: [0-9.e+]* ms, ([0-9]* runs?|a first run \(replaced by the next\))$" "$OUT")" -eq 2 ] &&
	pass "devices --profiles shows both devices" || fail "profiles: $(cat "$OUT")"
# In the shell that ran the job, before the history's periodic save: what it learnt shows.
mkdir -p fresh-cache
expect 0 "" env XDG_CACHE_HOME="$PWD/fresh-cache" "$CARSH" --device auto \
	-c "run g.xml x=x.csv y=y5.csv; devices --profiles"
[ "$(grep -c "/g.xml k  \[.*\]  8 items: [0-9.e+]* ms, a first run (replaced by the next)$" "$OUT")" -eq 1 ] &&
	pass "devices --profiles shows this shell's run" || fail "profiles in-session: $(cat "$OUT")"

# A busy device is avoided: a history written by hand gives h.xml 10 s on one device and
# 15 s on the other. The first job goes to the faster and waits for its input on a FIFO
# that `virtbuf dump` feeds only after the second job was placed: the faster's queue then
# ends after 20 s, and the second job goes to the other.
cp g.xml h.xml
hpath=$(cd "$T" && pwd -P)/h.xml
awk -F '\t' -v h="$hpath" '$1 == "device" { d[$4] = 1 }
	END { print "carsh-profiles 1"; n = 0
	      for (k in d) names[n++] = k
	      print "device\t" h "\tk\t" names[0] "\t8\t10000\t-1\t1"
	      print "device\t" h "\tk\t" names[1] "\t8\t15000\t-1\t1" }' \
	"$XDG_CACHE_HOME/carsh/profiles.txt" >seeded.txt
"$CARSH" -c devices >devices.txt
fast=$(sed -n 2p seeded.txt | cut -f4)
fast_i=$(awk -v n="$fast" 'index(n, $3) == 1 && $2 == "cpu" { print $1; exit }' devices.txt)
cp seeded.txt "$XDG_CACHE_HOME/carsh/profiles.txt"
rm -f fifo
mkfifo fifo
expect 0 "" "$CARSH" --device auto -c "run h.xml x=fifo y=a.csv &
run h.xml x=x.csv y=b.csv &
jobs
virtbuf create v float 8; virtbuf fill v x.csv; virtbuf dump v fifo; sync"
slow_i=$((1 - fast_i))
grep -q "h.xml  (auto: cpu$fast_i, forecast 10000 ms vs cpu$slow_i 15000 ms)$" "$OUT" &&
	pass "jobs: the first job on the faster device" || fail "jobs ($fast_i): $(cat "$OUT")"
# Device fast_i's queue ends after 20000 ms less what its first job has waited (a few ms).
busy=$(sed -n "s/.*h.xml  (auto: cpu$slow_i, forecast 15000 ms vs cpu$fast_i \([0-9.]*\) ms)$/\1/p" "$OUT")
[ -n "$busy" ] && awk -v b="$busy" 'BEGIN { exit !(b > 15000 && b <= 20000) }' &&
	pass "jobs: the second avoids the busy device ($busy ms there)" || fail "jobs ($fast_i): $(cat "$OUT")"
close_to a.csv ref.csv 0 "auto, the job behind the FIFO: y"
close_to b.csv ref.csv 0 "auto, the job beside it: y"

# The flow-model's RuntimeType is kept: with no GPU here, none can run a GPU flow-model.
sed 's|<Program>|<RuntimeType device="gpu">OpenCL</RuntimeType><Program>|' g.xml >gpu.xml
expect 1 "carsh: gpu.xml: auto (from --device/CARSH_DEVICE): no device can run it (cpu0: not the flow-model's RuntimeType; cpu1: not the flow-model's RuntimeType)" \
	"$CARSH" --device auto run gpu.xml x=x.csv y=-
sed 's|<Program>|<RuntimeType device="cpu">OpenCL</RuntimeType><Program>|' g.xml >cpu.xml
expect 0 "place    auto: cpu" "$CARSH" --device auto -c "time run cpu.xml x=x.csv y=y5.csv"
close_to y5.csv ref.csv 0 "auto with a RuntimeType: y"

# The server off: the shell's own workers.
expect 0 "" env CARSH_SERVER=off "$CARSH" --device auto -c "time run g.xml x=x.csv y=y6.csv"
grep -q "^place    auto: cpu" "$ERR" && pass "auto with the server off" || fail "$(cat "$ERR")"
close_to y6.csv ref.csv 0 "auto, server off: y"

# auto:energy needs a counter (NVML for a GPU, RAPL for the CPU).
if [ ! -r /sys/class/powercap/intel-rapl:0/energy_uj ]; then
	expect 1 "carsh: g.xml: auto:energy (from --device/CARSH_DEVICE): no device that can run it has an energy counter (NVML for a GPU, RAPL for the CPU); use auto:time or name a device" \
		"$CARSH" --device auto:energy run g.xml x=x.csv y=-
fi
expect 1 "carsh: g.xml: 'auto:fast' (from --device/CARSH_DEVICE): expected auto, auto:time or auto:energy" \
	"$CARSH" --device auto:fast run g.xml x=x.csv y=-
expect 1 "set: device 'auto:fast': expected auto, auto:time or auto:energy" \
	"$CARSH" -c "set device=auto:fast"

# A corrupt history is rebuilt, with a warning.
printf 'carsh-profiles 1\ngarbage\n' >"$XDG_CACHE_HOME/carsh/profiles.txt"
expect 0 "carsh: devices: warning: $XDG_CACHE_HOME/carsh/profiles.txt:2: not an entry (it is rebuilt)" \
	"$CARSH" -c "devices --profiles"
expect 0 "" "$CARSH" --device auto run g.xml x=x.csv y=y7.csv
close_to y7.csv ref.csv 0 "auto over a corrupt history: y"
head -1 "$XDG_CACHE_HOME/carsh/profiles.txt" | grep -qx "carsh-profiles 1" &&
	! grep -q garbage "$XDG_CACHE_HOME/carsh/profiles.txt" &&
	pass "the corrupt history was rebuilt" || fail "$(cat "$XDG_CACHE_HOME/carsh/profiles.txt")"
finish
