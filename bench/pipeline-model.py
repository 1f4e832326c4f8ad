#!/usr/bin/env python3
"""The pipeline engine's model checked offline against recorded measurements.

For each recorded validation (bench/pipeline.sh's per-configuration measurements) this
prints, per configuration family and in all, how many configurations the model predicts
within 10 % (of all, and of those whose error lies outside the measured noise), and the
mean and max error: first for the predictions as recorded, then for the model of each
given build replayed (tests/tools/pipereplay) over the training the predictions came from.

  bench/pipeline-model.py [--replay PIPEREPLAY]... [--gpu-host U] [--detail] SOURCE...

SOURCE is one of
  NAME.json              a validation's --json (bench/pipeline.sh's $OUT/NAME.json): the
                         training, every prediction and measurement, the noise: exact replay
  BENCH.txt[:INSTANCE]   bench/pipeline.sh's printed report (every instance in it, or one):
                         the predictions and measurements of the validation, and the
                         training of the first, training-only run of the instance, which
                         is a different training from the validation's (another process,
                         minutes apart), without the n-thread experiments' stage times
                         and the GPU thread's share of a core (--gpu-host, default 1.0):
                         each stage is taken to slow down with n threads as the whole
                         item does, n·T^CG(n)/T^CG(1)
  BENCH.txt:INSTANCE@NAME.csv
                         the same, with the predictions and measurements at full
                         precision from the validation's CSV (the report rounds them)
  NAME.csv               bench/pipeline.sh's CSV (config,strict,predicted,measured,error,
                         items): the recorded predictions only, no training, no noise

--replay [LABEL=]PIPEREPLAY may be given more than once (a build before and after a change):
each is a column, named LABEL.
--detail prints every configuration: measured, then each model's prediction and error.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

FAMILIES = ["DP-CG", "DP-MG", "CPU only", "CP-CG coupled", "CP-MG coupled"]


def family(cfg):
    """The configuration's family: DP-CG, DP-MG, homogeneous CPU, coupled CG or MG."""
    if cfg.startswith("DP-"):
        return cfg[:5]
    stages = cfg.rsplit(":", 1)[1] if cfg.count(":") == 2 else ""
    if stages and set(stages) == {"0"}:
        return "CPU only"
    return "CP-CG coupled" if cfg.startswith("CP-CG") else "CP-MG coupled"


class Source:
    """One instance's recorded validation: measured (config -> items/s), recorded
    predictions (config -> items/s), the noise (None: unknown), the training (a dict for
    pipereplay, or None) and a note on where the training came from."""

    def __init__(self, name):
        self.name = name
        self.measured = {}
        self.recorded = {}
        self.noise = None
        self.meas = None
        self.note = ""


def from_json(path):
    with open(path) as f:
        doc = json.load(f)
    src = Source(os.path.basename(path))
    tr = doc["trainings"][0]
    m = tr["measurements"]
    nst = len(m["stages"])
    src.meas = {
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
    }
    val = doc["validation"]
    for run in val["runs"]:
        if run["strict"] or run["predicted"] is None:
            continue
        src.measured[run["config"]] = run["throughput"]
        src.recorded[run["config"]] = run["predicted"]
    src.noise = val["noise"]
    src.note = "the validation's own training"
    return src


def from_csv(path):
    src = Source(os.path.basename(path))
    with open(path) as f:
        for line in f:
            p = line.strip().split(",")
            if len(p) < 6 or p[1] != "false" or p[2] == "null":
                continue
            src.recorded[p[0]] = float(p[2])
            src.measured[p[0]] = float(p[3])
    src.note = "no training recorded"
    return src


NUM = r"[-+]?[0-9.]+"


def parse_training(lines, i):
    """The --explain table after a 'training 1:' line, from lines[i]; returns the meas."""
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
    out, cur, trains = [], None, {}
    for i, line in enumerate(lines):
        m = re.match(r"== (\S+) \(.*\): training", line)
        if m:
            stages, cgn, serial = parse_training(lines, i + 1)
            gpu_ok = sum(1 << k for k, st in enumerate(stages) if st[2] > 0)
            # The n-thread experiments' stage times are not in the report: each stage
            # slowed down as the whole item, n·T^CG(n) / T^CG(1).
            for n, row in enumerate(cgn, 1):
                slow = n * row[0] / cgn[0][0] if n > 1 else 1
                row.extend(st[0] * slow for st in stages)
            trains[m.group(1)] = {"s": len(stages), "nc": cores, "gpu": gpu,
                                  "gpu_ok": gpu_ok, "stages": stages, "cgn": cgn,
                                  "gpu_host": gpu_host, "serial": serial}
            continue
        m = re.match(r"== (\S+) \(.*\): every configuration", line)
        if m:
            cur = Source("%s:%s" % (os.path.basename(path), m.group(1)))
            cur.meas = trains.get(m.group(1))
            cur.note = ("the training-only run's training (not the validation's), "
                        "GPU thread's share %.2f, n-thread stage times from T^CG(n)" % gpu_host)
            if not want or want == m.group(1):
                out.append(cur)
            continue
        if cur is None:
            continue
        w = line.split()
        if len(w) >= 4 and re.match(r"(DP|CP)-", w[0]) and w[1] != "-":
            cur.recorded[w[0]] = float(w[1])
            cur.measured[w[0]] = float(w[2])
        m = re.match(r"noise (" + NUM + ") %", line)
        if m:
            cur.noise = float(m.group(1)) / 100
    return out


