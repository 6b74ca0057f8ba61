#!/usr/bin/env python3
"""The LLVM OpenMP runtime's registration files of ended processes: removed
before runs that would otherwise die on them (tests/cli_fuzz.py before each
run; scripts/test.sh before each CTest run).

    python3 tests/runtime_debris.py    removes them, says how many
"""
import os
import sys

REGISTRATION_DIR = "/dev/shm"
REGISTRATION_PREFIX = "__KMP_REGISTERED_LIB_"


def remove_registration_debris():
    """Removes the LLVM OpenMP runtime's registration files of this user's
    processes that no longer run; returns how many it removed.

    The runtime registers each process in /dev/shm/__KMP_REGISTERED_LIB_<pid>_<uid>
    as it starts and removes the file as it ends. A process killed while
    registering leaves the file empty (or without its record); a later process
    given the same pid then dies before main: SIGBUS for an empty file, SIGABRT
    for a record it cannot read (tests/reproducers/libomp-empty-registration).
    Such a death is the runtime's, not the program's: the files are removed
    before each run, as the runtime itself removes the complete record of a
    process that ended. Files of running processes are left alone."""
    removed = 0
    suffix = f"_{os.getuid()}"
    try:
        names = os.listdir(REGISTRATION_DIR)
    except OSError:
        return 0
    for name in names:
        if not (name.startswith(REGISTRATION_PREFIX) and name.endswith(suffix)):
            continue
        pid = name[len(REGISTRATION_PREFIX):-len(suffix)]
        if not pid.isdigit() or os.path.exists(f"/proc/{pid}"):
            continue
        try:
            os.unlink(os.path.join(REGISTRATION_DIR, name))
            removed += 1
        except OSError:
            pass
    return removed


if __name__ == "__main__":
    n = remove_registration_debris()
    if n:
        print(f"removed {n} OpenMP runtime registration files of ended processes from {REGISTRATION_DIR}")
    sys.exit(0)
