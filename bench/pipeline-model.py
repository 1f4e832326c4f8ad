#!/usr/bin/env python3
"""The pipeline engine's model checked offline against recorded measurements.

For each recorded validation (bench/pipeline.sh's per-configuration measurements) this
prints, per configuration family and in all, how many configurations the model predicts
within 10 %, how many within 10 % or within the measured noise (an error that two runs of
one configuration explain is not the model's: the issue's figure), the mean and max error
and the median signed error: first for the predictions as recorded, then for the
model of each given build replayed (tests/tools/pipereplay) over the training the
predictions came from. Where the runs' paths are recorded (the JSON, or a CSV with the path
columns), --paths compares each path's rate too: the GPU (or GPU-CPU) path's items per
second and the CPU path's, measured against the model's split.

  bench/pipeline-model.py [--replay [LABEL=]PIPEREPLAY]... [--gpu-host U] [--detail]
                          [--paths] [--residuals] [--cpu-from-stream] [--beside-from-stream]
                          [--carry] [--drift] SOURCE...
  bench/pipeline-model.py --print-training NAME.json

SOURCE is one of
  NAME.json              a validation's --json (bench/pipeline.sh's $OUT/NAME.json): the
                         training, every prediction and measurement, the noise, the paths
  BENCH.txt[:INSTANCE]   bench/pipeline.sh's printed report (every instance in it, or one):
                         the validation's predictions and measurements; its training where
                         the report has its "replay:" lines (the validation's own), else the
                         training of the first, training-only run of the instance: another
                         training (another process, minutes apart), without the n-thread
                         experiments' stage times and the GPU thread's share of a core
                         (--gpu-host, default 1.0): each stage is taken to slow down with n
                         threads as the whole item does, n·T^CG(n)/T^CG(1)
  BENCH.txt:INSTANCE@NAME.csv
                         the same, with the predictions and measurements at full
                         precision (and the paths, where recorded) from the validation's CSV
  NAME.csv               bench/pipeline.sh's CSV (config,strict,predicted,measured,error,
                         items[,ms,gpu_items,gpu_item_ms,cpu_items,cpu_item_ms]): the
                         recorded predictions only, no training, no noise

--replay may be given more than once (a build before and after a change): each is a
column, named LABEL. --flow INSTANCE=FILE gives the buffers and which stage reads and
writes which (pipereplay's buffer, flow and sink lines; bench/results/pipeline-*.flow) to
the sources whose name holds INSTANCE and whose training predates them. --print-training prints a JSON's training in pipereplay's format (what
bench/pipeline.sh puts in its report as "replay:" lines).
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

FAMILIES = ["DP-CG", "DP-MG", "CPU only", "CP-CG coupled", "CP-MG coupled"]
NUM = r"[-+]?[0-9.]+(?:e[-+]?[0-9]+)?"


def family(cfg):
    """The configuration's family: DP-CG, DP-MG, homogeneous CPU, coupled CG or MG."""
    if cfg.startswith("DP-"):
        return cfg[:5]
    stages = cfg.rsplit(":", 1)[1] if cfg.count(":") == 2 else ""
    if stages and set(stages) == {"0"}:
        return "CPU only"
    return "CP-CG coupled" if cfg.startswith("CP-CG") else "CP-MG coupled"


class Source:
    """One instance's recorded validation: measured (config -> items/s), the recorded
    predictions, the paths (config -> (GPU path items/s, CPU path items/s)), the noise
    (None: unknown), the training (a dict for pipereplay, or None) and where it came from."""

    def __init__(self, name):
        self.name = name
        self.measured = {}
        self.recorded = {}
        self.paths = {}
        self.noise = None
        self.baseline = None  # the baseline's measured items/s
        self.chosen = None  # the configuration the recorded model chose
        self.meas = None
        self.runs = {}  # a JSON's runs, config -> run, in the validation's order
        self.drift = []  # a JSON's CPU alone measured at the validation's start and end
        self.note = "no training recorded"


def meas_of_json(doc):
    m = doc["trainings"][0]["measurements"]
    nst = len(m["stages"])
    return {
        "s": nst,
        "nc": doc["cores"],
        "gpu": doc["gpu"] is not None,
        "gpu_ok": sum(1 << k for k, st in enumerate(m["stages"]) if st["gpu_ms"] is not None),
        "stages": [[st["cg_ms"], st["mg_ms"], st["gpu_ms"] or 0, st["h2d_ms"] or 0,
                    st["d2h_ms"] or 0, st["cg_in_ms"], st["cg_out_ms"], st["mg_in_ms"],
                    st["mg_out_ms"]] for st in m["stages"]],
        "cgn": [[t] + (row if len(row) == nst else [])
                for t, row in zip(m["cg_threads_ms"], m["cg_threads_stage_ms"])],
        "gpu_host": m["gpu_host"] or 0,
        "serial": [m["input_ms"], m["output_ms"]],
        "flow": flow_of_json(m.get("flow")),
        "beside": ([m["beside_threads"]] + m["beside_stage_ms"]
                   if m.get("beside_threads") else None),
        "beside_gpu": m.get("beside_gpu_item_ms") or 0,
        "beside_gpu_median": m.get("beside_gpu_median_ms") or 0,
        "beside_gpu_alone": m.get("beside_gpu_alone_ms") or 0,
    }


