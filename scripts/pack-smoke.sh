#!/usr/bin/env bash
# The packed package, used as a new user would: `npm pack` here, then in an empty temp folder
# (scripts/pack-smoke-user.sh, copied there) install the tarball and run the CLI, the library, the
# published types and the shipped examples. Needs a build (`npm run build`) and the npm registry
# (or npm's cache) for kubesim's dependencies.
#
# The repository is hidden while the user's side runs: an empty tmpfs is mounted over it in a
# private mount namespace (unshare), so a path into the repository fails instead of working by
# accident. Where unshare is not permitted the run continues with the repository visible and says so.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/kubesim-pack-smoke.XXXXXX")"
trap 'rm -rf "$work"' EXIT

[ -f "$repo/dist/src/cli/index.js" ] || { echo "pack-smoke: run npm run build first" >&2; exit 1; }
start=$(date +%s)
(cd "$repo" && npm pack --silent --pack-destination "$work" >/dev/null)
tarball="$(ls "$work"/kubesim-*.tgz)"
echo "pack-smoke: packed $(basename "$tarball") ($(du -k "$tarball" | cut -f1) kB, $(tar tzf "$tarball" | wc -l) files)"
if tar tzf "$tarball" | grep -E '^package/(test|src|bench|assembly|scripts)/' >/dev/null; then
  echo "pack-smoke: the tarball holds repository-only folders:" >&2
  tar tzf "$tarball" | grep -E '^package/(test|src|bench|assembly|scripts)/' | head >&2
  exit 1
fi
cp "$repo/scripts/pack-smoke-user.sh" "$work/"
# the TypeScript the published types are checked with: the versions kubesim builds with
dev() { node -p "require('$repo/package.json').devDependencies['$1']"; }
export KUBESIM_TGZ="$tarball" TS_VERSION="$(dev typescript)" TYPES_NODE_VERSION="$(dev @types/node)"
export KUBESIM_REPO="$repo"

if unshare --mount --propagation private true 2>/dev/null; then
  unshare --mount --propagation private bash -c \
    'mount -t tmpfs -o size=1m kubesim-hidden "$KUBESIM_REPO" && cd "$0" && bash ./pack-smoke-user.sh' "$work"
else
  echo "pack-smoke: unshare is not permitted here; the repository stays visible (paths into it are still checked)"
  (cd "$work" && bash ./pack-smoke-user.sh)
fi
echo "pack-smoke: passed in $(($(date +%s) - start)) s"
