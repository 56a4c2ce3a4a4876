#!/usr/bin/env bash
# Installs this archive's archsh under PREFIX (default ~/.local): bin/archsh, share/archsh/ (the
# walkthroughs, the exercises), the man page and the completions for bash, zsh and fish.
# PREFIX/share/archsh/uninstall removes exactly what it put there.
#
# Usage: ./install.sh [PREFIX]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:-$HOME/.local}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
entries=()
folder() {
  local path=$1
  [[ -d $prefix/$path ]] && return
  local parent
  parent=$(dirname "$path")
  [[ $parent != . ]] && folder "$parent"
  mkdir -m 0755 "$prefix/$path"
  entries+=("d $path")
}
while read -r kind path; do
  [[ $kind == f && $path != share/archsh/install-manifest ]] || continue
  folder "$(dirname "$path")"
  cp -p "$here/$path" "$prefix/$path"
  entries+=("f $path")
done < "$here/share/archsh/install-manifest"
entries+=("f share/archsh/install-manifest")
printf '%s\n' "${entries[@]}" > "$prefix/share/archsh/install-manifest"
echo "installed archsh in $prefix: $prefix/bin/archsh ('$prefix/share/archsh/uninstall' removes it)"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "note: $prefix/bin is not on your PATH; add it, for example: export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