def mask(bufs):
    return sum(1 << b for b in bufs)


def flow_of_json(fl):
    """The training's buffers and which stage reads and writes which, as pipereplay's lines
    (None where the JSON predates them)."""
    if not fl:
        return None
    out = ["buffer %d %d" % (b, n) for b, n in enumerate(fl["bytes"])]
    out += ["flow %d %d %d" % (k, mask(r), mask(w))
            for k, (r, w) in enumerate(zip(fl["reads"], fl["writes"]))]
    out.append("sink %d" % mask(fl["sink"]))
    return out


def meas_lines(meas):
    """A training in pipereplay's format (tests/tools/pipereplay.c), milliseconds."""
    out = ["shape %d %d %d %d" % (meas["s"], meas["nc"], 1 if meas["gpu"] else 0,
                                  meas["gpu_ok"])]
    out += ["stage %d %s" % (k, " ".join("%.9g" % x for x in st))
            for k, st in enumerate(meas["stages"])]
    out += ["cgn %d %s" % (n, " ".join("%.9g" % x for x in row))
            for n, row in enumerate(meas["cgn"], 1)]
    # The flow before the serial line: a report's replay lines end with "serial".
    out += meas.get("flow") or []
    if meas.get("beside"):
        out.append("beside %d %s" % (meas["beside"][0],
                                     " ".join("%.9g" % x for x in meas["beside"][1:])))
    if meas.get("beside_gpu") and meas.get("beside_gpu_median") and meas.get("beside_gpu_alone"):
        out.append("beside_gpu %.9g %.9g %.9g" % (meas["beside_gpu"], meas["beside_gpu_median"],
                                                  meas["beside_gpu_alone"]))
    elif meas.get("beside_gpu"):
        out.append("beside_gpu %.9g" % meas["beside_gpu"])
    out.append("gpu_host %.9g" % meas["gpu_host"])
    out.append("serial %.9g %.9g" % tuple(meas["serial"]))
    return out


def meas_of_lines(lines):
    """The inverse of meas_lines."""
    meas = {"stages": [], "cgn": [], "gpu_host": 0, "serial": [0, 0]}
    for line in lines:
        w = line.split()
        v = [float(x) for x in w[1:]]
        if w[0] == "shape":
            meas.update(s=int(v[0]), nc=int(v[1]), gpu=v[2] != 0, gpu_ok=int(v[3]))
        elif w[0] == "stage":
            meas["stages"].append(v[1:])
        elif w[0] == "cgn":
            meas["cgn"].append(v[1:])
        elif w[0] == "gpu_host":
            meas["gpu_host"] = v[0]
        elif w[0] == "beside":
            meas["beside"] = [int(v[0])] + v[1:]
        elif w[0] == "beside_gpu":
            meas["beside_gpu"] = v[0]
            meas["beside_gpu_median"] = v[1] if len(v) > 2 else 0
            meas["beside_gpu_alone"] = v[2] if len(v) > 2 else 0
        elif w[0] == "serial":
            meas["serial"] = v
        elif w[0] in ("buffer", "flow", "sink"):
            meas.setdefault("flow", []).append(line)
    return meas


def read_flow(path):
    """A file of pipereplay's buffer, flow and sink lines ('#' lines ignored)."""
    with open(path) as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def from_json(path):
    with open(path) as f:
        doc = json.load(f)
    src = Source(os.path.basename(path))
    src.meas = meas_of_json(doc)
    val = doc["validation"]
    for run in val["runs"]:
        if not run["strict"]:
            src.runs[run["config"]] = run
        if run["strict"]:
            src.baseline = run["throughput"]
        if run["strict"] or run["predicted"] is None:
            continue
        c = run["config"]
        src.measured[c] = run["throughput"]
        src.recorded[c] = run["predicted"]
        if run["ms"] > 0:
            src.paths[c] = (run["gpu_items"] / run["ms"] * 1e3,
                            run["cpu_items"] / run["ms"] * 1e3)
    src.noise = val["noise"]
    src.drift = val.get("drift") or []
    src.chosen = val["chosen"]
    src.note = "the validation's own training"
    return src


def from_csv(path):
    src = Source(os.path.basename(path))
    with open(path) as f:
        for line in f:
            p = line.strip().split(",")
            if len(p) >= 6 and p[1] == "true":
                src.baseline = float(p[3])
            if len(p) < 6 or p[1] != "false" or p[2] == "null":
                continue
            src.recorded[p[0]] = float(p[2])
            src.measured[p[0]] = float(p[3])
            if len(p) >= 11 and float(p[6]) > 0:
                src.paths[p[0]] = (float(p[7]) / float(p[6]) * 1e3,
                                   float(p[9]) / float(p[6]) * 1e3)
    return src


