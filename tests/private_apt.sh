# shellcheck shell=bash
# Sourced by tests/debian_python.sh and tests/freethreaded_python.sh: apt on a private
# configuration and state, whose only source is one Debian suite, at the mirror the
# system's own sources name. The system's sources, pins, package lists and installed
# packages are never touched, so nothing else on the machine can change, and a
# concurrent apt of someone else's is not locked out.
#
#   private_apt DIR TYPE SUITE LABEL
#
# TYPE is deb (binary packages) or deb-src (source packages). It makes DIR's etc/,
# state/ and cache/, fetches SUITE's index (its log: DIR/update.log), and leaves in the
# array `apt` the apt-get command line that uses them; on failure it prints why and
# returns 1. LABEL prefixes its progress line.
private_apt() {
  local dir=$1 type=$2 suite=$3 label=$4 release mirror name=$3
  [ "$type" = deb-src ] && name=$suite-src
  release=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  if [ -z "$release" ]; then
    echo "FAIL: /etc/os-release names no VERSION_CODENAME" >&2
    return 1
  fi
  # the mirror the system's own release comes from (its sources, in either format)
  mirror=$(apt-get --print-uris update 2>/dev/null |
    sed -n "s|^'\(.*\)/dists/$release/InRelease'.*|\1|p" | head -n1)
  if [ -z "$mirror" ]; then
    echo "FAIL: no apt source for Debian $release in /etc/apt/sources.list(.d)" >&2
    return 1
  fi
  mkdir -p "$dir"/etc/sources.list.d "$dir"/etc/preferences.d \
    "$dir"/state/lists/partial "$dir"/cache/archives/partial
  touch "$dir/state/status"
  cat >"$dir/etc/sources.list.d/$name.sources" <<EOS
Types: $type
URIs: $mirror
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
  apt=(apt-get -q
    -o "Dir::Etc=$dir/etc" -o Dir::Etc::sourcelist=/dev/null
    -o "Dir::Etc::sourceparts=$dir/etc/sources.list.d"
    -o "Dir::Etc::preferencesparts=$dir/etc/preferences.d"
    -o "Dir::State=$dir/state" -o "Dir::State::status=$dir/state/status"
    -o "Dir::Cache=$dir/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User=root
    -o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false)
  echo "$label: $type index of $suite (from $mirror)"
  "${apt[@]}" update >"$dir/update.log" 2>&1 || {
    cat "$dir/update.log"
    echo "FAIL: apt-get update of $suite ($type)" >&2
    return 1
  }
}
