#!/usr/bin/env bash
# The action's install step: installs the release PLY_VERSION into the
# runner's tool directory with release/install.sh, which checks the
# archive's checksum, and puts it on PATH. With no version, a ply already
# on PATH is used.
set -euo pipefail
if [ -z "${PLY_VERSION:-}" ]; then
	command -v ply >/dev/null || { echo "::error::no version given and no ply on PATH"; exit 1; }
	ply --version
	exit 0
fi
dir="${RUNNER_TEMP:?}/ply-bin"
if [ -z "${PLY_BASE_URL:-}" ]; then unset PLY_BASE_URL; fi
PLY_INSTALL_DIR="$dir" sh "$GITHUB_ACTION_PATH/release/install.sh"
echo "$dir" >>"${GITHUB_PATH:?}"
"$dir/ply" --version