def parse_training(lines, i):
    """The --explain table after a 'training 1:' line, from lines[i]."""
    stages, cgn, serial = [], [], [0.0, 0.0]
    for line in lines[i:]:
        w = line.split()
        if line.startswith("  CG, n threads"):
            cgn = [[float(t)] for t in re.findall(r"\d+: (" + NUM + ")", line)]
        elif line.startswith("  serial stages"):
            serial = [float(x) for x in re.findall(r"(?:input|output) (" + NUM + ")", line)]
            break
        elif len(w) == 10 and re.fullmatch(NUM, w[1]):
            stages.append([0.0 if x == "-" else float(x) for x in w[1:]])
    # The n-thread experiments' stage times are not in the table: each stage slowed down
    # as the whole item, n·T^CG(n) / T^CG(1).
    for n, row in enumerate(cgn, 1):
        slow = n * row[0] / cgn[0][0] if n > 1 else 1
        row.extend(st[0] * slow for st in stages)
    return stages, cgn, serial


def from_text(path, want, gpu_host):
    """Every instance of a bench/pipeline.sh report (or the one named)."""
    with open(path) as f:
        lines = f.read().splitlines()
    cores = gpu = None
    for line in lines:
        m = re.match(r"# nC = (\d+) CPU cores( and a GPU)?", line)
        if m:
            cores, gpu = int(m.group(1)), m.group(2) is not None
    out, cur, trains, replay_lines = [], None, {}, []
    for i, line in enumerate(lines):
        m = re.match(r"== (\S+) \(.*\): training", line)
        if m:
            stages, cgn, serial = parse_training(lines, i + 1)
            gpu_ok = sum(1 << k for k, st in enumerate(stages) if st[2] > 0)
            trains[m.group(1)] = {"s": len(stages), "nc": cores, "gpu": gpu,
                                  "gpu_ok": gpu_ok, "stages": stages, "cgn": cgn,
                                  "gpu_host": gpu_host, "serial": serial}
            continue
        m = re.match(r"== (\S+) \(.*\): every configuration", line)
        if m:
            cur, replay_lines = Source("%s:%s" % (os.path.basename(path), m.group(1))), []
            cur.meas = trains.get(m.group(1))
            cur.note = ("the training-only run's training (not the validation's), "
                        "GPU thread's share %.2f, n-thread stage times from T^CG(n)" % gpu_host)
            if not want or want == m.group(1):
                out.append(cur)
            continue
        if line.startswith("=="):
            cur = None  # another section: the summary, the model offline
        if cur is None:
            continue
        if line.startswith("  replay: "):
            replay_lines.append(line[len("  replay: "):])
            if line.startswith("  replay: serial"):
                cur.meas = meas_of_lines(replay_lines)
                cur.note = "the validation's own training (the report's replay lines)"
            continue
        w = line.split()
        if len(w) >= 4 and w[0] == "baseline":
            cur.baseline = float(w[3])
        m = re.match(r"chosen (\S+): ", line)
        if m:
            cur.chosen = m.group(1)
        if len(w) >= 4 and re.match(r"(DP|CP)-", w[0]) and w[1] != "-":
            cur.recorded[w[0]] = float(w[1])
            cur.measured[w[0]] = float(w[2])
        m = re.match(r"noise (" + NUM + ") %", line)
        if m:
            cur.noise = float(m.group(1)) / 100
    return out


def cpu_from_stream(src):
    """src's training with each CG experiment (T^CG(n) and its stage times) replaced by what
    the validation's homogeneous CPU run with n threads measured in the stream: what the
    model predicts where the cores' times are right, so that what is left is the model's
    composition (a JSON only; None where a run is missing)."""
    if not src.meas or not src.runs:
        return None
    meas = json.loads(json.dumps(src.meas))
    zeros = "0" * meas["s"]
    for n in range(1, len(meas["cgn"]) + 1):
        run = src.runs.get("CP-CG:%d:%s" % (n, zeros))
        if not run or not run["throughput"] or None in run["cpu_stage_ms"]:
            return None
        meas["cgn"][n - 1] = [1e3 / run["throughput"]] + run["cpu_stage_ms"]
    return meas


