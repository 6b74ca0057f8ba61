#!/bin/bash
# Times docs/learn.md's episodes on a fresh Debian 12 root, as a student on a new
# machine would follow them: debootstraps bookworm (minbase, git and
# ca-certificates: a new machine with git; apt sources of a standard install:
# bookworm, bookworm-updates, bookworm-security), clones this checkout's HEAD
# into it through file://, and runs scripts/walkthrough.sh there in a chroot.
# Needs root, debootstrap and deb.debian.org. Writes into DIR (which it creates;
# the root alone takes 1.5 GB after the walkthrough):
#   timings.tsv      scripts/walkthrough.sh's lines: seconds per step, since the clone
#   walkthrough.log  each step's output
#   machine.txt      the commit, when, nproc, load average before and after, how
#                    many Debian packages apt fetched and their MiB
# and removes the root after (--keep leaves it). DIR/pristine.tar, when there,
# is used as the fresh root instead of a new debootstrap (it is written after one).
#   fresh-walkthrough.sh [--keep] DIR [EPISODE...]
set -euo pipefail
keep=0
[ "${1:-}" = --keep ] && { keep=1; shift; }
[ $# -ge 1 ] || { echo "usage: fresh-walkthrough.sh [--keep] DIR [EPISODE...]" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "fresh-walkthrough.sh: needs root (debootstrap, chroot, mount)" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mkdir -p "$1" && cd "$1" && pwd)
shift
root=$dir/root
mounts=("$root/srv/ompref.git" "$root/dev/pts" "$root/dev" "$root/sys" "$root/proc")
unmount() { for m in "${mounts[@]}"; do mountpoint -q "$m" && umount "$m"; done; return 0; }
trap unmount EXIT
unmount
rm -rf "$root"
if [ -f "$dir/pristine.tar" ]; then
  mkdir "$root" && tar -C "$root" -xf "$dir/pristine.tar"
else
  command -v debootstrap >/dev/null || { echo "fresh-walkthrough.sh: no debootstrap (apt-get install debootstrap)" >&2; exit 2; }
  debootstrap --variant=minbase --include=git,ca-certificates bookworm "$root" http://deb.debian.org/debian \
    > "$dir/debootstrap.log" 2>&1
  tar -C "$root" -cf "$dir/pristine.tar" .
fi
cat > "$root/etc/apt/sources.list" <<'S'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
S
cp /etc/resolv.conf "$root/etc/resolv.conf"
rm -f "$root"/var/cache/apt/archives/*.deb   # debootstrap's own packages: a new machine has none
rm -rf "$dir/ompref.git" && git clone -q --bare "$src" "$dir/ompref.git"
mkdir -p "$root/srv/ompref.git" "$root/root/course"
mount --bind "$dir/ompref.git" "$root/srv/ompref.git"
mount -t proc proc "$root/proc"; mount --bind /sys "$root/sys"
mount --bind /dev "$root/dev"; mount --bind /dev/pts "$root/dev/pts"
cp "$src/scripts/walkthrough.sh" "$root/root/course/"
{ echo "commit: $(git -C "$dir/ompref.git" rev-parse --short HEAD)"
  echo "start: $(date -u +%FT%TZ)"
  echo "nproc: $(nproc)"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"; } > "$dir/machine.txt"
chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  bash -c 'cd /root/course && ./walkthrough.sh file:///srv/ompref.git "$@"' walkthrough "$@" \
  | tee "$dir/timings.tsv"
{ echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "apt fetched: $(ls "$root"/var/cache/apt/archives/*.deb 2>/dev/null | wc -l) packages," \
       "$(du -sm "$root/var/cache/apt/archives" | cut -f1) MiB"; } >> "$dir/machine.txt"
cp "$root/root/course/walkthrough.log" "$dir/"
unmount
[ "$keep" = 1 ] || rm -rf "$root" "$dir/ompref.git"
