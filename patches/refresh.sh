#!/bin/bash
# Regenerate patches/ from a git work tree of linux-source-6.1 whose commits
# after BASE are the series (the way this series is developed):
#
#   patches/refresh.sh build/dev <base-commit>
#
# No identity is stored: Signed-off-by lines are dropped (`make series` adds
# the one of whoever runs it), and the development tree's commits should have
# a neutral author (e.g. "NAPI weight lab <napi-lab@example.invalid>").
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
sed -i -e 's/^ $//' -e '/^Signed-off-by: /d' "$dir"/[0-9][0-9][0-9][0-9]-*.patch
(cd "$dir" && ls [0-9][0-9][0-9][0-9]-*.patch) > "$dir/series"
