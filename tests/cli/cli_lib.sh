# The shared part of the CLI test scripts (tests/cli/test_cli*.sh), sourced
# with the binary: . cli_lib.sh BIN. It sets BIN, an empty XDG_CONFIG_HOME
# (removed on exit), the pass / fail counters, expect and refuse, and SEED,
# the seed example's run. Each script ends with cli_summary.
set -u
BIN="$1"
# No calibration profile unless a test writes one: the default profile lives
# under XDG_CONFIG_HOME, so a profile on this machine changes no output here.
XDG_CONFIG_HOME=$(mktemp -d /tmp/microddp-cli-config.XXXXXX)
export XDG_CONFIG_HOME
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
fail=0; passed=0
expect() {  # expect <exit code> <substring of stdout+stderr, lines included> -- args...
  local code="$1" want="$2"; shift 3
  local out rc
  out=$("$BIN" "$@" 2>&1); rc=$?
  # a plain substring test: a want of several lines must appear as one block
  if [ "$rc" -ne "$code" ] || [[ "$out" != *"$want"* ]]; then
    echo "FAIL: microddp $* -> exit $rc (wanted $code), output:"; echo "$out" | head -40
    echo "      wanted to see: $want"; fail=$((fail + 1))
  else
    passed=$((passed + 1))
  fi
}
SEED=(run --collective all_reduce --algorithm ring_unchunked --ranks 3 --data "1,2,3;4,5,6;7,8,9")
refuse() {  # refuse <the error line, or its start> -- args: exit 2, nothing on stdout, one line on stderr
  local want="$1"; shift 2
  local out err rc
  out=$("$BIN" "$@" 2>/tmp/microddp-cli-refuse.$$); rc=$?; err=$(cat /tmp/microddp-cli-refuse.$$)
  rm -f /tmp/microddp-cli-refuse.$$
  if [ "$rc" -ne 2 ] || [ -n "$out" ] || [ "$(wc -l <<<"$err")" -ne 1 ] || [[ "$err" != "$want"* ]]; then
    echo "FAIL: microddp $* -> exit $rc (wanted 2), stdout: $(head -3 <<<"$out")"; echo "      stderr: $err"
    echo "      wanted: $want"; fail=$((fail + 1)); else passed=$((passed + 1)); fi
}
cli_summary() {  # the counts, and the exit status: 0 when nothing failed
  echo "$passed passed, $fail failed"
  [ "$fail" -eq 0 ]
}
