#!/bin/bash
# probe timeline: N sizes, default and -T, 7 timed runs each as in resident.sh
[ -n "$LOCAL" ] || { mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; }
top=$PWD; P=$top/.carry/probe; C=${C:-$P/carsh}; FFTREF=${FFTREF:-$top/.carry/gpu/build/tests/tools/fftref}
export LD_LIBRARY_PATH=$top/.carry/gpu
R=${OUT:-/tmp/probeout}; mkdir -p $R
work=$(mktemp -d); export XDG_CACHE_HOME=$work/cache CARSH_SERVER=off
steps=$work/steps.bat.xml
sed -e "s|file=\"|file=\"$top/batches/fft-filter/|" -e "s|\${BATCH_DIR}|$top/batches/fft-filter|g" \
	-e 's|</CarshBat>|  <Virtbuf op="dump" name="stage" file="/dev/null"/>\n</CarshBat>|' \
	$top/batches/fft-filter/filter-steps.bat.xml > $steps
for n in ${SIZES:-128 1024}; do
  $FFTREF picture $n $work/pic$n.pgm
  { for b in re im re_next im_next result; do echo "virtbuf create $b float $((n*n))"; done
    echo "virtbuf create stage int 1"; echo "virtbuf create stage_next int 1"
    echo "virtbuf fill re $work/pic$n.pgm"
    for ((i = 0; i <= ${RUNS:-7}; i++)); do echo "time --wall run $steps N=$n CUT=$(($n / 8))"; done; } > $work/s$n.csh
  for ex in def thr; do
    d=$R/$ex-$n; mkdir -p $d
    opt=; [ $ex = thr ] && opt=-T
    CARSH_PROBE=$d $C $opt ${DEV:---device gpu} $work/s$n.csh 2> $d/time.txt >/dev/null
    grep real $d/time.txt | tr '\n' ' ' ; echo " <- $ex $n"
  done
done
