# Sourced by scripts/matrix.sh and scripts/hip-build.sh, after their options are read: a Debian
# root made by `debootstrap --variant=minbase` (or reused), and the timed, logged steps of
# a build in it. The sourcing script sets
#   tool    its name in messages and summaries (matrix, hip-build)
#   here    this checkout; suite: bookworm, trixie or sid
#   root    the root's folder (empty: a temporary one under /var/tmp, removed at exit
#           unless keep=1); logs: the logs' folder (empty: a temporary one); keep: 0 or 1
# and defines report_title (the summary's first line). Then:
#   root_setup NAME   the mirror, the root and logs folders (/var/tmp/gpp-NAME-root.*),
#                     the cleanup at exit (unmounts; removes a temporary root)
#   root_make MARKER  reuse the root if its /etc/MARKER names this suite, else debootstrap
#                     it into the empty folder; mount /proc and /sys
#   in_root CMDS      CMDS in the root as a fresh root login (a clean environment, plus
#                     the words of the array in_root_env)
#   step NAME LOG CMD...  CMD timed, its output to LOGS/LOG, a line in the summary; a
#                     failure ends the script (report, exit 1) unless keep_going=1
#   note TEXT, report
#   root_check_inputs run as root; kokkos_src (when set) made absolute and checked to be
#                     a Kokkos source tree; rev set to the commit $commit names (a note
#                     when HEAD has uncommitted changes, which are not built)
. "$here/scripts/debian-mirror.sh"

root_check_inputs() {
  [ "$(id -u)" -eq 0 ] || { echo "$tool: run as root (debootstrap, chroot, mount)" >&2; exit 2; }
  if [ -n "${kokkos_src:-}" ]; then
    kokkos_src=$(cd "$kokkos_src" && pwd)
    [ -f "$kokkos_src/core/src/Kokkos_Core.hpp" ] || { echo "$tool: $kokkos_src is not a Kokkos source tree" >&2; exit 2; }
  fi
  rev=$(git -C "$here" rev-parse --verify "$commit^{commit}")
  if [ "$commit" = HEAD ] && [ -n "$(git -C "$here" status --porcelain --untracked-files=no)" ]; then
    echo "$tool: note: uncommitted changes in $here are not built (HEAD $rev is)" >&2
  fi
}

tmp_root=0 keep_going=0 failed=0 summary=() in_root_env=()

root_setup() {
  mirror=$(debian_mirror "$suite") || { echo "$tool: no Debian apt source on this machine to take a mirror from" >&2; exit 1; }
  command -v debootstrap >/dev/null || { echo "$tool: needs debootstrap (apt-get install debootstrap)" >&2; exit 1; }
  t0=$SECONDS
  if [ -z "$root" ]; then
    root=$(mktemp -d "/var/tmp/gpp-$1-root.XXXXXX")
    tmp_root=1
  else
    mkdir -p "$root"
    root=$(cd "$root" && pwd)
  fi
  [ -n "$logs" ] || logs=$(mktemp -d "/var/tmp/gpp-$1-logs.XXXXXX")
  mkdir -p "$logs"
  logs=$(cd "$logs" && pwd)
  trap root_cleanup EXIT
}

root_cleanup() {
  local m
  for m in "$root/sys" "$root/proc"; do
    mountpoint -q "$m" && umount -l "$m"
  done
  if [ "$tmp_root" = 1 ] && [ "$keep" = 0 ]; then
    # Only once nothing is mounted below the root.
    if ! grep -q " $root/" /proc/mounts; then rm -rf --one-file-system "$root"; fi
  fi
}

in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root USER=root LOGNAME=root TERM=dumb LANG=C.UTF-8 \
    ${in_root_env[@]+"${in_root_env[@]}"} PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "$1"
}

step() {
  local name=$1 log=$logs/$2 s=$SECONDS rc=0
  shift 2
  printf '== %s [%4ds] %s (log: %s)\n' "$tool" $((SECONDS - t0)) "$name" "$log"
  "$@" >"$log" 2>&1 || rc=$?
  local d=$((SECONDS - s))
  if [ $rc -eq 0 ]; then
    summary+=("$(printf 'PASS  %4d s  %s' "$d" "$name")")
    return 0
  fi
  summary+=("$(printf 'FAIL  %4d s  %s (exit %d: %s)' "$d" "$name" $rc "$log")")
  failed=1
  tail -n 30 "$log"
  [ "$keep_going" = 1 ] && return 1
  report
  exit 1
}

note() { summary+=("$(printf '      %6s  %s' "" "$*")"); }

report() {
  printf '\n'
  report_title
  printf '%s\n' "${summary[@]}"
  if [ "$failed" = 0 ]; then echo "== $tool: PASS"; else echo "== $tool: FAIL"; fi
  echo "   root: $root$([ "$tmp_root" = 1 ] && [ "$keep" = 0 ] && echo ' (removed)')   logs: $logs"
}

root_make() {
  local marker=$root/etc/$1
  if [ -f "$marker" ] && [ "$(cat "$marker")" = "$suite" ]; then
    note "root $root reused ($suite)"
  else
    [ -z "$(ls -A "$root")" ] || { echo "$tool: $root is neither empty nor a root made by this script for $suite" >&2; exit 2; }
    step "debootstrap --variant=minbase $suite" debootstrap.log debootstrap --variant=minbase "$suite" "$root" "$mirror"
    # An unstable index's Release file may be expired.
    echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99gpp-no-valid-until"
    echo "$suite" >"$marker"
  fi
  root_hosts "$root"
  mount -t proc proc "$root/proc"
  mount -t sysfs sys "$root/sys"
}