def beside_from_stream(src, stream=None, cores=True):
    """src's training with the CG experiment beside the GPU made up from the stream: with nC
    threads, each stage's median time on the CPU path of the coupled CP-CG runs over the
    homogeneous run's, times the CG experiment with nC threads, and the feeder's GPU item the
    median GPU-path item of the DP-CG runs — what the experiment would give if it measured
    what the validation's runs met (a JSON only; None where a run is missing). An upper bound of what the experiment can bring, fitted on the same
    runs it is scored against. With `stream` (another validation of the instance, --carry),
    that validation's runs instead of src's: what src's training would predict had the run
    before fed what its stream measured beside the GPU back into the knowledge on disk.
    Without `cores`, the feeder's item only: the CPU stages beside the GPU as src measured them."""
    stream = stream or src
    if not src.meas or not stream.runs or not src.meas["gpu"]:
        return None
    meas = json.loads(json.dumps(src.meas))
    nc, nst = meas["nc"], meas["s"]
    homo = stream.runs.get("CP-CG:%d:%s" % (nc, "0" * nst))
    plain = meas["cgn"][nc - 1][1:] if len(meas["cgn"]) >= nc else []
    if not homo or None in homo["cpu_stage_ms"] or len(plain) != nst:
        return None
    ratios = [[] for _ in range(nst)]
    for c, run in stream.runs.items():
        w = c.split(":")
        if (w[0] != "CP-CG" or w[1] != str(nc) or set(w[2]) == {"0"} or not run["cpu_items"]
                or None in run["cpu_stage_ms"]):
            continue
        for k in range(nst):
            ratios[k].append(run["cpu_stage_ms"][k] / homo["cpu_stage_ms"][k])
    if not ratios[0]:
        return None
    if cores:
        meas["beside"] = [nc - 1] + [statistics.median(r) * p for r, p in zip(ratios, plain)]
    dp = [run["gpu_item_ms"] for c, run in stream.runs.items()
          if c.startswith("DP-CG:") and run["gpu_item_ms"]]
    meas["beside_gpu"] = statistics.median(dp) if dp else 0
    return meas


def replay(binary, meas):
    """The model of the build `binary` over meas: config -> (items/s, GPU path's share)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(meas_lines(meas)) + "\n")
        name = f.name
    try:
        res = subprocess.run([binary, name], capture_output=True, text=True, check=True)
    finally:
        os.unlink(name)
    pred, chosen = {}, None
    for line in res.stdout.splitlines():
        p = line.split(",")
        if p[0] == "chosen":
            chosen = p[1]
        elif p[0] != "baseline":
            pred[p[0]] = (float(p[1]), float(p[2]) if len(p) > 2 else None)
    return pred, chosen


def errors(measured, pred, only):
    return [(pred[c] - m) / m for c, m in measured.items()
            if c in pred and pred[c] is not None and m > 0 and
            (only is None or family(c) == only)]


def tolerance(noise):
    """The error a configuration may have and count as predicted: 10 %, or the noise
    between two runs of one configuration where that is larger (unknown: 10 %)."""
    return max(0.10, noise or 0)


def stats(measured, pred, noise, only=None):
    """(n, within 10 %, within the tolerance, mean |e|, max |e|, median e) over the
    configurations of family `only` (all: None)."""
    errs = errors(measured, pred, only)
    if not errs:
        return None
    a = [abs(e) for e in errs]
    return (len(a), sum(x <= 0.10 for x in a), sum(x <= tolerance(noise) for x in a),
            100 * sum(a) / len(a), 100 * max(a), 100 * statistics.median(errs))


def fmt(s):
    if s is None:
        return "-"
    return "%3d/%-3d %3d/%-3d %5.1f %6.1f %+6.1f" % (s[1], s[0], s[2], s[0], s[3], s[4], s[5])


def threads_of(cfg):
    """A CG configuration's threads; None for MG."""
    p = cfg.split(":")
    return int(p[1]) if len(p) > 1 and p[1] else None


def band(cfg, nc):
    """The configuration's thread count, banded: 1, 2-8, 9 to nC - 1, nC and nC + 1, MG."""
    t = threads_of(cfg)
    if t is None:
        return "MG"
    if t == 1:
        return "1"
    if t <= 8:
        return "2-8"
    return "9-%d" % (nc - 1) if t < nc else "%d-%d" % (nc, nc + 1)


def report_residuals(src, models):
    """Each model's signed errors per family and thread band: where the model's errors are
    systematic (one sign over a family) rather than noise."""
    nc = src.meas["nc"] if src.meas else 16
    print("  %-16s %-6s %-26s %s" % ("residuals", "threads", "model",
                                     "within10|noise median%  mean|e|%"))
    for label, pred, _ in models:
        groups = {}
        for c, m in src.measured.items():
            if c in pred and m > 0:
                groups.setdefault((family(c), band(c, nc)), []).append((pred[c] - m) / m)
        for (fam, b), e in sorted(groups.items(), key=lambda kv: (FAMILIES.index(kv[0][0]),
                                                                  kv[0][1])):
            print("  %-16s %-6s %-26s %3d/%-3d %+7.1f %7.1f" % (
                fam, b, label, sum(abs(x) <= tolerance(src.noise) for x in e), len(e),
                100 * statistics.median(e), 100 * statistics.mean(abs(x) for x in e)))


