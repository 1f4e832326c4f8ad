import sys, os, collections
d = sys.argv[1]
ev = []
for f in os.listdir(d):
    if f.isdigit():
        for line in open(os.path.join(d, f)):
            t, tag, tid = map(int, line.split())
            ev.append((t, tag, tid, int(f)))
ev.sort()
# runs: from tag 1 to the tag 2 after it (batch nesting: the filter's run is a flow-model, no batch)
runs = []; cur = None
for e in ev:
    if e[1] == 1 and cur is None: cur = [e]
    elif cur is not None:
        cur.append(e)
        if e[1] == 2: runs.append(cur); cur = None
shell_pid = min(e[3] for e in ev)
def rel(run, tag, which=0, pid=None):
    xs = [e[0] for e in run if e[1] == tag and (pid is None or e[3] == pid)]
    if not xs: return None
    return (xs[which] - run[0][0]) / 1000
for i, run in enumerate(runs[1:], 1):
    t0 = run[0][0]
    end = (run[-1][0] - t0) / 1000
    sends = [e[0] for e in run if e[1] == 3]
    fl = [(e[0]) for e in run if e[1] == 31]
    fe = [(e[0]) for e in run if e[1] == 33]
    wr = [e for e in run if e[1] == 20]
    wa = [e for e in run if e[1] == 21]
    print(f"run {i}: end {end:.0f}us; sends {len(sends)} first {rel(run,3):.0f} last {rel(run,4,-1):.0f}; "
          f"worker recv first {rel(run,20):.0f} last-answer {rel(run,21,-2) if len(wa)>1 else -1:.0f}; "
          f"feeder first {rel(run,31) or -1:.0f} last-enq-end {rel(run,33,-1) or -1:.0f}; "
          f"collect {rel(run,5,-1) or -1:.0f}->{rel(run,6,-1) or -1:.0f} wb {rel(run,7) or -1:.0f}->{rel(run,8) or -1:.0f}; spinfail {sum(1 for e in run if e[1]==23)}")
    if i == len(runs) - 1 or i == 3:
        # per-job durations
        def durs(a, b):
            out = []; st = None
            for e in run:
                if e[1] == a: st = e[0]
                elif e[1] == b and st is not None: out.append((e[0]-st)/1000); st = None
            return out
        import statistics as S
        for a, b, nm in [(3,4,'shell send'),(20,21,'worker job'),(31,33,'feeder launch'),(32,33,'clEnqueueNDRange')]:
            x = durs(a,b)
            if x: print(f"   {nm}: n={len(x)} median {S.median(x):.1f} sum {sum(x):.0f}")
        gaps = [(sends[k+1]-sends[k])/1000 for k in range(len(sends)-1)]
        print(f"   shell send interval median {S.median(gaps):.1f} sum {sum(gaps):.0f}")
        fg = [(fl[k+1]-fl[k])/1000 for k in range(len(fl)-1)]
        if fg: print(f"   feeder launch interval median {S.median(fg):.1f}")
        # timeline dump
        if os.environ.get('DUMP'):
            names={60:'wwenv+',61:'icd-',62:'key+',63:'key-',64:'watched?',39:'claim+',40:'claim-',41:'opened',42:'prepared',43:'assumed',44:'take+',45:'env-',46:'key-',47:'run_add+',48:'flush+',49:'flush-',50:'dump+',51:'dump-',1:'batch+',2:'batch-',3:'send+',4:'send-',5:'coll+',6:'coll-',7:'wb+',8:'wb-',20:'W recv',21:'W done',22:'W sent',23:'W sleep',30:'F woke',31:'F l+',32:'F enq+',33:'F enq-'}
            for e in run: print(f"     {(e[0]-t0)/1000:8.1f} {names.get(e[1],e[1])} {e[2]}")
