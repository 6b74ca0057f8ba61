#!/usr/bin/env python3
"""MPI ranks (docs/mpi.md): ompref under mpirun, checked from its JSON and exit status.

    mpi_check.py OMPREF MPIEXEC CASE

Cases:
  lbm_bitwise    lbm's slab variants on 1, 2 and 3 ranks with nz = 7 (an uneven
                 split) and on 3 ranks with nz = 4 (a slab of one plane) end in the
                 same state bit for bit (state_digest), which is also target_fused's
                 in one process, with the same observables (combined over the ranks;
                 the droplet case's too); every run valid. Ranks given other physics
                 (an MPMD launch) are refused: exit 2 and one line.
  lbm_halo       the slab variants' notes: the halo's path ("device copy" on one
                 rank, "host-staged" between ranks of a host build, or the path
                 MPI_CHECK_HALO_PATH names: "node IPC" on one node's GPU), its bytes per
                 step (8 nx ny (2 + 2 x 5): psi's two edge planes, five crossing
                 directions of two ghost planes), a halo time per step and its
                 parts (pack, copy, message, unpack; self on one rank) adding up to it.
  lbm_memory     target_slabs on 1 and 3 ranks (nz = 30): each rank's notes give the
                 bytes its device holds, its slab's planes and ghost planes by the
                 layout's formula (on 3 ranks under 0.45 of one rank's), and its host's
                 (also under 0.45 of one rank's: the host holds the slab alone).
  lbm_resident   a rank's peak resident host memory (getrusage of the process) running
                 target_slabs on 3 ranks is under half of one rank's running target_fused
                 on the whole lattice (64x64x192), which is most of what the lattice,
                 its reference and its fields take.
  gpp_ranks      gpp's target_ranks (bands split) and target_tuned_ranks (ig rows
                 split) on 1, 2 and 3 ranks: valid, and achtemp within the validation
                 tolerance of target_udr's and target_tuned's in one process; the
                 tuned form's threads sum ig_chunk / ranks rows each (its notes).
  json_fields    stream on 2 ranks: `ranks` with count, decomposition, per-rank host,
                 device, times and ceilings; the aggregate figure of merit is the sum;
                 the CSV's ranks columns.
  bad_input      bad input on 2 ranks: exit 2 with one line; a refusal by one rank
                 alone (its own arguments) ends every rank with status 2 and one line.
  failing_rank   a validation failure on one rank of 2: every rank exits 1; an error
                 in the middle of a run ends the job with MPI_Abort and status 2; a
                 rank that dies ends the job (no hang).
  scaling        scripts/scaling.py on 1 and 2 ranks (gpp tiny): one JSON with both runs,
                 their commands, speedups and efficiencies as computed from the runs'
                 figures, which `ompref report` draws as the scaling chart (where
                 matplotlib is installed); a failing run exits 1; bad arguments exit 2
                 with one line.
Each mpirun has a time limit: a hang fails the case.
"""
import json
import os
import subprocess
import sys
import tempfile

OMPREF, MPIEXEC, CASE = sys.argv[1:4]
LIMIT_S = 150
# Shared by 3 ranks on 2 cores: one OpenMP thread each.
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMPREF_RESULTS="none", OMPREF_QUIET="1")


