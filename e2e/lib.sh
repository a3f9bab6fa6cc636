# e2e/lib.sh: the host side of booting a kernel under qemu with an
# initramfs of busybox and static Go programs, shared by e2e/run.sh (the
# Debian kernel) and scripts/check-kbuild (a kernel built with the kbuild
# series). Sourced (bash); "here" must name the repository.

# The test module's inlined functions (e2e/kmod/btfi_e2e.c) whose
# sites are probed, the values written to /proc/btfi_e2e to run every
# caller, and its module parameter.
e2e_module_funcs="btfi_add3 btfi_stack btfi_spill btfi_deref btfi_fields btfi_konst btfi_wide btfi_outer btfi_inner btfi_frame"
e2e_triggers="5 0x1234 0xfffffff0 123456789"
e2e_seed=4242

# e2e_release DIR: the kernel release a kernel-data folder's modules were
# built for (their vermagic), e.g. 6.12.117+deb13-cloud-amd64.
e2e_release() {
  e2e_vermagic "$(ls "$1"/modules/*.ko | head -n 1)"
}

# e2e_vermagic KO: the kernel release a module was built for.
e2e_vermagic() {
  readelf -p .modinfo "$1" | sed -n 's/.*vermagic=\([^ ]*\).*/\1/p' | head -n 1
}

# e2e_log MSG...: a progress line on stderr, prefixed by $e2e_tag.
e2e_log() { printf '%s: %s\n' "${e2e_tag:-e2e}" "$*" >&2; }

