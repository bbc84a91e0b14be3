# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Progress and errors for the setup and build scripts in tools/: one line
# on stderr each, prefixed with the script's name, and long command output
# kept in a log that is shown only when the command fails.

# msg TEXT...: a progress line on stderr
msg() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }

# die TEXT...: an error line on stderr, then exit 1
die() {
	msg "error: $*"
	exit 1
}

# logged LOG COMMAND...: run COMMAND with its output appended to LOG; when
# it fails, show LOG's last lines and die naming the command and the log
logged() {
	local log=$1

	shift
	mkdir -p "$(dirname "$log")"
	if ! "$@" >>"$log" 2>&1; then
		tail -n 30 "$log" >&2
		die "failed: $* (full log: $log)"
	fi
}
