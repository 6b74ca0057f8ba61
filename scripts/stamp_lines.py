#!/usr/bin/env python3
"""Copies standard input to standard output line by line and writes every line,
after the seconds since START (default: since this program started) and a
tab, to FILE; its last row, "<seconds>\t(end of output)", is when the input
ended. scripts/toolchain-matrix.sh
pipes a command's output through it to measure the time to its first result
line (process start, device initialisation, first kernel) beside the wall time.
A line written before this program is reading gets the time it is read: the
times are upper bounds, by at most this program's own start-up."""
import argparse
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("file", help="where the timed lines go (overwritten)")
    parser.add_argument("--since", type=float, metavar="START",
                        help="the command's start as seconds since the epoch (date +%%s.%%N)")
    args = parser.parse_args()
    now = time.time()
    if args.since is not None and not 0 <= now - args.since < 86400:
        parser.error(f"--since {args.since}: not a time of the last day")
    start = args.since if args.since is not None else now
    try:
        out = open(args.file, "w", encoding="utf-8")
    except OSError as error:
        print(f"stamp_lines.py: cannot write {args.file}: {error.strerror}", file=sys.stderr)
        return 2
    with out:
        for line in iter(sys.stdin.buffer.readline, b""):
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()
            text = line.decode("utf-8", errors="replace").rstrip("\n")
            out.write(f"{time.time() - start:.3f}\t{text}\n")
            out.flush()
        out.write(f"{time.time() - start:.3f}\t(end of output)\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
