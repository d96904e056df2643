#!/usr/bin/env bash
# The action's run step: runs ply headless on PLY_PROMPT with the approval
# mode and caps, keeps its answer in a file, and writes the job summary.
# It always succeeds; status.sh fails the job afterwards, so that the
# summary and the comment are written whatever ply's exit code.
set -uo pipefail
# A ply the install step added to GITHUB_PATH is on PATH only in later
# steps of a real runner; here it is read back.
if [ -f "${GITHUB_PATH:-}" ]; then
	while IFS= read -r d; do PATH="$d:$PATH"; done <"$GITHUB_PATH"
fi
out="${RUNNER_TEMP:?}/ply-result.md"
err="$RUNNER_TEMP/ply-stderr.txt"
# PLY_ARGS is split on whitespace on purpose: it holds flags.
# shellcheck disable=SC2086
ply -p "${PLY_PROMPT:?the prompt input is empty}" \
	--approval-mode "${PLY_APPROVAL_MODE:-default}" \
	--max-tool-calls "${PLY_MAX_TOOL_CALLS:-50}" \
	--max-wall-time "${PLY_MAX_WALL_TIME:-10m}" \
	--max-session-turns "${PLY_MAX_SESSION_TURNS:-30}" \
	${PLY_ARGS:-} </dev/null >"$out" 2>"$err"
code=$?
case "$code" in
	0) meaning="success" ;;
	41) meaning="authentication failed" ;;
	42) meaning="bad input or flags" ;;
	52) meaning="bad configuration" ;;
	53) meaning="the session turn limit was reached (max-session-turns)" ;;
	54) meaning="a tool error or a hook ended the run" ;;
	55) meaning="a budget ran out (max-tool-calls, max-wall-time or a loop guard)" ;;
	56) meaning="the session could not be saved" ;;
	130) meaning="cancelled" ;;
	*) meaning="error" ;;
esac
echo "$code" >"$RUNNER_TEMP/ply-exit-code"
echo "$meaning" >"$RUNNER_TEMP/ply-exit-meaning"
{
	echo "exit-code=$code"
	echo "result-file=$out"
} >>"${GITHUB_OUTPUT:?}"
{
	echo "## ply"
	echo
	echo "Exit code **$code**: $meaning."
	echo
	cat "$out"
	if [ "$code" != 0 ] && [ -s "$err" ]; then
		echo
		echo "<details><summary>stderr</summary>"
		echo
		echo '```'
		tail -n 50 "$err"
		echo '```'
		echo "</details>"
	fi
} >>"${GITHUB_STEP_SUMMARY:?}"
cat "$err" >&2
exit 0
