#!/usr/bin/env bash
# e2e/run.sh: the end-to-end test on a real kernel (see e2e/README.md).
# Boots the Debian 6.1 cloud kernel under qemu (TCG, KASLR on) with an
# initramfs holding busybox, a static btfinline, the test module
# testdata/kmod/btfi_e2e.ko and the inline BTF; inside, kprobes are placed at
# every inline site of the module, their fetched arguments compared with
# the values the module prints, and the kernel asked to accept kprobes at a
# sample of vmlinux's inline sites. Exit status 0 only when every fetched
# argument matched.
#
# Environment:
#   E2E_RESOLVER  btfinline (default) or perf (the DWARF stand-in): e2e/btfinline.sh
#   E2E_STRICT_JUDGE=1  also fail when the kernel refuses a site that
#                 btfinline sites --traceable kept
#   E2E_SAMPLE    judge a 1-in-N sample (by address hash) of vmlinux's inline
#                 sites (default 36: 5,248 distinct addresses)
#   E2E_JUDGE_FUNCS  comma list of functions all of whose sites are judged
#   E2E_TIMEOUT   seconds before qemu is killed (default 900)
#   E2E_REBUILD=1 rebuild the module from source first
#   E2E_SELFTEST=1  corrupt one fetch in the guest: the run must then fail
#   E2E_WORK      work folder (default $BTFI_CACHE/e2e), kept for inspection
set -euo pipefail
start=$SECONDS
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${BTFI_CACHE:-$HOME/.cache/btfinline}
ver=6.1.0-53-cloud-amd64
export E2E_RESOLVER=${E2E_RESOLVER:-btfinline}
sample=${E2E_SAMPLE:-36}
timeout=${E2E_TIMEOUT:-900}
work=${E2E_WORK:-$cache/e2e}
mem=${E2E_MEM:-512M}
# Thirty inlined functions all of whose sites are judged (about 2,600
# sites): page tables, block, net, scheduler, cpumask, atomics, uaccess.
judge_funcs=${E2E_JUDGE_FUNCS:-check_object_size,brelse,pmd_flags,cpumask_empty,arch_atomic_inc_not_zero,bdev_get_queue,is_vm_hugetlb_page,nlmsg_attrdata,serial_in,tnum_is_const,populated_zone,cfs_rq_of,trace_event_name,sg_assign_page,find_next_zero_bit,sysfs_create_file,pmd_bad,user_access_begin,skb_has_frag_list,pci_name,rht_lock,wait_on_buffer,sk_dst_reset,get_cred,native_cpuid,netif_running,task_pid_nr,get_page,kref_get,preempt_count}
# vmlinux functions resolved both on the host and with --running in the
# guest; the kernel then parses every definition (address and fetch args).
vmlinux_funcs="get_cred kref_get task_pid_nr skb_has_frag_list pci_name"
funcs="btfi_add3 btfi_stack btfi_spill btfi_deref btfi_fields btfi_konst btfi_wide btfi_outer btfi_inner"
triggers="5 0x1234 0xfffffff0 123456789"
seed=4242

log() { printf 'e2e: %s\n' "$*" >&2; }
phase() { log "$1 ($((SECONDS - start)) s)"; }