def mpirun(ranks, args, extra=()):
    """mpirun -np RANKS ompref ARGS: (status, stdout, stderr)."""
    command = [MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-np", str(ranks), *extra, OMPREF, *args]
    try:
        p = subprocess.run(command, env=ENV, capture_output=True, text=True, timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        sys.exit(f"FAIL: {' '.join(command)} still running after {LIMIT_S} s (a hang)")
    return p.returncode, p.stdout, p.stderr


def run_json(ranks, args, csv_lines=None):
    """The JSON document of the run; its CSV's lines into csv_lines if given."""
    with tempfile.TemporaryDirectory() as tmp:
        path, csv_path = os.path.join(tmp, "out.json"), os.path.join(tmp, "out.csv")
        status, out, err = mpirun(ranks, [*args, "--json", path, "--csv", csv_path])
        check(status == 0, f"{ranks} ranks, {' '.join(args)}: exit {status}\n{out}\n{err}")
        if csv_lines is not None:
            with open(csv_path) as f:
                csv_lines.extend(f.read().splitlines())
        with open(path) as f:
            return json.load(f)


def check(ok, what):
    if not ok:
        sys.exit(f"FAIL: {what}")


def ompref_lines(err):
    return [line for line in err.splitlines() if line.startswith("ompref:")]


def lbm_bitwise():
    common = ["run", "lbm", "--size", "tiny", "--reps", "2", "--warmup", "1", "--no-ceiling"]
    slabs = ["--variant", "target_slabs,target_slabs_overlap"]
    # nz = 7: slabs of 2 and 3 planes (2 and 3 ranks); nz = 4 on 3 ranks: 1, 1, 2.
    for case, nz, rank_counts in (("drops", "7", (1, 2, 3)), ("drops", "4", (3,)), ("droplet", "9", (3,))):
        one = run_json(1, [*common, "--case", case, "--nz", nz, "--variant",
                           "target_fused,target_slabs,target_slabs_overlap"])
        observed = one["runs"][0]["observables"]
        want = observed["state_digest"]
        for ranks in rank_counts:
            doc = one if ranks == 1 else run_json(ranks, [*common, "--case", case, "--nz", nz, *slabs])
            for run in doc["runs"]:
                check(run["valid"], f"nz {nz}, {ranks} ranks: {run['variant']} failed validation: {run.get('failure')}")
                got = run["observables"]["state_digest"]
                check(got == want, f"nz {nz}, {ranks} ranks: {run['variant']} state {got}, one process's target_fused {want}")
                # The same state: the same observables, the mass within the
                # rounding of a sum in another order.
                for key, value in observed.items():
                    mine = run["observables"].get(key)
                    same = mine == value or (key == "mass" and abs(mine - value) <= 1e-14 * abs(value))
                    check(same, f"{case} nz {nz}, {ranks} ranks: {run['variant']} {key} {mine}, target_fused's {value}")
                if ranks > 1:
                    check(run["ranks"]["count"] == ranks and run["ranks"]["decomposition"] == "split",
                          f"{ranks} ranks: {run['variant']} ranks field {run['ranks']}")
        print(f"lbm {case} slabs on {rank_counts} ranks (nz = {nz}): state {want} and observables, target_fused's")
    # Rank 1 alone given another cohesion strength (MPMD launch): not one problem.
    good = [OMPREF, *common, "--variant", "target_slabs"]
    status, out, err = mpirun(1, [*good[1:], ":", "-np", "1", *good, "--G", "-5.5"])
    lines = ompref_lines(err)
    check(status == 2 and len(lines) == 1 and "lbm parameters" in lines[0],
          f"another --G on rank 1: exit {status}, lines {lines}")


def lbm_halo():
    nx, ny = 24, 20
    args = ["run", "lbm", "--size", "tiny", "--nx", str(nx), "--ny", str(ny), "--nz", "8", "--reps", "2", "--warmup",
            "1", "--no-ceiling", "--variant", "target_slabs,target_slabs_overlap"]
    want_bytes = 8 * nx * ny * (2 + 2 * 5)
    between = os.environ.get("MPI_CHECK_HALO_PATH", "host-staged")
    for ranks, path in ((1, "device copy"), (2, between)):
        status, out, err = mpirun(ranks, [*args, "--json", "-"])
        check(status == 0, f"{ranks} ranks: exit {status}\n{err}")
        doc = json.loads(out)
        for run in doc["runs"]:
            notes = run.get("notes", {})
            what = f"{ranks} ranks, {run['variant']}: notes {notes}"
            check(notes.get("halo_path") == path, f"{what}: path {path!r} expected")
            check(notes.get("halo_bytes_per_step") == want_bytes, f"{what}: {want_bytes} bytes per step expected")
            check(notes.get("halo_s_per_step", 0) > 0, f"{what}: no halo time per step")
            # The parts are timestamped inside the exchanges: they add up to
            # at most the halo's time, and to most of it.
            parts, total = notes.get("halo_parts_s_per_step", {}), notes["halo_s_per_step"]
            check(set(parts) == {"pack", "copy", "message", "unpack", "self"}, f"{what}: halo parts {parts}")
            check(all(v >= 0 for v in parts.values()), f"{what}: a negative part")
            check(0.5 * total <= sum(parts.values()) <= total * (1 + 1e-9) + 1e-12,
                  f"{what}: parts {parts} add up to {sum(parts.values())}, the halo {total}")
            kernels_between = ("pack", "unpack") if ranks > 1 else ("self",)
            check(all(parts[k] > 0 for k in kernels_between) and
                  all(parts[k] == 0 for k in parts if k not in kernels_between + ("copy", "message")),
                  f"{what}: parts {parts}: {kernels_between} expected on this path")
            if ranks > 1:
                check(parts["message"] > 0, f"{what}: no time in MPI's messages: {parts}")
            if ranks > 1:
                for r in run["ranks"]["per_rank"]:
                    check(r.get("notes", {}).get("halo_path") == path, f"{what}: rank {r['rank']} notes {r.get('notes')}")
        # The table (standard error here, since the JSON took standard output) names the path too.
        check(f"halo_path {path}" in err, f"{ranks} ranks: no notes line with the path in the table\n{err}")
    print(f"lbm halo notes: device copy on 1 rank, {between} on 2, {want_bytes} bytes per step")


def numbers(tree, name=""):
    """The numbers of a JSON value by path ("achtemp[0][1]": achtemp's first complex's imaginary part)."""
    if isinstance(tree, bool):
        return {}
    if isinstance(tree, (int, float)):
        return {name: tree}
    items = tree.items() if isinstance(tree, dict) else enumerate(tree) if isinstance(tree, list) else ()
    out = {}
    for key, value in items:
        out.update(numbers(value, f"{name}.{key}" if isinstance(key, str) else f"{name}[{key}]"))
    return out


def lbm_memory():
    nx, ny, nz = 16, 12, 30
    args = ["run", "lbm", "--size", "tiny", "--nx", str(nx), "--ny", str(ny), "--nz", str(nz), "--reps", "1",
            "--warmup", "0", "--no-ceiling", "--variant", "target_slabs"]
    plane = nx * ny

    def device_bytes(planes):
        # Two lattices of 19 doubles, psi (a double) and solid (a byte) a cell over
        # the slab's planes and its two ghost planes (each array rounded up to 8
        # cells), and four halo buffers of five planes.
        stride = (plane * (planes + 2) + 7) // 8 * 8
        return stride * (2 * 19 * 8 + 8 + 1) + 4 * 5 * plane * 8

    held, host = {}, {}
    for ranks in (1, 3):
        run = run_json(ranks, args)["runs"][0]
        check(run["valid"], f"{ranks} ranks: target_slabs failed validation: {run.get('failure')}")
        per_rank = run["ranks"]["per_rank"] if ranks > 1 else [{"rank": 0, "notes": run["notes"]}]
        for r in per_rank:
            notes = r.get("notes", {})
            planes = (nz * (r["rank"] + 1)) // ranks - (nz * r["rank"]) // ranks
            want = device_bytes(planes)
            check(notes.get("device_bytes_held") == want,
                  f"{ranks} ranks, rank {r['rank']}: device_bytes_held {notes.get('device_bytes_held')}, the slab's "
                  f"{planes} planes and ghosts hold {want}")
            check(notes.get("host_bytes_held", 0) > 0, f"{ranks} ranks, rank {r['rank']}: no host_bytes_held: {notes}")
            held.setdefault(ranks, []).append(notes["device_bytes_held"])
            host.setdefault(ranks, []).append(notes["host_bytes_held"])
    one, most = held[1][0], max(held[3])
    check(most < 0.45 * one, f"3 ranks: a rank's device holds {most} bytes, one rank's {one}: not its slab's share")
    host_one, host_most = host[1][0], max(host[3])
    check(host_most < 0.45 * host_one, f"3 ranks: a rank's host holds {host_most} bytes, one rank's {host_one}")
    print(f"lbm target_slabs: a rank's device holds {most} bytes on 3 ranks, {one} on 1 ({most / one:.2f}); "
          f"its host {host_most} and {host_one} ({host_most / host_one:.2f})")


def lbm_resident():
    nx, ny, nz = 64, 64, 192
    common = ["run", "lbm", "--size", "tiny", "--nx", str(nx), "--ny", str(ny), "--nz", str(nz), "--steps", "1",
              "--reps", "1", "--warmup", "0", "--no-ceiling"]
    # Each rank runs ompref as a child of a small Python process that writes
    # the child's peak resident size (kB) to a file of its own.
    measure = ("import os, resource, subprocess, sys; code = subprocess.call(sys.argv[2:]); "
               "open(os.path.join(sys.argv[1], os.environ.get('OMPI_COMM_WORLD_RANK', '0')), 'w')"
               ".write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)); sys.exit(code)")
    peaks = {}
    for ranks, variant in ((1, "target_fused"), (3, "target_slabs")):
        with tempfile.TemporaryDirectory() as tmp:
            command = [MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-np", str(ranks), sys.executable, "-c",
                       measure, tmp, OMPREF, *common, "--variant", variant, "--json", os.path.join(tmp, "out.json")]
            try:
                p = subprocess.run(command, env=ENV, capture_output=True, text=True, timeout=LIMIT_S)
            except subprocess.TimeoutExpired:
                sys.exit(f"FAIL: {ranks} ranks, {variant}: still running after {LIMIT_S} s (a hang)")
            check(p.returncode == 0, f"{ranks} ranks, {variant}: exit {p.returncode}\n{p.stderr}")
            with open(os.path.join(tmp, "out.json")) as f:
                run = json.load(f)["runs"][0]
            check(run["valid"], f"{ranks} ranks: {variant} failed validation: {run.get('failure')}")
            files = sorted(os.listdir(tmp))
            check(files == sorted([*map(str, range(ranks)), "out.json"]), f"{ranks} ranks: measured {files}")
            peaks[ranks] = [int(open(os.path.join(tmp, str(r))).read()) * 1024 for r in range(ranks)]
    cells = nx * ny * nz
    # The whole lattice's host arrays: two lattices and five fields (the
    # instance), the reference's two lattices and psi, the observables' two
    # fields: 8 (2 x 19 + 5 + 2 x 19 + 1 + 2) bytes a cell, and the mask.
    lattice = cells * (8 * (2 * 19 + 5 + 2 * 19 + 1 + 2) + 1)
    one, most = peaks[1][0], max(peaks[3])
    check(one > 0.8 * lattice, f"one rank's peak resident size {one} is below its lattice's {lattice} bytes: "
          "the measure does not see the lattice")
    check(most < 0.5 * one, f"3 ranks: a rank's peak resident size {most} bytes, one rank's whole lattice {one}")
    print(f"lbm peak resident size: target_fused on 1 rank {one / 2**20:.0f} MiB (its arrays {lattice / 2**20:.0f} "
          f"MiB); target_slabs on 3 ranks at most {most / 2**20:.0f} MiB a rank ({most / one:.2f})")


def gpp_ranks():
    # One mpirun per rank count runs both rank forms and, on one rank, the
    # kernels they split: each rank form on 1, 2 and 3 ranks within the
    # tolerance of its one-process kernel's result.
    forms = {"target_ranks": "target_udr", "target_tuned_ranks": "target_tuned"}
    common = ["run", "gpp", "--size", "tiny", "--reps", "1", "--warmup", "0", "--no-ceiling"]
    runs = {}
    for ranks in (1, 2, 3):
        variants = [*forms, *(forms.values() if ranks == 1 else ())]
        for run in run_json(ranks, [*common, "--variant", ",".join(variants)])["runs"]:
            check(run["valid"], f"{ranks} ranks: {run['variant']} failed validation: {run.get('failure')}")
            if ranks > 1:
                check(run["ranks"]["count"] == ranks and run["ranks"]["decomposition"] == "split",
                      f"{ranks} ranks: {run['variant']} ranks field {run['ranks']}")
            runs[(run["variant"], ranks)] = run
    compared = 0
    for form, kernel in forms.items():
        base, tol = numbers(runs[(kernel, 1)]["observables"]), runs[(kernel, 1)]["tolerance"]
        for ranks in (1, 2, 3):
            got = numbers(runs[(form, ranks)]["observables"])
            check(got.keys() == base.keys(), f"{ranks} ranks: {form} observables {sorted(got)}, {kernel}'s {sorted(base)}")
            for key, value in got.items():
                scale = max(abs(base[key]), 1e-300)
                check(abs(value - base[key]) / scale <= tol,
                      f"{ranks} ranks: {form} observable {key} = {value}, {kernel} in one process {base[key]} "
                      f"(tolerance {tol})")
                compared += 1
    check(compared > 0, f"no numeric observables compared: {runs[('target_ranks', 1)]['observables']}")
    # The tuned shape's rows a thread are the whole problem's: a rank of n sums 1/n of them a thread.
    for ranks in (1, 2, 3):
        run = runs[("target_tuned_ranks", ranks)]
        chunk = int(run["params"]["tuned_shape"].split(",")[1])
        notes = [run["notes"]] + [r.get("notes", {}) for r in run.get("ranks", {}).get("per_rank", [])]
        check(all(n.get("ig_rows_per_thread") == -(-chunk // ranks) for n in notes),
              f"{ranks} ranks: target_tuned_ranks notes {notes}, {-(-chunk // ranks)} rows a thread expected")
    print(f"gpp target_ranks and target_tuned_ranks on 1, 2, 3 ranks: valid, observables within the tolerance of "
          f"target_udr's and target_tuned's ({compared} compared)")


def json_fields():
    csv_lines = []
    doc = run_json(2, ["run", "stream", "--size", "tiny", "--reps", "3"], csv_lines)
    header = csv_lines[0].split(",")
    check("ranks" in header and "decomposition" in header, f"CSV header without the ranks columns: {csv_lines[0]}")
    check(all(",2,replicated," in line for line in csv_lines[1:]), f"CSV rows without 2 ranks: {csv_lines[1:]}")
    for run in doc["runs"]:
        ranks = run["ranks"]
        check(ranks["count"] == 2 and ranks["decomposition"] == "replicated", f"{run['variant']}: {ranks}")
        per_rank = ranks["per_rank"]
        check([r["rank"] for r in per_rank] == [0, 1], f"per_rank ranks: {per_rank}")
        for r in per_rank:
            for key in ("host", "device", "ran_on", "time_s", "fom", "valid", "ceiling_GBps"):
                check(key in r, f"{run['variant']}: per_rank entry without {key}: {r}")
            check(set(r["time_s"]) == {"min", "median", "max"}, f"per_rank time_s {r['time_s']}")
        fom_sum = sum(r["fom"] for r in per_rank)
        check(abs(run["fom"]["value"] - fom_sum) <= 1e-9 * fom_sum, f"{run['variant']}: fom {run['fom']} vs sum {fom_sum}")
        ceiling_sum = sum(r["ceiling_GBps"] for r in per_rank)
        check(abs(run["ceiling_GBps"] - ceiling_sum) <= 1e-9 * ceiling_sum,
              f"{run['variant']}: ceiling {run['ceiling_GBps']} vs the ranks' sum {ceiling_sum}")
        check(set(ranks["median_time_s_over_ranks"]) == {"min", "median", "max"}, f"{ranks}")
        triad_sum = sum(r["phases_GBps"]["triad"] for r in per_rank)
        check(abs(ranks["phases_GBps"]["triad"] - triad_sum) <= 1e-9 * triad_sum,
              f"{run['variant']}: aggregate triad {ranks['phases_GBps']} vs the ranks' sum {triad_sum}")
    print(f"stream on 2 ranks: {len(doc['runs'])} runs with per-rank fields, aggregate = sum")


def bad_input():
    for args in (["run", "lbm", "--nx", "0"], ["run", "nothing"], ["run", "gpp", "--variant", "target_none"],
                 ["run", "lbm", "--ny", "2", "--no-ceiling"],
                 # Slabs of 500 planes of 1000 x 1000 cells: more than this host holds.
                 ["run", "lbm", "--nx", "1000", "--ny", "1000", "--nz", "1000", "--variant", "target_slabs",
                  "--no-ceiling"]):
        status, out, err = mpirun(2, args)
        lines = ompref_lines(err)
        check(status == 2, f"{' '.join(args)} on 2 ranks: exit {status}, 2 expected\n{err}")
        check(len(lines) == 1, f"{' '.join(args)} on 2 ranks: {len(lines)} lines from ompref, one expected:\n{err}")
    # Rank 1 alone is given a bad --tau (MPMD launch): every rank ends with 2
    # and rank 0 prints rank 1's line.
    good = [OMPREF, "run", "lbm", "--size", "tiny", "--no-ceiling"]
    status, out, err = mpirun(1, [*good[1:], ":", "-np", "1", *good, "--tau", "0.4"])
    lines = ompref_lines(err)
    check(status == 2, f"a bad --tau on rank 1 alone: exit {status}, 2 expected\n{err}")
    check(len(lines) == 1 and "--tau" in lines[0], f"a bad --tau on rank 1 alone: {lines}")
    print("bad input on 2 ranks: exit 2, one line (also when one rank alone refuses)")


def failing_rank():
    # Rank 1 alone is given other data (MPMD launch): gpp's band split then adds
    # partial sums of two different data sets, the combined result matches
    # neither reference, validation fails and every rank must exit 1 (the
    # verdict is agreed over the ranks).
    good = [OMPREF, "run", "gpp", "--size", "tiny", "--variant", "target_ranks", "--no-ceiling", "--data", "uniform"]
    status, out, err = mpirun(1, [*good[1:], ":", "-np", "1", *good[:-1], "varied"])
    check(status == 1, f"ranks on different data: exit {status}, 1 expected\n{out}\n{err}")
    check("FAIL" in out + err and "failed validation" in out + err,
          f"ranks on different data: no FAIL line\n{out}\n{err}")
    # An error in the middle of a run (every rank, after the collectives
    # began: 3 ranks cannot split 2 planes) ends the job with MPI_Abort and its status.
    status, out, err = mpirun(3, ["run", "lbm", "--size", "tiny", "--nz", "2", "--variant", "target_slabs",
                                  "--no-ceiling"])
    check(status == 2, f"3 ranks on 2 planes: exit {status}, 2 expected\n{err}")
    check("fewer planes" in err, f"3 ranks on 2 planes: no line saying why\n{err}")
    # A rank that dies (SIGKILL) ends the job: no hang, a failing status.
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "die.sh")
        with open(script, "w") as f:
            f.write('#!/bin/sh\nif [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then (sleep 2; kill -9 $$) & fi\nexec "$@"\n')
        os.chmod(script, 0o755)
        command = [MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-np", "2", script, OMPREF, "run", "lbm",
                   "--size", "tiny", "--variant", "target_slabs", "--reps", "100000", "--no-ceiling"]
        try:
            p = subprocess.run(command, env=ENV, capture_output=True, text=True, timeout=LIMIT_S)
        except subprocess.TimeoutExpired:
            sys.exit("FAIL: a killed rank left the job hanging")
        check(p.returncode != 0, f"a killed rank: exit {p.returncode}")
    print("a validation failure ends every rank with 1; an error mid-run aborts with 2; a killed rank ends the job")


def scaling():
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "scaling.py")
    launcher = ["--ompref", OMPREF, "--mpirun", MPIEXEC, "--mpirun-args", "--allow-run-as-root --oversubscribe"]
    work = ["run", "gpp", "--size", "tiny", "--variant", "target_tuned,target_tuned_ranks", "--reps", "2",
            "--no-ceiling"]

    def script_run(args):
        try:
            p = subprocess.run([sys.executable, script, *args], env=ENV, capture_output=True, text=True,
                               timeout=2 * LIMIT_S)
        except subprocess.TimeoutExpired:
            sys.exit(f"FAIL: scaling.py {' '.join(args)} still running after {2 * LIMIT_S} s")
        return p.returncode, p.stdout, p.stderr

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "scaling.json")
        status, _, err = script_run([*launcher, "--ranks", "1,2", "--against", "target_tuned", "--out", out, "--",
                                     *work])
        check(status == 0, f"scaling.py on 1 and 2 ranks: exit {status}\n{err}")
        with open(out) as f:
            doc = json.load(f)
        check("scaling.py" in doc["command"] and doc["ranks"] == [1, 2] and doc["scaling"] == "strong",
              f"header: {doc['command']}, {doc['ranks']}, {doc['scaling']}")
        check([r["ranks"] for r in doc["runs"]] == [1, 2], f"runs {[r['ranks'] for r in doc['runs']]}")
        fom = {}
        for r in doc["runs"]:
            check(r["exit"] == 0 and f"-np {r['ranks']} " in r["command"] and " ".join(work) in r["command"],
                  f"{r['ranks']} ranks: exit {r['exit']}, command {r['command']}")
            for run in r["result"]["runs"]:
                check(run["valid"], f"{r['ranks']} ranks: {run['variant']} invalid")
                fom[(run["variant"], r["ranks"])] = run["fom"]["value"]
        check(r["result"]["runs"][1]["ranks"]["count"] == 2, "the 2-rank run's JSON has no 2 ranks")
        seen = 0
        for e in doc["efficiencies"]:
            for row in e["by_ranks"]:
                want = fom[(e["variant"], row["ranks"])] / fom[(e["variant"], 1)]
                check(abs(row["speedup"] - want) <= 1e-12 * want and abs(row["efficiency"] - want / row["ranks"]) <=
                      1e-12 * want, f"{e['variant']} on {row['ranks']}: {row}, speedup {want} from the runs")
                against = fom[(e["variant"], row["ranks"])] / fom[("target_tuned", 1)]
                check(abs(row["against"]["speedup"] - against) <= 1e-12 * against, f"{e['variant']}: {row['against']}")
                seen += 1
        check(seen == 4, f"{seen} efficiencies, 4 expected (2 variants, 2 rank counts)")
        # `ompref report` draws the scaling chart from the document, its table the efficiencies.
        pages = os.path.join(tmp, "report")
        p = subprocess.run([OMPREF, "report", out, "--out", pages], env=ENV, capture_output=True, text=True,
                           timeout=LIMIT_S)
        if p.returncode == 2 and "python3-matplotlib" in p.stderr:
            print(f"scaling chart not checked: {p.stderr.strip()}")
        else:
            check(p.returncode == 0, f"ompref report of the scaling document: exit {p.returncode}\n{p.stderr}")
            with open(os.path.join(pages, "index.md")) as f:
                page = f.read()
            charts = [line[line.index("](") + 2:-1] for line in page.splitlines() if line.startswith("![scaling")]
            check(len(charts) == 1 and os.path.getsize(os.path.join(pages, charts[0])) > 0,
                  f"the report links no scaling chart: {charts}")
            for e in doc["efficiencies"]:
                check(f"| {e['workload']} | {e['variant']} | 2 |" in page,
                      f"the report's table has no row of {e['variant']} on 2 ranks")
            with open(os.path.join(pages, charts[0]), "rb") as f:
                width = int.from_bytes(f.read(24)[16:20], "big")
            check(0 < width <= 2000, f"the scaling chart is {width} pixels wide")
        # A run that fails: exit 1, the JSON still written with its status.
        status, _, err = script_run([*launcher, "--ranks", "1", "--out", out, "--", "run", "gpp", "--size", "nosuch"])
        with open(out) as f:
            failed = json.load(f)
        check(status == 1 and failed["runs"][0]["exit"] == 2, f"a failing run: exit {status}, runs {failed['runs']}")
        # Bad arguments: exit 2 and one line, before any run; the output never overwrites an input.
        binary = os.path.join(tmp, "ompref")
        with open(OMPREF, "rb") as f, open(binary, "wb") as g:
            g.write(f.read())
        os.chmod(binary, 0o755)
        size = os.path.getsize(binary)
        for bad in (["--ranks", "0,1"], ["--ranks", "1,x"], ["--weak", "nz"], ["--ompref", os.path.join(tmp, "none")],
                    ["--ompref", binary, "--out", binary], ["--", "run", "gpp", "--json", "x.json"]):
            args = [*launcher, "--out", os.path.join(tmp, "bad.json"), *bad]
            if "--" not in bad:
                args += ["--", *work]
            status, _, err = script_run(args)
            lines = err.strip().splitlines()
            check(status == 2 and len(lines) == 1 and lines[0].startswith("scaling.py: "),
                  f"scaling.py {' '.join(bad)}: exit {status}, stderr {err!r}")
            check(not os.path.exists(os.path.join(tmp, "bad.json")), f"scaling.py {' '.join(bad)}: wrote its output")
        check(os.path.getsize(binary) == size, "scaling.py overwrote the ompref it was given")
    print("scaling.py on 1 and 2 ranks: one JSON with both runs, their commands and the efficiencies; "
          "a failing run exits 1; bad arguments exit 2 with one line")


CASES = {f.__name__: f for f in (lbm_bitwise, lbm_halo, lbm_memory, lbm_resident, gpp_ranks, json_fields, bad_input, failing_rank,
                                 scaling)}
if CASE not in CASES:
    sys.exit(f"mpi_check.py: unknown case {CASE} (accepted: {', '.join(CASES)})")
CASES[CASE]()
