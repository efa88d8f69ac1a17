# Sourced by .ci/run and the tools that make Debian roots (bash): debian_mirror SUITE prints
# the Debian mirror this machine's apt sources use, for debootstrap. No host name is written
# in the repository: the mirror is whatever this machine installs Debian from. root_hosts ROOT
# gives a root made by debootstrap the /etc/hosts an installed Debian has.
#
# First choice: an enabled `deb` source (deb822 .sources or sources.list lines) that lists
# SUITE itself. Otherwise (a Debian 12 machine asked for trixie or sid) the source of this
# machine's own release (VERSION_CODENAME in /etc/os-release, not its -updates or -security
# suites): a Debian mirror serves every suite under the same URI.
_debian_mirror_for() {  # _debian_mirror_for SUITE: URIs of enabled deb sources listing SUITE
  local suite=$1 f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v suite="$suite" 'BEGIN { RS = "" }
      {
        types = ""; uris = ""; suites = ""; enabled = "yes"
        n = split($0, line, "\n")
        for (i = 1; i <= n; i++) {
          if (line[i] ~ /^Types:/) types = " " substr(line[i], 7) " "
          if (line[i] ~ /^URIs:/) uris = substr(line[i], 6)
          if (line[i] ~ /^Suites:/) suites = " " substr(line[i], 8) " "
          if (line[i] ~ /^Enabled:[ \t]*no/) enabled = "no"
        }
        gsub(/\t/, " ", types); gsub(/\t/, " ", suites)
        if (enabled == "yes" && types ~ / deb / && suites ~ (" " suite " ")) {
          split(uris, u, " "); for (k in u) if (u[k] != "") { print u[k]; exit }
        }
      }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" | awk -v suite="$suite" '$1 == "deb" && $3 == suite { print $2 }'
  done
}

debian_mirror() {  # debian_mirror SUITE
  local m own
  m=$(_debian_mirror_for "$1" | head -n 1)
  if [ -z "$m" ] && [ -r /etc/os-release ]; then
    own=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [ -n "$own" ] && m=$(_debian_mirror_for "$own" | head -n 1)
  fi
  [ -n "$m" ] || return 1
  echo "$m"
}

# root_hosts ROOT: debootstrap writes no /etc/hosts; Debian's installer writes localhost and
# the machine's name (127.0.1.1). Without them a program that looks its own name up asks DNS,
# and where DNS does not answer it waits the resolver's 5 s. Open MPI looks it up as every
# process starts: in such a root one start in four of an MPI build's gpp took 5.1 s instead
# of 0.1 s, which made CI's MPI stage time out. Written at run time (the machine's own name,
# as the kernel reports it); an existing file is kept.
root_hosts() {
  [ -e "$1/etc/hosts" ] && return 0
  printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n::1\tlocalhost ip6-localhost ip6-loopback\n' "$(uname -n)" >"$1/etc/hosts"
}
