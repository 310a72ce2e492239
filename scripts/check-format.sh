#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Formatting check: every .c and .h file git tracks must be as clang-format
# leaves it under the repository's .clang-format. Run by .ci/run; run it
# yourself before committing. Nothing is excluded.
#
#   check-format.sh          list the files that differ; fail if any does
#   check-format.sh --fix    format them in place
#
# clang-format comes with scripts/deps.sh qa.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
	echo "check-format: clang-format is missing (bash scripts/deps.sh qa)" >&2
	exit 2
fi
mapfile -t files < <(git ls-files -- '*.c' '*.h')
if [ "${1:-}" = --fix ]; then
	clang-format -i -- "${files[@]}"
	exit 0
fi
bad=()
for f in "${files[@]}"; do
	clang-format --dry-run --Werror -- "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
	printf 'check-format: not formatted: %s\n' "${bad[@]}"
	echo "check-format: ${#bad[@]} of ${#files[@]} files differ" \
		"(scripts/check-format.sh --fix formats them)"
	exit 1
fi
echo "check-format: ${#files[@]} files formatted"