# e2e_need_pkgs PKG...: install the Debian packages that are missing.
e2e_need_pkgs() {
  local need=() p sudo=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need+=("$p")
  done
  [ ${#need[@]} -gt 0 ] || return 0
  e2e_log "installing ${need[*]}"
  [ "$(id -u)" = 0 ] || sudo=sudo
  { $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${need[@]}"; } >&2
}

# e2e_go_static GOARCH OUT PKG: a static build of a command of the module.
e2e_go_static() {
  ( cd "$here" && CGO_ENABLED=0 GOARCH=$1 go build -trimpath -o "$2" "$3" )
}

# e2e_pack ROOT OUT: ROOT as a gzipped newc initramfs, files in name order.
e2e_pack() {
  ( cd "$1" && find . | LC_ALL=C sort | /bin/busybox cpio -o -H newc 2>/dev/null | gzip -1 >"$2" )
}

# e2e_boot TIMEOUT MEM KERNEL INITRD APPEND LOG QEMU...: boot under qemu
# (one CPU, serial console on LOG, no reboot) and return qemu's status;
# killed after TIMEOUT seconds.
e2e_boot() {
  local timeout=$1 mem=$2 kernel=$3 initrd=$4 append=$5 log=$6 rc=0
  shift 6
  timeout --foreground -k 10 "$timeout" "$@" -m "$mem" -smp 1 \
    -kernel "$kernel" -initrd "$initrd" -nographic -serial stdio -monitor none -no-reboot \
    -append "$append" </dev/null >"$log" 2>&1 || rc=$?
  return $rc
}

# e2e_results LOG OUT: the guest's result lines, E2E-BEGIN to E2E-END.
e2e_results() {
  tr -d '\r' <"$1" | sed 's/.*E2E-BEGIN/E2E-BEGIN/' |
    sed -n '/^E2E-BEGIN/,/^E2E-END/p' >"$2"
}

# e2e_slide_check RESULTS HOSTFILE LINK_TEXT: every address immediate the
# guest's resolve --running gave for vmlinux (RESULTS' "E2E resolve-addr"
# lines) must be the one of HOSTFILE (resolved from the files) moved by
# the KASLR slide: the running text symbol ("E2E kaslr SYM=ADDR") minus
# its link-time address LINK_TEXT. Logs each that is not, and the counts;
# fails when any is not.
e2e_slide_check() {
  local rt slide moved=0 off=0 ev name val host want
  rt=$(sed -n 's/^E2E kaslr [^=]*=\([0-9a-f][0-9a-f]*\)\( .*\)\{0,1\}$/\1/p' "$1")
  if [ -z "$rt" ] && grep -q '^E2E resolve-addr' "$1"; then
    e2e_log "resolve --running: address immediates, but no running text address (E2E kaslr SYM=ADDR) to check them with"
    return 1
  fi
  if [ -n "$rt" ] && grep -q '^E2E resolve-addr' "$1"; then
    slide=$((0x$rt - 0x$3))
    while read -r _ _ ev name val; do
      host=$(awk -v ev="$ev" -v n="$name" '$1 == ev { for (i = 3; i <= NF; i++) if (index($i, n "=\\") == 1) { v = $i; sub(/^[^=]*=\\/, "", v); sub(/:.*/, "", v); print v } }' "$2")
      want=$(printf '0x%x' $((host + slide)))
      if [ "$want" = "$val" ]; then moved=$((moved + 1))
      else off=$((off + 1)); e2e_log "resolve --running: $ev $name=$val; the files say $host, moved by the slide: $want"; fi
    done < <(grep '^E2E resolve-addr' "$1")
    e2e_log "resolve --running vmlinux address immediates: $moved moved by the KASLR slide, $off not"
  fi
  [ "$off" = 0 ]
}

# e2e_readme_block README RESULTS NAME: the lines of one run that README's
# block NAME shows, which a run reproduces exactly: the module's summary,
# the vmlinux definitions registered, the judge's counts (without its
# seconds) and every refusal reason and oracle line (e2e_readme_lines).
e2e_readme_block() {
  local got
  got=$(grep -E '^E2E (summary|probes defined=|judge (sites|refused [0-9]|oracle))' "$2" |
    sed 's/ seconds=[0-9.]*//; s/, e\.g\. .*//')
  # The vmlinux definitions come after the module's summary.
  got=$(awk '/^E2E summary/ { s = 1 } s || !/^E2E probes defined=/' <<<"$got")
  e2e_readme_lines "$1" "$3" "$got"
}

# e2e_readme_lines README NAME LINES [SED]: LINES must be the body of
# README's block NAME (between "<!-- e2e-run:NAME -->" and
# "<!-- /e2e-run:NAME -->", in a code block), both compared after the sed
# script SED (what a run does not reproduce). Prints what differs;
# E2E_UPDATE_README=1 writes LINES into the block instead, unless the run
# has failed already.
e2e_readme_lines() {
  local want norm=${4:-}
  want=$(awk -v n="$2" '$0 == "<!-- /e2e-run:" n " -->" { f = 0 } f && !/^```/ { print } $0 == "<!-- e2e-run:" n " -->" { f = 1 }' "$1")
  if [ "${E2E_UPDATE_README:-0}" = 1 ]; then
    # A failed run's lines are not the figures of the code: the block
    # keeps what it has (run.sh's "fail" holds the reasons so far).
    if [ -n "${fail:-}" ]; then
      echo "E2E_UPDATE_README=1: block $2 of $1 not written: the run failed" >&2
      return 0
    fi
    awk -v n="$2" -v body="$3" '
      $0 == "<!-- e2e-run:" n " -->" { print; print "```"; print body; print "```"; skip = 1; next }
      $0 == "<!-- /e2e-run:" n " -->" { skip = 0 }
      !skip' "$1" >"$1.tmp.$$" && mv "$1.tmp.$$" "$1"
    return 0
  fi
  [ -n "$want" ] || { echo "$1 has no block e2e-run:$2"; return 1; }
  [ "$(sed "$norm" <<<"$want")" = "$(sed "$norm" <<<"$3")" ] ||
    { diff <(sed "$norm" <<<"$want") <(sed "$norm" <<<"$3") | sed 's/^/README vs this run: /'; return 1; }
}

# e2e_trace_verdict RESULTS: what is wrong with the guest's "btfinline trace"
# of the test module (e2e/trace.sh trace_module), one line each: a value
# not equal to printk's, an event more or fewer than calls, no value
# matched, an event lost, an exit with an error, a kprobe left behind.
e2e_trace_verdict() {
  local ts k v
  ts=$(grep '^E2E trace summary' "$1" || true)
  if [ -z "$ts" ]; then
    echo "no trace summary"
  else
    for k in mismatched extra missing; do
      v=$(sed -n "s/.* $k=\([0-9]*\).*/\1/p" <<<"$ts")
      [ "$v" = 0 ] || echo "btfinline trace: $k=$v"
    done
    v=$(sed -n 's/.* matched=\([0-9]*\).*/\1/p' <<<"$ts")
    [ "${v:-0}" -gt 0 ] || echo "btfinline trace: no value matched"
  fi
  if grep -E '^E2E trace-stderr [0-9]+ hits, [0-9]+ events, [0-9]+ lost' "$1" | grep -vq ' 0 lost'; then
    echo "btfinline trace lost events"
  fi
  if grep -q '^E2E trace exit [1-9]' "$1"; then echo "btfinline trace exited with an error"; fi
  if grep -qE '^E2E kprobes-left [a-z]+ [1-9]' "$1"; then echo "kprobes left behind after btfinline trace"; fi
  grep -q '^E2E trace-expect overlapping sessions: ' "$1" || echo "no check of two trace sessions at once"
  grep -q '^E2E trace-expect module removed while tracing: ' "$1" || echo "no check of the traced module removed"
  grep -q '^E2E trace-expect hard file limit too low: ' "$1" || echo "no check of a file limit too low"
  return 0
}

# e2e_build_id FILE: the GNU build id of an ELF file.
e2e_build_id() { readelf -n "$1" | awk '/Build ID:/ { print $3; exit }'; }

# e2e_free_port: a TCP port nothing listens on at 127.0.0.1 now.
e2e_free_port() {
  local p
  while :; do
    p=$(shuf -i 20000-60999 -n 1)
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}

# e2e_debuginfod_fill WORK DEB CACHE FILE...: fill btfinline's cache folder
# CACHE for the objects FILE... (vmlinux and modules) as a user's first
# command does on a kernel without inline BTF: elfutils' debuginfod server,
# on 127.0.0.1, indexes the kernel's -dbg package DEB (and the FILEs that
# are in no package, as plain ELF files), and "btfinline cache fetch"
# downloads each by build id through it and encodes them. A second fetch,
# with the server stopped, must be served from the cache. Logs the times;
# fails on any error.
e2e_debuginfod_fill() {
  local w=$1 deb=$2 out=$3 port pid i m ids=() t0 t1 t2 f
  shift 3
  rm -rf "$w" && mkdir -p "$w/debs" "$w/elf" "$w/client"
  ln -f "$deb" "$w/debs/" 2>/dev/null || cp "$deb" "$w/debs/"
  for f in "$@"; do
    ids+=(--build-id "$(e2e_build_id "$f")")
    case $f in *.ko) cp "$f" "$w/elf/" ;; esac
  done
  port=$(e2e_free_port)
  t0=$SECONDS
  debuginfod -p "$port" -d "$w/db.sqlite" -U "$w/debs" -F "$w/elf" -c 1 >"$w/server.log" 2>&1 &
  pid=$!
  # Indexed: both folders' files scanned and no scan pending or running.
  for i in $(seq 900); do
    kill -0 "$pid" 2>/dev/null || { e2e_log "debuginfod exited: $(tail -n 3 "$w/server.log")"; return 1; }
    m=$(curl -sf "http://127.0.0.1:$port/metrics" || true)
    if [ "$(awk '/^scanned_files_total/ { s += $2 } END { print s + 0 }' <<<"$m")" -ge 2 ] &&
       grep -qx 'thread_work_pending{role="scan"} 0' <<<"$m" && grep -qx 'thread_busy{role="scan"} 0' <<<"$m"; then
      break
    fi
    [ "$i" = 900 ] && { e2e_log "debuginfod did not index $deb in 900 s"; kill "$pid"; return 1; }
    sleep 1
  done
  t1=$SECONDS
  if ! DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$w/client" \
       "$BTFINLINE" cache fetch --cache-dir "$out" "${ids[@]}" >"$w/fetch.out" 2>"$w/fetch.err"; then
    e2e_log "btfinline cache fetch failed: $(cat "$w/fetch.err")"; kill "$pid"; return 1
  fi
  t2=$SECONDS
  kill "$pid"; wait "$pid" 2>/dev/null || true
  # The server is gone: the cache alone must answer, with no request.
  if ! DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$w/client" \
       "$BTFINLINE" cache fetch --cache-dir "$out" "${ids[@]}" >"$w/fetch2.out" 2>"$w/fetch2.err" ||
     [ "$(grep -c $'\tcache\t' "$w/fetch2.out")" != "$#" ]; then
    e2e_log "second cache fetch not served from the cache: $(cat "$w/fetch2.out" "$w/fetch2.err")"; return 1
  fi
  e2e_log "debuginfod: indexed $(basename "$deb") in $((t1 - t0)) s; fetched and encoded $# objects in $((t2 - t1)) s; the second fetch came from the cache"
  sed 's/^/  /' "$w/fetch.out" >&2
}
