#!/bin/sh
# Bad options exit 2 with one clear "error: ..." line naming the bad value,
# before any display is needed; and with no display the app exits 2 naming
# xvfb-run and `microddp run --steps`.
# usage: bad_options_test.sh MICRODDP_VIZ
set -u
viz=$1
fail=0
check() {  # check EXPECTED_SUBSTRING args...
  want=$1; shift
  out=$("$viz" "$@" 2>&1 >/dev/null); rc=$?
  if [ $rc -ne 2 ] || ! printf '%s' "$out" | grep -qF -- "$want"; then
    echo "FAIL: microddp-viz $* -> rc $rc, stderr: $out (wanted rc 2 and '$want')"
    fail=1
  else
    echo "ok: $* -> $out"
  fi
}
check "unknown algorithm 'bogus'" --algorithm bogus --screenshot /tmp/x.png
check "--size 0x0" --size 0x0 --screenshot /tmp/x.png
check "--size '12x'" --size 12x --screenshot /tmp/x.png
check "/nonexistent-dir/out.png" --screenshot /nonexistent-dir/out.png
check "--step 9" --step 9 --screenshot /tmp/x.png
check "ranks 0" --ranks 0 --screenshot /tmp/x.png
out=$(env -u DISPLAY -u WAYLAND_DISPLAY "$viz" --screenshot /tmp/microddp-viz-nodisplay.png 2>&1); rc=$?
if [ $rc -ne 2 ] || ! printf '%s' "$out" | grep -q "xvfb-run" || ! printf '%s' "$out" | grep -q "microddp run"; then
  echo "FAIL: no display -> rc $rc: $out"; fail=1
else
  echo "ok: no display -> $out"
fi
exit $fail