def scaled_cpu(meas, s):
    """meas with every time the CPU's cores measured multiplied by s (the GPU's kernels and
    transfers, its feeder's item and the serial stages as they were): the training of a
    machine whose cores all ran s times as long."""
    m = json.loads(json.dumps(meas))
    for st in m["stages"]:
        for i in (0, 1, 5, 6, 7, 8):  # CG, MG and the moves into and out of their contexts
            st[i] *= s
    m["cgn"] = [[x * s for x in row] for row in m["cgn"]]
    if m.get("beside"):
        m["beside"] = m["beside"][:1] + [x * s for x in m["beside"][1:]]
    return m


def one_thread_stages(src, cfg):
    """The stream's one-thread stage times (ms) of CP-CG:1:MASK, stage -> time, for the CPU
    stages that no GPU stage precedes (no move in): one core's stage as the training's
    T_k^CG measured it."""
    run, mask = src.runs[cfg], cfg.split(":")[2]
    st = run["gpu_stage_ms"] if run["gpu_items"] else run["cpu_stage_ms"]
    return {k: st[k] for k, b in enumerate(mask)
            if st and b == "0" and (k == 0 or mask[k - 1] == "0") and st[k]}


def over_training(src, times):
    """Stage times (stage -> ms) summed, over the training's T_k^CG of the same stages."""
    return sum(times.values()) / sum(src.meas["stages"][k][0] for k in times) if times else None


def mapping_blocks(src):
    """The validation's CG runs per mapping, in the order they ran: [(mapping, [config])]."""
    blocks = []
    for c in src.runs:
        w = c.split(":")
        if w[0] not in ("CP-CG", "DP-CG"):
            continue
        key = w[2] if len(w) > 2 else "DP"
        if not blocks or blocks[-1][0] != key:
            blocks.append((key, []))
        blocks[-1][1].append(c)
    return blocks