# --- what the host needs ------------------------------------------------------
pkgs=(qemu-system-x86 busybox-static gzip)
[ "$E2E_RESOLVER" = perf ] && pkgs+=(linux-perf)
need=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  { $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${need[@]}"; } >&2
fi

shared=${BTFI_SHARED:-$here/../shared}
kd=$("$shared/tools/kernel-data")
vmlinux=$kd/vmlinux
vmlinuz=$cache/boot-$ver/vmlinuz
if [ ! -f "$vmlinuz" ]; then
  mkdir -p "$cache/debs" "$cache/boot-$ver"
  ( cd "$cache/debs"
    [ -n "$(ls linux-image-$ver-unsigned_*.deb 2>/dev/null)" ] ||
      apt-get -q -o APT::Sandbox::User=root download "linux-image-$ver-unsigned" >&2
    tmp=$(mktemp -d)
    dpkg-deb --fsys-tarfile "$(ls linux-image-$ver-unsigned_*.deb | head -n 1)" |
      tar -x -C "$tmp" "./boot/vmlinuz-$ver"
    mv "$tmp/boot/vmlinuz-$ver" "$vmlinuz"; rm -rf "$tmp" )
fi
ko=$here/testdata/kmod/btfi_e2e.ko
if [ -n "${E2E_REBUILD:-}" ]; then make -C "$here/testdata/kmod" >&2; fi
phase "inputs ready"

# --- the initramfs --------------------------------------------------------------
rm -rf "$work"; mkdir -p "$work/root/bin" "$work/root/e2e" "$work/root/"{proc,sys,dev,tmp}
root=$work/root
cp /bin/busybox "$root/bin/busybox"
( cd "$here" && CGO_ENABLED=0 go build -trimpath -o "$root/bin/e2e-guest" ./e2e/guest &&
  go build -o "$work/sitelist" ./e2e/sitelist )
# The stand-in does not need btfinline: a tree whose btfinline does not
# build yet still gets its boot, module and kprobe checks.
if ! ( cd "$here" && CGO_ENABLED=0 go build -trimpath -o "$root/bin/btfinline" ./cmd/btfinline ); then
  [ "$E2E_RESOLVER" = perf ] || { log "btfinline does not build"; exit 1; }
  log "warning: btfinline does not build; the perf stand-in goes on without it"
fi
cp "$here/e2e/init.sh" "$root/init"
cp "$here/e2e/btfinline.sh" "$ko" "$root/e2e/"
# shellcheck source=e2e/btfinline.sh
. "$here/e2e/btfinline.sh"
export BTFINLINE=$root/bin/btfinline
phase "built btfinline and e2e-guest"

case $E2E_RESOLVER in
btfinline)
  btfi_encode_vmlinux "$vmlinux" "$root/e2e/vmlinux.inline"
  btfi_encode_module "$ko" "$vmlinux" "$root/e2e/btfi_e2e.inline"
  phase "encoded .BTF.inline"
  btfi_resolve_file btfi_initfn "$ko" "$root/e2e/btfi_e2e.inline" "$vmlinux" >"$root/e2e/init-probes.txt"
  for f in $vmlinux_funcs; do btfi_resolve_vmlinux "$f" "$root/e2e/vmlinux.inline" "$vmlinux"; done >"$root/e2e/vmlinux-resolve.txt"
  : >"$root/e2e/probes.txt"
  # The kernel judges the union of btfinline's traceable sites and all
  # DWARF sites under one selection (address hash, function list), so
  # that both of btfinline's errors show: sites it keeps that the kernel
  # refuses, and sites it drops that the kernel accepts.
  btfi_sites_traceable "$vmlinux" "$root/e2e/vmlinux.inline" >"$work/all-traceable.txt"
  "$work/sitelist" -sample "$sample" -funcs "$judge_funcs" -list "$work/all-traceable.txt" >"$root/e2e/traceable.txt"
  "$work/sitelist" -sample "$sample" -funcs "$judge_funcs" "$vmlinux" >"$work/dwarf-sites.txt"
  sort -s -k1,1 -u "$root/e2e/traceable.txt" "$work/dwarf-sites.txt" >"$root/e2e/sites.txt"
  ;;
perf)
  btfi_perf_resolve btfi_initfn "$ko" "$vmlinux" >"$root/e2e/init-probes.txt"
  : >"$root/e2e/probes.txt"
  for f in $funcs; do btfi_perf_resolve "$f" "$ko" "$vmlinux" >>"$root/e2e/probes.txt"; done
  "$work/sitelist" -sample "$sample" -funcs "$judge_funcs" "$vmlinux" | sort -s -k1,1 -u >"$root/e2e/sites.txt"
  ;;
