#!/usr/bin/env python3
"""The key metrics of one kernel from an Nsight Compute raw CSV (gpu-kit/check).

    ncu_summary.py RAW_CSV KERNEL FLOPS

RAW_CSV is `ncu --import REPORT --page raw --csv`: a header row of metric names, a row of
units, one row per profiled launch. Prints a few lines for KERNEL's first launch: time and
TFLOP/s (FLOPS / time), tensor-pipe utilisation, achieved occupancy, shared-memory bank
conflicts, SM / DRAM / L2 throughput and the largest issue-stall reasons, in four lines. A metric this
ncu version names differently is printed as "n/a", never guessed.
"""
import csv
import re
import sys

TIME_UNITS = {"nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3,
              "second": 1.0, "s": 1.0}


def number(text):
    try:
        return float(text.replace(",", ""))
    except (AttributeError, ValueError):
        return None


def read_launch(rows, kernel):
    """(metric -> value, metric -> unit) of KERNEL's first launch, from the wide raw page
    (a header of metric names, a row of units, a row per launch) or from a long export
    (a row per launch and metric: "ID", "Kernel Name", "Metric Name", "Metric Unit",
    "Metric Value"); (None, None) if it is not there."""
    header_at = next((i for i, row in enumerate(rows) if "Kernel Name" in row), None)
    if header_at is None:
        return None, None
    names = rows[header_at]
    records = [dict(zip(names, row)) for row in rows[header_at + 1:]]
    mine = lambda record: record.get("Kernel Name", "").split("(")[0].strip() == kernel
    if "Metric Name" in names and "Metric Value" in names:
        first = next((r.get("ID") for r in records if mine(r)), None)
        if first is None:
            return None, None
        chosen = [r for r in records if mine(r) and r.get("ID") == first]
        return ({r["Metric Name"]: r["Metric Value"] for r in chosen} | {"Kernel Name": kernel},
                {r["Metric Name"]: r.get("Metric Unit", "") for r in chosen})
    if not records:
        return None, None
    unit = dict(zip(names, rows[header_at + 1]))
    launch = next((r for r in records[1:] if mine(r)), None)
    return launch, unit


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path, kernel, flops = argv[1], argv[2], float(argv[3])
    with open(path, newline="", errors="replace") as f:
        rows = [row for row in csv.reader(f) if row]
    launch, unit = read_launch(rows, kernel)
    if launch is None:
        print(f"{kernel}: no profiled launch of it in {path}")
        return 1
    names = list(launch)

    def value(*candidates):
        for name in candidates:
            if number(launch.get(name)) is not None:
                return number(launch[name])
        return None

    def pct(*candidates):
        v = value(*candidates)
        return "n/a" if v is None else f"{v:.1f}%"

    def count(*candidates):
        v = value(*candidates)
        return "n/a" if v is None else f"{v:,.0f}"

    duration = value("gpu__time_duration.sum")
    seconds = duration * TIME_UNITS.get(unit.get("gpu__time_duration.sum", ""), 0) if duration is not None else 0
    speed = f"{flops / seconds / 1e12:.1f} TFLOP/s" if seconds else "n/a"
    print(f"{kernel}: {duration if duration is not None else 'n/a'} {unit.get('gpu__time_duration.sum', '')}, {speed}; "
          f"grid {launch.get('launch__grid_size', '?')} x {launch.get('launch__block_size', '?')} threads, "
          f"{launch.get('launch__registers_per_thread', '?')} registers/thread")
    tensor = sorted(n for n in names if re.match(r"sm__(inst_executed_)?pipe_tensor\w*\.avg\.pct_of_peak_sustained_active$", n))
    tensor_text = ", ".join(f"{n.split('.')[0].replace('sm__', '')} {pct(n)}" for n in tensor) or "n/a"
    print(f"  tensor pipe: {tensor_text}; occupancy {pct('sm__warps_active.avg.pct_of_peak_sustained_active')} "
          f"(theoretical {pct('sm__maximum_warps_per_active_cycle_pct')})")
    print(f"  shared bank conflicts: loads {count('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum')} "
          f"of {count('l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum')} wavefronts, "
          f"stores {count('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum')} "
          f"of {count('l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum')}; "
          f"throughput SM {pct('sm__throughput.avg.pct_of_peak_sustained_elapsed')}, "
          f"DRAM {pct('dram__throughput.avg.pct_of_peak_sustained_elapsed', 'gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed')}, "
          f"L2 {pct('lts__throughput.avg.pct_of_peak_sustained_elapsed')}")
    # Stall reasons: cycles per issued instruction (WarpStateStats), else the shares of
    # the PC samples (smsp__pcsamp_warps_issue_stalled_*).
    stalls, kind = [], "cycles per issued instruction"
    for name in names:
        match = re.match(r"smsp__average_warps?_(?:latency_)?issue_stalled_(\w+?)(?:_per_issue_active)?\.ratio$", name)
        if match and value(name) is not None:
            stalls.append((value(name), match.group(1)))
    if not stalls:
        samples = [(value(n), n[len("smsp__pcsamp_warps_issue_stalled_"):]) for n in names
                   if n.startswith("smsp__pcsamp_warps_issue_stalled_") and not n.endswith("_not_issued")
                   and value(n) is not None]
        total = sum(v for v, _ in samples)
        if total:
            stalls, kind = [(100 * v / total, reason) for v, reason in samples], "% of the PC samples"
    stalls.sort(reverse=True)
    print(f"  stalls ({kind}): " + (", ".join(f"{reason} {v:.2f}" for v, reason in stalls[:5]) or "n/a"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
