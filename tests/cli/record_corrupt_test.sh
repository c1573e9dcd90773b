#!/usr/bin/env bash
# scripts/record-corrupt.sh refuses a run that exits 1 without a record:
# exit 1, a line naming the cause, and no OUT file (stand-in MICRODDPs here,
# so no seed search runs).
# Usage: record_corrupt_test.sh SOURCE_DIR
set -u
src=$1
script=$src/scripts/record-corrupt.sh
tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT
fails=0
expect() {  # expect MESSAGE MICRODDP
  local want=$1 bin=$2 got rc
  "$script" "$bin" "$tmp/out.json" >"$tmp/said" 2>&1
  rc=$?
  got=$(tail -1 "$tmp/said")
  if [ "$rc" -ne 1 ] || [ "$got" != "$want" ] || [ -e "$tmp/out.json" ]; then
    echo "FAIL: record-corrupt.sh $bin"
    echo "  want (exit 1, no out.json): $want"
    echo "  got  (exit $rc$([ -e "$tmp/out.json" ] && echo ', out.json written')): $got"
    fails=$((fails + 1))
  fi
  rm -f "$tmp/out.json"
}
expect "record-corrupt: /bin/false exited 1 but wrote no record (empty --save-record file)" /bin/false
# stand-ins that exit 1 (as a corrupting run does) after writing FILE, the argument after --save-record
stub() {  # stub NAME CONTENT
  printf '#!/usr/bin/env bash\nwhile [ "$1" != --save-record ]; do shift; done\nprintf %%s %q > "$2"\nexit 1\n' "$2" \
    >"$tmp/$1"
  chmod +x "$tmp/$1"
}
stub garbage 'not json'
stub object '{"format": "microddp-record"}'
stub array '[1, 2]'
for s in garbage object array; do
  expect "record-corrupt: $tmp/$s wrote no record (not JSON with format, spec, inputs, outputs, trace, broken, delay)" \
    "$tmp/$s"
done
# a stand-in writing a record's keys is taken, and "recorded" added
stub record '{"format": "microddp-record", "spec": {}, "inputs": [], "outputs": [], "trace": {}, "broken": "x", "delay": {}}'
got=$("$script" "$tmp/record" "$tmp/out.json" 2>&1 | tail -1)
if [ "$got" != "wrote $tmp/out.json" ] || [ "$(jq -c 'keys' "$tmp/out.json")" != \
  '["broken","delay","format","inputs","outputs","recorded","spec","trace"]' ]; then
  echo "FAIL: record-corrupt.sh with a record: $got; keys $(jq -c keys "$tmp/out.json" 2>&1)"; fails=$((fails + 1))
fi
# a bad OUT is refused before the run (exit 2, nothing run: the stand-in would leave $tmp/ran)
printf '#!/usr/bin/env bash\ntouch %q\nexit 1\n' "$tmp/ran" >"$tmp/marks"
chmod +x "$tmp/marks"
refused() {  # refused MESSAGE MICRODDP OUT
  local want=$1 got rc
  got=$("$script" "$2" "$3" 2>&1)
  rc=$?
  if [ "$rc" -ne 2 ] || [ "$got" != "$want" ] || [ -e "$tmp/ran" ]; then
    echo "FAIL: record-corrupt.sh $2 $3"
    echo "  want (exit 2, nothing run): $want"
    echo "  got  (exit $rc$([ -e "$tmp/ran" ] && echo ', MICRODDP ran')): $got"
    fails=$((fails + 1))
  fi
  rm -f "$tmp/ran"
}
refused "record-corrupt: OUT '$tmp/nodir/r.json': the directory '$tmp/nodir' does not exist" "$tmp/marks" "$tmp/nodir/r.json"
refused "record-corrupt: OUT '$tmp' is a directory" "$tmp/marks" "$tmp"
refused "record-corrupt: OUT '/proc/r.json': cannot write in the directory '/proc'" "$tmp/marks" /proc/r.json
refused "record-corrupt: MICRODDP '$tmp/none' is not an executable file" "$tmp/none" "$tmp/out.json"
[ "$fails" -eq 0 ] && echo "record_corrupt_test: all passed"
exit "$fails"