*) log "E2E_RESOLVER must be perf or btfinline"; exit 2 ;;
esac
# Every inline site of the test functions must be probed: count them in
# the module's DWARF, independently of the resolver.
expect=$("$work/sitelist" "$ko" | awk -v fs="$funcs btfi_initfn" '
  BEGIN { n = split(fs, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
  want[$4] { c++ } END { print c + 0 }')
nsample=$("$work/sitelist" -sample "$sample" -list "$root/e2e/sites.txt" | wc -l)
nfuncs=$("$work/sitelist" -sample 1000000000 -funcs "$judge_funcs" -list "$root/e2e/sites.txt" | wc -l)
log "judge: $(wc -l <"$root/e2e/sites.txt") addresses = 1-in-$sample sample ($nsample) + all sites of $(tr ',' '\n' <<<"$judge_funcs" | wc -l) functions ($nfuncs), overlapping"
cat >"$root/e2e/env" <<ENV
E2E_RESOLVER=$E2E_RESOLVER
E2E_SEED=$seed
E2E_FUNCS="$funcs"
E2E_VMLINUX_FUNCS="$vmlinux_funcs"
E2E_TRIGGERS="$triggers"
E2E_BATCH=${E2E_BATCH:-256}
E2E_SELFTEST=${E2E_SELFTEST:-0}
BTFINLINE=/bin/btfinline
ENV
log "module probes: $(wc -l <"$root/e2e/init-probes.txt") init + $(wc -l <"$root/e2e/probes.txt"); judge sites: $(wc -l <"$root/e2e/sites.txt")"
( cd "$root" && find . | LC_ALL=C sort | /bin/busybox cpio -o -H newc 2>/dev/null | gzip -1 >"$work/initrd.cpio.gz" )
phase "initramfs $(du -h "$work/initrd.cpio.gz" | cut -f1)"

# --- boot -------------------------------------------------------------------------
boot=$SECONDS
set +e
timeout --foreground -k 10 "$timeout" qemu-system-x86_64 -machine q35,accel=tcg -cpu max -m "$mem" -smp 1 \
  -kernel "$vmlinuz" -initrd "$work/initrd.cpio.gz" -nographic -serial stdio -monitor none -no-reboot \
  -append "console=ttyS0 panic=-1 loglevel=4" </dev/null >"$work/console.log" 2>&1
qrc=$?
set -e
phase "qemu exited with $qrc after $((SECONDS - boot)) s"

# --- verdict ----------------------------------------------------------------------
tr -d '\r' <"$work/console.log" | sed 's/.*E2E-BEGIN/E2E-BEGIN/' |
  sed -n '/^E2E-BEGIN/,/^E2E-END/p' >"$work/results.txt"
grep -E '^E2E (kernel|kaslr|probes|refused|MISMATCH|UNPAIRED|error|summary|judge [^p]|module|boot|resolve)' "$work/results.txt" || true
fail=""
grep -q '^E2E-END' "$work/results.txt" || fail="the guest did not finish (see $work/console.log)"
grep -qE '^E2E (MISMATCH|UNPAIRED|error)' "$work/results.txt" && fail="mismatches or errors"
sum=$(grep '^E2E summary' "$work/results.txt" || true)
if [ -z "$sum" ]; then fail=${fail:-"no summary"}
else
  probed=$(sed -n 's/.*sites probed=\([0-9]*\).*/\1/p' <<<"$sum")
  hitn=$(sed -n 's/.*sites hit=\([0-9]*\).*/\1/p' <<<"$sum")
  matched=$(sed -n 's/.* matched=\([0-9]*\).*/\1/p' <<<"$sum")
  [ "$probed" = "$expect" ] || fail=${fail:-"$probed sites probed, the module has $expect"}
  [ "$probed" = "$hitn" ] || fail=${fail:-"$((probed - hitn)) probed sites never fired"}
  [ "${matched:-0}" -gt 0 ] || fail=${fail:-"no argument matched"}
fi
if [ -n "${E2E_STRICT_JUDGE:-}" ]; then
  fp=$(sed -n 's/^E2E judge oracle traceable=yes kernel=refused: \([0-9]*\).*/\1/p' "$work/results.txt")
  [ "${fp:-0}" = 0 ] || fail=${fail:-"the kernel refused $fp sites btfinline called traceable"}
fi
log "total wall time $((SECONDS - start)) s (boot to poweroff $((SECONDS - boot)) s)"
if [ -n "$fail" ]; then log "FAIL: $fail"; exit 1; fi
log "PASS"