def replay(binary, meas):
    """The model of the build `binary` over meas: config -> predicted items/s."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("shape %d %d %d %d\n" % (meas["s"], meas["nc"], 1 if meas["gpu"] else 0,
                                         meas["gpu_ok"]))
        for k, st in enumerate(meas["stages"]):
            f.write("stage %d %s\n" % (k, " ".join("%.9g" % x for x in st)))
        for n, row in enumerate(meas["cgn"], 1):
            f.write("cgn %d %s\n" % (n, " ".join("%.9g" % x for x in row)))
        f.write("gpu_host %.9g\n" % meas["gpu_host"])
        f.write("serial %.9g %.9g\n" % tuple(meas["serial"]))
        name = f.name
    try:
        res = subprocess.run([binary, name], capture_output=True, text=True, check=True)
    finally:
        os.unlink(name)
    pred = {}
    for line in res.stdout.splitlines():
        cfg, val = line.split(",")
        if cfg != "baseline":
            pred[cfg] = float(val)
    return pred


def stats(measured, pred, noise, only=None):
    """(n, within 10 %, outside the noise, of those within 10 %, mean |e|, max |e|,
    median e) over the configurations of family `only` (all: None)."""
    errs = [(pred[c] - m) / m for c, m in measured.items()
            if c in pred and m > 0 and (only is None or family(c) == only)]
    if not errs:
        return None
    a = [abs(e) for e in errs]
    within = sum(x <= 0.10 for x in a)
    outside = [x for x in a if noise is None or x > noise]
    return (len(a), within, len(outside), sum(x <= 0.10 for x in outside),
            100 * sum(a) / len(a), 100 * max(a), 100 * statistics.median(errs))


def fmt(s):
    if s is None:
        return "-"
    return "%3d/%-3d %3d/%-3d %5.1f %6.1f %+6.1f" % (s[1], s[0], s[3], s[2], s[4], s[5], s[6])


def report(src, models, detail):
    noise = "%.1f %%" % (100 * src.noise) if src.noise is not None else "unknown"
    print("== %s: %d configurations, noise %s; training: %s" % (src.name, len(src.measured),
                                                                noise, src.note))
    report_replay(src, models)
    print("  %-16s %-26s" % ("family", "model") +
          " within10 outside-noise,within10 mean%  max%  median%")
    for label, pred in models:
        for fam in FAMILIES + [None]:
            s = stats(src.measured, pred, src.noise, fam)
            if s is not None:
                print("  %-16s %-26s %s" % (fam or "all", label, fmt(s)))
    if detail:
        print("  %-18s %12s" % ("configuration", "measured") +
              "".join(" %24s" % label[:24] for label, _ in models))
        for c, m in src.measured.items():
            cols = "".join(" %12.1f %+10.1f %%" % (p[c], 100 * (p[c] - m) / m) if c in p
                           else " %24s" % "-" for _, p in models)
            print("  %-18s %12.1f%s" % (c, m, cols))
    return [(label, stats(src.measured, pred, src.noise)) for label, pred in models]


def report_replay(src, models):
    """How far each replay lands from the recorded predictions: 0 where the recorded
    training is the validation's own and the build's model is the one that predicted."""
    for label, pred in models[1:]:
        d = [abs(pred[c] - r) / r for c, r in src.recorded.items() if c in pred and r > 0]
        if d:
            print("  %s against the recorded predictions: %d of %d within 0.1 %%, max %.1f %%"
                  % (label, sum(x <= 1e-3 for x in d), len(d), 100 * max(d)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replay", action="append", default=[], help="a pipereplay binary")
    ap.add_argument("--gpu-host", type=float, default=1.0,
                    help="the GPU thread's share of a core where the report lacks it")
    ap.add_argument("--detail", action="store_true", help="every configuration")
    ap.add_argument("sources", nargs="+")
    a = ap.parse_args()
    srcs = []
    for s in a.sources:
        s, _, csv = s.partition("@")
        path, _, inst = s.partition(":") if not os.path.exists(s) else (s, "", "")
        if path.endswith(".json"):
            srcs.append(from_json(path))
        elif path.endswith(".csv"):
            srcs.append(from_csv(path))
        else:
            srcs.extend(from_text(path, inst, a.gpu_host))
            if csv:  # the same validation's values at full precision
                full = from_csv(csv)
                srcs[-1].recorded, srcs[-1].measured = full.recorded, full.measured
    totals = {}
    for src in srcs:
        models = [("recorded", src.recorded)]
        for b in a.replay:
            label, _, binary = b.rpartition("=")
            if src.meas is not None:
                models.append((label or "replayed", replay(binary, src.meas)))
        for label, s in report(src, models, a.detail):
            t = totals.setdefault(label, [0, 0, 0, 0])
            if s:
                t[0] += s[0]
                t[1] += s[1]
                t[2] += s[2]
                t[3] += s[3]
        print()
    print("== all sources")
    for label, t in totals.items():
        print("  %-40s %d of %d within 10 %%; outside the noise %d of %d within 10 %% (%.0f %%)"
              % (label, t[1], t[0], t[3], t[2], 100.0 * t[3] / t[2] if t[2] else 0))


if __name__ == "__main__":
    sys.exit(main())
