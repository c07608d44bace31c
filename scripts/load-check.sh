#!/usr/bin/env bash
# The suite under load: several copies of it at once (default 3), each in a fresh clone of HEAD
# with its own `npm ci`, as a busy CI machine runs it. Prints each copy's last line ("N passed,
# N failed") and exits 0 only when every copy failed nothing. Commit first: the clones are of
# HEAD. The logs stay in the folder it prints, for the failures to be read.
#
#   scripts/load-check.sh [copies]
set -euo pipefail

copies="${1:-3}"
root="$(git rev-parse --show-toplevel)"
commit="$(git -C "$root" rev-parse HEAD)"
work="$(mktemp -d "${TMPDIR:-/tmp}/cairn-load-check-XXXXXX")"
echo "load check of $commit, $copies copies at once, in $work"

for i in $(seq 1 "$copies"); do
  git clone --quiet --no-hardlinks "$root" "$work/$i"
  git -C "$work/$i" checkout --quiet --detach "$commit"
  (cd "$work/$i" && npm ci --no-audit --no-fund >"$work/install-$i.log" 2>&1)
done

pids=()
for i in $(seq 1 "$copies"); do
  (cd "$work/$i" && npm test >"$work/test-$i.log" 2>&1) &
  pids+=("$!")
done
for pid in "${pids[@]}"; do wait "$pid" || true; done

failed=0
for i in $(seq 1 "$copies"); do
  last="$(tail -n 1 "$work/test-$i.log")"
  echo "copy $i: $last"
  [[ "$last" =~ ^[0-9]+\ passed,\ 0\ failed$ ]] || failed=1
done
for i in $(seq 1 "$copies"); do rm -rf "$work/$i"; done
exit "$failed"
