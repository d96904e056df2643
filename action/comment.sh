#!/usr/bin/env bash
# The action's comment step: when PLY_COMMENT is true and the event is
# about a pull request or an issue, posts ply's answer there.
set -euo pipefail
[ "${PLY_COMMENT:-false}" = true ] || exit 0
number="$(jq -r '.pull_request.number // .issue.number // empty' "${GITHUB_EVENT_PATH:?}")"
if [ -z "$number" ]; then
	echo "::warning::comment is true but the event ($GITHUB_EVENT_NAME) has no pull request or issue"
	exit 0
fi
code="$(cat "${RUNNER_TEMP:?}/ply-exit-code")"
body="$(printf '**ply** (exit code %s: %s)\n\n' "$code" "$(cat "$RUNNER_TEMP/ply-exit-meaning")"; cat "$RUNNER_TEMP/ply-result.md")"
jq -n --arg body "$body" '{body: $body}' |
	curl -fsS -X POST \
		-H "Authorization: Bearer ${GITHUB_TOKEN:?}" \
		-H "Accept: application/vnd.github+json" \
		--data @- \
		"${GITHUB_API_URL:?}/repos/${GITHUB_REPOSITORY:?}/issues/$number/comments" >/dev/null
echo "commented on #$number"
