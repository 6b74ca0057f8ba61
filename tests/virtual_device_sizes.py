#!/usr/bin/env python3
"""On the virtual device, sizes and the ceiling are the host's.

The virtual device is the host's cores and memory, its arrays a second copy
in host memory: `--size auto` must choose the host's size (what
`ompref run stream --help` names for the host), and the device's bandwidth
ceiling must be measured at that size, not at a GPU's (which asked for half
the host's memory, twice).

    virtual_device_sizes.py OMPREF
"""
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    ompref = sys.argv[1]
    help_text = subprocess.run([ompref, "run", "stream", "--help"], capture_output=True, text=True).stdout
    m = re.search(r"auto: (\w+) on the host", help_text)
    if not m:
        print("FAIL: `run stream --help` names no host size for auto")
        return 1
    host_size = m.group(1)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.json"
        run = subprocess.run([ompref, "run", "stream", "--variant", "target_simd", "--reps", "1", "--json", str(out)],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(f"FAIL: exit {run.returncode}\n{run.stderr[-2000:]}")
            return 1
        data = json.loads(out.read_text())
    sizes = {r["size"] for r in data["runs"]}
    device_ceilings = [c for c in data["ceilings"] if c["place"] != "host"]
    problems = []
    if sizes != {host_size}:
        problems.append(f"--size auto chose {sorted(sizes)}, the host's is {host_size}")
    if not device_ceilings or not data["runs"][0]["ran_on"].startswith("offload device"):
        problems.append("no run or ceiling on the virtual device")
    # The ceiling's arrays at the host's size: n of the host size's stream.
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "host.json"
        subprocess.run([ompref, "run", "stream", "--variant", "host_simd", "--size", host_size, "--reps", "1",
                        "--no-ceiling", "--json", str(out)], capture_output=True, text=True, check=True)
        host_n = json.loads(out.read_text())["runs"][0]["params"]["n"]
    for c in device_ceilings:
        if c["n"] > host_n:
            problems.append(f"the virtual device's ceiling used n = {c['n']}, more than the host size's {host_n}")
    for p in problems:
        print(f"FAIL: {p}")
    if not problems:
        print(f"ok: size {host_size}, the virtual device's ceiling at n = {device_ceilings[0]['n']}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
