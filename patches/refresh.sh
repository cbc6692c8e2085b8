#!/bin/bash
# Regenerate patches/ from a git work tree of linux-source-6.1 whose commits
# after BASE are the series (the way this series is developed):
#
#   patches/refresh.sh build/dev <base-commit>
#
# Blank context lines are written as empty lines (GNU patch and git apply take
# both), so that checkpatch run on a tracked patch file, which it then reads
# as a source file, finds no trailing whitespace that is only diff syntax.
set -euo pipefail
tree=${1:?usage: refresh.sh TREE BASE}
base=${2:?usage: refresh.sh TREE BASE}
dir=$(cd "$(dirname "$0")" && pwd)
rm -f "$dir"/[0-9][0-9][0-9][0-9]-*.patch
git -C "$tree" format-patch -q --no-signature -o "$dir" "$base"
sed -i 's/^ $//' "$dir"/[0-9][0-9][0-9][0-9]-*.patch
(cd "$dir" && ls [0-9][0-9][0-9][0-9]-*.patch) > "$dir/series"