def thirds(values):
    """The medians of the first, middle and last third of values, formatted."""
    n = len(values)
    cuts = [values[:n // 3], values[n // 3:n - n // 3], values[n - n // 3:]]
    return ", ".join("%.2f" % statistics.median(v) if v else "-" for v in cuts)


def report_drift(src, binary):
    """Whether the machine moved while the validation ran (a JSON only): the CPU alone
    measured at its start and end; one thread's stages over the training's, mapping by
    mapping; DP-CG's CPU path (the last runs) over the homogeneous run with a thread fewer
    (the first ones); with a build, the scale of the training's CPU times that fits each
    mapping's runs best (a fit, to read, not a model) and the model re-anchored on the one-thread
    times measured before each run (pipereplay over the scaled training)."""
    if not src.runs or not src.meas:
        return
    for d in src.drift:
        print("  drift: %s %.1f items/s first, %.1f last (%+.1f %%)" % (
            d["config"], d["start"], d["end"], 100 * (d["end"] - d["start"]) / d["start"]))
    one = [over_training(src, one_thread_stages(src, c)) for c in src.runs
           if c.startswith("CP-CG:1:")]
    one = [r for r in one if r is not None]
    if one:
        print("  one thread over the training, mapping by mapping (first, middle, last third): "
              "%s; %s" % (thirds(one), " ".join("%.2f" % r for r in one)))
    zeros, ratio = "0" * src.meas["s"], {}
    for c, run in src.runs.items():
        w = c.split(":")
        homo = src.runs.get("CP-CG:%d:%s" % (int(w[1]) - 1, zeros)) if w[0] == "DP-CG" else None
        if homo and run["cpu_item_ms"] and homo["cpu_item_ms"]:
            ratio[int(w[1])] = run["cpu_item_ms"] / homo["cpu_item_ms"]
    if ratio:
        lo = [r for n, r in ratio.items() if n <= 8]
        hi = [r for n, r in ratio.items() if n > 8]
        print("  DP-CG's CPU item over the homogeneous one with a thread fewer: median %s at "
              "2-8 threads, %s at 9-%d" % ("%.2f" % statistics.median(lo) if lo else "-",
                                           "%.2f" % statistics.median(hi) if hi else "-",
                                           src.meas["nc"] + 1))
    jag = scatter(src)
    if jag is not None:
        print("  scatter from one thread count to the next: %.3f (the median |e(n) - (e(n-1) + "
              "e(n+1)) / 2| of the recorded errors, e = log(predicted / measured))" % jag)
    if binary:
        report_rescaled(src, binary)


def scatter(src):
    """How far each CG configuration's recorded error stands from its two neighbours' in
    thread count (same mapping): the model is smooth in the threads, so what is left is the
    stream's scatter from one run to the next (independent errors of s each give about
    0.83 s). None with fewer than three thread counts."""
    series = {}
    for c in src.measured:
        w = c.split(":")
        if w[0] in ("CP-CG", "DP-CG") and src.recorded.get(c):
            series.setdefault((w[0], w[2] if len(w) > 2 else ""), {})[int(w[1])] = math.log(
                src.recorded[c] / src.measured[c])
    d = [abs(e[n] - (e[n - 1] + e[n + 1]) / 2) for e in series.values() for n in e
         if n - 1 in e and n + 1 in e]
    return statistics.median(d) if d else None


def report_rescaled(src, binary):
    """report_drift's part that replays the training with its CPU times scaled."""
    cache = {}

    def pred(s):
        s = round(s, 2)
        if s not in cache:
            cache[s] = replay(binary, scaled_cpu(src.meas, s))[0]
        return cache[s]

    tol, fits, fitted, plain = tolerance(src.noise), [], 0, 0
    for _, cfgs in mapping_blocks(src):
        cfgs = [c for c in cfgs if c in src.measured]
        if len(cfgs) < 5:
            continue
        fits.append(min((statistics.median(abs(pred(s / 100)[c][0] / src.measured[c] - 1)
                                           for c in cfgs), s / 100)
                        for s in range(60, 151, 2))[1])
        fitted += sum(abs(pred(fits[-1])[c][0] / src.measured[c] - 1) <= tol for c in cfgs)
        plain += sum(abs(pred(1.0)[c][0] / src.measured[c] - 1) <= tol for c in cfgs)
    if fits:
        print("  the CPU's scale that fits each mapping best (first, middle, last third): %s; "
              "spread %.2f-%.2f; within 10 %% or the noise at it %d of their configurations "
              "(as trained: %d)" % (thirds(fits), min(fits), max(fits), fitted, plain))
    as_trained = sum(abs(pred(1.0)[c][0] - m) / m <= tol for c, m in src.measured.items())
    if src.drift and src.drift[-1]["end"] > 0:
        # The CPU alone with nC threads (one where nC = 1) first and last: its times at the
        # end over those at the start, taken to have moved evenly in between.
        d, cfgs = src.drift[-1], list(src.measured)
        end = d["start"] / d["end"]
        print("  the drift spread evenly over the validation (the CPU's times x 1.00 at its "
              "start to x %.2f at its end, from %s): %d of %d within 10 %% or the noise (as "
              "trained: %d)" % (end, d["config"], sum(
                  abs(pred(1 + (end - 1) * i / len(cfgs))[c][0] / src.measured[c] - 1) <= tol
                  for i, c in enumerate(cfgs)), len(cfgs), as_trained))
    # Each stage's latest one-thread time before the run, the training's until measured.
    seen, within, n = {}, 0, 0
    for c, m in src.measured.items():
        within += abs(pred(over_training(src, seen) or 1.0)[c][0] - m) / m <= tol
        n += 1
        if c.startswith("CP-CG:1:") and c in src.runs:
            seen.update(one_thread_stages(src, c))
    print("  re-anchored on the one-thread times measured before each run: %d of %d within "
          "10 %% or the noise (as trained: %d)" % (within, n, as_trained))


def report_pairs(srcs):
    """--drift over two or more JSONs of one instance (one file name): for each two runs, each
    mapping's median log ratio of the measured throughputs, mapping by mapping in the order they
    ran. Where both machines stayed as they were the ratio is one constant whatever the
    mapping; how far it moves from one mapping to the next (its standard deviation, in %) is
    what one run's machine moved against the other's while they ran, no model involved."""
    by_name = {}
    for label, src in srcs:
        if src.runs:
            by_name.setdefault(src.name, []).append((label, src))
    for name, runs in by_name.items():
        for i, (la, a) in enumerate(runs):
            for lb, b in runs[i + 1:]:
                meds = [statistics.median(math.log(a.measured[c] / b.measured[c]) for c in cfgs
                                          if c in b.measured)
                        for _, cfgs in mapping_blocks(a) if any(c in b.measured for c in cfgs)]
                if len(meds) > 1:
                    print("  %s: %s over %s, each mapping's median log ratio x 100 (first, "
                          "middle, last third): %s; spread %.1f" % (
                              name, la, lb, thirds([100 * m for m in meds]),
                              100 * statistics.pstdev(meds)))


def report_replay(src, models):
    """How far each replay lands from the recorded predictions: 0 where the recorded
    training is the validation's own and the build's model is the one that predicted."""
    for label, pred, _ in models[1:]:
        d = [abs(pred[c] - r) / r for c, r in src.recorded.items() if c in pred and r > 0]
        if d:
            print("  %s against the recorded predictions: %d of %d within 0.1 %%, max %.1f %%"
                  % (label, sum(x <= 1e-3 for x in d), len(d), 100 * max(d)))


def report_paths(src, models):
    """Each path's rate, measured against each replayed model's split of its prediction:
    the median signed error and the count within 10 %, per family."""
    print("  %-16s %-26s %-22s %-22s" % ("paths", "model", "GPU path: within10 median%",
                                          "CPU path: within10 median%"))
    for label, lam, share in models[1:]:
        gpu = {c: lam[c] * share[c] for c in lam if share[c] is not None}
        cpu = {c: lam[c] * (1 - share[c]) for c in lam if share[c] is not None}
        for fam in FAMILIES:
            cols = []
            for k, pred in ((0, gpu), (1, cpu)):
                meas = {c: p[k] for c, p in src.paths.items() if p[k] > 0}
                e = errors(meas, pred, fam)
                cols.append("%3d/%-3d %+7.1f" % (sum(abs(x) <= 0.1 for x in e), len(e),
                                                100 * statistics.median(e)) if e else "-")
            print("  %-16s %-26s %-22s %-22s" % (fam, label, cols[0], cols[1]))


def checked(src, pred, c):
    """What the running phase's check (engines/pipeline/pipecheck.c) keeps of the choice c,
    the two configurations pred ranks next and the baseline, from the validation's
    measurements: c unless its mean is off its prediction beyond max(noise, 2 %) and one of
    the others measured more than that above it. None: the baseline."""
    floor = max(src.noise or 0, 0.02)
    m = src.measured[c]
    if abs(pred[c] - m) / m <= floor:
        return c
    order = list(src.measured)
    ranked = sorted((x for x in order if x != c and x in pred),
                    key=lambda x: (-pred[x], order.index(x)))[:2]
    cand = [(c, m)] + [(x, src.measured[x]) for x in ranked]
    if src.baseline:
        cand.append((None, src.baseline))
    best = max(cand, key=lambda t: t[1])
    return c if m >= best[1] * (1 - floor) else best[0]


def report_choice(src, choices):
    """What each model chose, measured against the measured best and the baseline, and what
    the running phase's check would keep (checked): the validation ran every configuration,
    so a choice made offline has its measurement."""
    best = max(src.measured, key=src.measured.get) if src.measured else None
    for label, c, pred in choices:
        if c is None or c not in src.measured or pred is None:
            continue
        m = src.measured[c]
        line = "  %-20s chose %-16s %9.1f items/s: /best (%s) %.3f" % (
            label, c, m, best, m / src.measured[best])
        if src.baseline:
            k = checked(src, pred, c)
            mk = src.measured[k] if k else src.baseline
            line += ", /baseline %.3f; checked %s: /best %.3f, /baseline %.3f" % (
                m / src.baseline, k or "baseline", mk / src.measured[best], mk / src.baseline)
        print(line)


def report_feeder(src):
    """The GPU's feeder beside the CG experiment (its mean item, the model's; its median; its
    item alone) against the GPU-path item of the stream's DP-CG runs with one thread and with
    nC, the experiment's own configuration (a JSON whose training has the feeder)."""
    m = src.meas
    if not m or not m.get("beside_gpu") or not src.runs:
        return
    item = {str(n): src.runs["DP-CG:%d" % n]["gpu_item_ms"]
            for n in (1, m["nc"]) if "DP-CG:%d" % n in src.runs}
    print("  the GPU's feeder, ms per item: mean %.4f, median %s, alone %s; the stream's DP-CG "
          "GPU path: %s" % (m["beside_gpu"],
                            "%.4f" % m["beside_gpu_median"] if m.get("beside_gpu_median") else "-",
                            "%.4f" % m["beside_gpu_alone"] if m.get("beside_gpu_alone") else "-",
                            ", ".join("%s thread%s %.4f" % (c, "" if c == "1" else "s", v)
                                      for c, v in item.items() if v) or "-"))


def report(src, models, detail, paths, residuals=False):
    noise = "%.1f %%" % (100 * src.noise) if src.noise is not None else "unknown"
    print("== %s: %d configurations, noise %s; training: %s" % (src.name, len(src.measured),
                                                                noise, src.note))
    report_replay(src, models)
    print("  %-16s %-26s" % ("family", "model") +
          " within10 within10|noise mean%  max%  median%")
    for label, pred, _ in models:
        for fam in FAMILIES + [None]:
            s = stats(src.measured, pred, src.noise, fam)
            if s is not None:
                print("  %-16s %-26s %s" % (fam or "all", label, fmt(s)))
    if paths and src.paths and len(models) > 1:
        report_paths(src, models)
    if paths:
        report_feeder(src)
    if residuals:
        report_residuals(src, models)
    if detail:
        print("  %-18s %12s" % ("configuration", "measured") +
              "".join(" %24s" % label[:24] for label, _, _ in models))
        for c, m in src.measured.items():
            cols = "".join(" %12.1f %+10.1f %%" % (p[c], 100 * (p[c] - m) / m) if c in p
                           else " %24s" % "-" for _, p, _ in models)
            print("  %-18s %12.1f%s" % (c, m, cols))
    return [(label, stats(src.measured, pred, src.noise)) for label, pred, _ in models]


def load(spec, gpu_host):
    spec, _, csv = spec.partition("@")
    path, _, inst = spec.partition(":") if not os.path.exists(spec) else (spec, "", "")
    if path.endswith(".json"):
        return [from_json(path)]
    if path.endswith(".csv"):
        return [from_csv(path)]
    srcs = from_text(path, inst, gpu_host)
    if csv and srcs:  # the same validation's values at full precision
        full = from_csv(csv)
        srcs[-1].recorded, srcs[-1].measured, srcs[-1].paths = (full.recorded, full.measured,
                                                                full.paths)
    return srcs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replay", action="append", default=[],
                    help="[LABEL=]PIPEREPLAY: a build's model, replayed")
    ap.add_argument("--gpu-host", type=float, default=1.0,
                    help="the GPU thread's share of a core where the report lacks it")
    ap.add_argument("--detail", action="store_true", help="every configuration")
    ap.add_argument("--paths", action="store_true", help="each path's rate, where recorded")
    ap.add_argument("--residuals", action="store_true",
                    help="signed errors per family and thread band")
    ap.add_argument("--cpu-from-stream", action="store_true",
                    help="also replay each JSON's training with the CG experiments replaced "
                    "by the stream's homogeneous CPU runs")
    ap.add_argument("--beside-from-stream", action="store_true",
                    help="also replay each JSON's training with the CG experiment beside the "
                    "GPU made up from the stream's coupled and homogeneous runs with nC threads")
    ap.add_argument("--carry", action="store_true",
                    help="also replay each JSON's training with the CG experiment beside the "
                    "GPU made up as --beside-from-stream does from the stream of the JSON of "
                    "the same name given before it (the knowledge the run before would "
                    "leave), and with the feeder's item alone made up so")
    ap.add_argument("--drift", action="store_true",
                    help="whether the machine moved while each JSON's validation ran: the CPU "
                    "alone at its start and end, one thread's stages mapping by mapping, "
                    "DP-CG's CPU path over the homogeneous; with --replay, the CPU's scale "
                    "that fits each mapping and the model re-anchored on one thread's times")
    ap.add_argument("--flow", action="append", default=[], metavar="INSTANCE=FILE",
                    help="the buffers and their readers and writers (pipereplay's buffer, "
                    "flow and sink lines) for a source whose name holds INSTANCE and whose "
                    "training does not record them")
    ap.add_argument("--print-training", metavar="JSON",
                    help="print the JSON's training in pipereplay's format and stop")
    ap.add_argument("sources", nargs="*")
    a = ap.parse_args()
    if a.print_training:
        with open(a.print_training) as f:
            print("\n".join(meas_lines(meas_of_json(json.load(f)))))
        return 0
    if not a.sources:
        ap.error("no SOURCE")
    totals, seen, before = {}, [], {}
    for spec in a.sources:
        for src in load(spec, a.gpu_host):
            seen.append((spec, src))
            for fl in a.flow:
                inst, _, path = fl.partition("=")
                if src.meas and not src.meas.get("flow") and inst in src.name:
                    src.meas["flow"] = read_flow(path)
            models = [("recorded", src.recorded, None)]
            choices = [("recorded", src.chosen, src.recorded)]
            for b in a.replay:
                label, _, binary = b.rpartition("=")
                trainings = [(label or "replayed", src.meas)]
                if a.cpu_from_stream:
                    trainings.append(((label or "replayed") + ", stream CPU",
                                      cpu_from_stream(src)))
                if a.beside_from_stream:
                    trainings.append(((label or "replayed") + ", beside from stream",
                                      beside_from_stream(src)))
                if a.carry and src.name in before:
                    trainings.append(((label or "replayed") + ", beside from the run before",
                                      beside_from_stream(src, before[src.name])))
                    trainings.append(((label or "replayed") + ", feeder from the run before",
                                      beside_from_stream(src, before[src.name], False)))
                for name, meas in trainings:
                    if meas is None:
                        continue
                    try:
                        pred, chosen = replay(binary, meas)
                    except subprocess.CalledProcessError as err:
                        # An older build refuses a record it does not know.
                        print("  %s: not replayed: %s" % (name, err.stderr.strip()))
                        continue
                    models.append((name, {c: v[0] for c, v in pred.items()},
                                   {c: v[1] for c, v in pred.items()}))
                    choices.append((name, chosen, models[-1][1]))
            if src.runs:
                before[src.name] = src
            report_choice(src, choices)
            if a.drift:
                report_drift(src, a.replay[0].rpartition("=")[2] if a.replay else None)
            for label, s in report(src, models, a.detail, a.paths, a.residuals):
                t = totals.setdefault(label, [0, 0, 0])
                for i in range(3):
                    t[i] += s[i] if s else 0
            print()
    if a.drift and len(seen) > 1:
        print("== the runs against each other (--drift)")
        report_pairs(seen)
        print()
    print("== all sources")
    for label, t in totals.items():
        print("  %-40s %d of %d within 10 %%; within 10 %% or the noise %d of %d (%.0f %%)"
              % (label, t[1], t[0], t[2], t[0], 100.0 * t[2] / t[0] if t[0] else 0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
