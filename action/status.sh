#!/usr/bin/env bash
# The action's last step: fails with ply's exit code when it was not 0
# and PLY_FAIL_ON_ERROR is true.
set -euo pipefail
code="$(cat "${RUNNER_TEMP:?}/ply-exit-code")"
if [ "$code" != 0 ] && [ "${PLY_FAIL_ON_ERROR:-true}" = true ]; then
	echo "::error::ply exited with code $code: $(cat "$RUNNER_TEMP/ply-exit-meaning")"
	exit "$code"
fi
