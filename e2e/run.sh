#!/usr/bin/env bash
# e2e/run.sh: the end-to-end test on a real kernel (see e2e/README.md).
# Boots the Debian 6.1 cloud kernel (x86-64, or arm64 with E2E_ARCH=arm64)
# under qemu (TCG, KASLR on) with an initramfs holding busybox, a static
# btfinline, the test module e2e/kmod/btfi_e2e.ko (btfi_e2e.arm64.ko)
# and the inline BTF; inside, kprobes are placed at
# every inline site of the module, their fetched arguments compared with
# the values the module prints, and the kernel asked to accept kprobes at a
# sample of vmlinux's inline sites. Exit status 0 only when every fetched
# argument matched.
#
# Environment:
#   E2E_ARCH      x86_64 (default) or arm64: the kernel, module, guest
#                 programs and qemu of that architecture
#   E2E_KERNEL    6.1 (default) or 6.12: Debian 13's kernel (x86_64 from
#                 ../shared/tools/kernel-data trixie, arm64 from
#                 scripts/kernel-data-arm64 6.12), the module built for it
#                 with its gcc 14 by e2e/kmod's btfi_e2e.6.12.ko
#                 (btfi_e2e.arm64.6.12.ko)
#   E2E_RESOLVER  btfinline (default) or perf (the DWARF stand-in): e2e/btfinline.sh
#   E2E_STRICT_JUDGE=0  do not fail when the kernel refuses a site that
#                 btfinline sites --traceable kept (the default fails)
#   E2E_SAMPLE    judge a 1-in-N sample (by address hash) of vmlinux's inline
#                 sites (default 36: 5,248 distinct addresses on x86-64)
#   E2E_JUDGE_FUNCS  comma list of functions all of whose sites are judged
#                 ("none": none)
#   E2E_TIMEOUT   seconds before qemu is killed (default 1800)
#   E2E_REBUILD=1 rebuild the module from source first
#   E2E_SELFTEST=1  corrupt one fetch in the guest: the run must then fail
#                 (2: drop one argument; 3: an empty traceable list; 4: leave
#                 the sysctl, a BPF map and a kprobe behind after three of
#                 the trace kills)
#   E2E_TRACE     1 (default): the btfinline trace checks; 0: none; faults:
#                 only the kills; hot: only the attach of a hot function's
#                 places (quick; the run then fails for the rest)
#   E2E_FAULTS    x86-64: SIGKILLs of btfinline trace (default 21 on 6.1,
#                 6 on 6.12; 0: none) over E2E_FAULTS_FUNC's places
#                 (default i_size_read, ~120)
#   E2E_WORK      work folder (default $BTFI_CACHE/e2e), kept for inspection
#   E2E_PREPARE=1 only install, fetch and build what the run needs
set -euo pipefail
start=$SECONDS
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${BTFI_CACHE:-$HOME/.cache/btfinline}
arch=${E2E_ARCH:-x86_64}
shared=${BTFI_SHARED:-$here/../shared}
# shellcheck source=e2e/lib.sh
. "$here/e2e/lib.sh"
export E2E_RESOLVER=${E2E_RESOLVER:-btfinline}
sample=${E2E_SAMPLE:-36}
timeout=${E2E_TIMEOUT:-1800}
# 1G: btfinline sites --running holds a kernel's 300,000-400,000 sites
# (200-250 MB), beside the initramfs in RAM; 512M was killed on 6.12.
mem=${E2E_MEM:-1G}
# Inlined functions all of whose sites are judged, common to both: block,
# net, scheduler, cpumask, atomics, refcounts (about 2,300 sites).
common_funcs=check_object_size,brelse,cpumask_empty,arch_atomic_inc_not_zero,bdev_get_queue,is_vm_hugetlb_page,nlmsg_attrdata,serial_in,tnum_is_const,populated_zone,cfs_rq_of,trace_event_name,sg_assign_page,find_next_zero_bit,sysfs_create_file,skb_has_frag_list,pci_name,rht_lock,wait_on_buffer,sk_dst_reset,get_cred,netif_running,task_pid_nr,get_page,kref_get,preempt_count
kernel=${E2E_KERNEL:-6.1}
# build_612 KO: the test module of a 6.12 kernel, built for the point
# release the kernel-data folder holds ($ver): make rebuilds it when its
# source changed, and a module left from an older release (another
# vermagic) is built again.
build_612() {
  make -C "$here/e2e/kmod" "$1" >&2
  [ "$(e2e_vermagic "$here/e2e/kmod/$1")" = "$ver" ] || make -B -C "$here/e2e/kmod" "$1" >&2
}
# The kills of btfinline trace: 21 on 6.1 (the figures of e2e/README.md),
# 6 on 6.12, whose run starts among the last in make test (scripts/e2e-all) and so
# bounds its time: the same code, two kills in each phase.
faults=${E2E_FAULTS:-21}
[ "$kernel" = 6.12 ] && faults=${E2E_FAULTS:-6}
case $arch-$kernel in
x86_64-6.12 | amd64-6.12)
  arch=x86_64 goarch=amd64
  kd=$("$shared/tools/kernel-data" trixie)
  ver=$(e2e_release "$kd")
  # Built for whichever point release the folder holds, never checked in.
  build_612 btfi_e2e.6.12.ko
  ko=$here/e2e/kmod/btfi_e2e.6.12.ko
  work=${E2E_WORK:-$cache/e2e-6.12}
  judge_funcs=${E2E_JUDGE_FUNCS:-$common_funcs,pmd_flags,pmd_bad,user_access_begin,native_cpuid}
  qemu_pkg="qemu-system-x86"
  qemu=(qemu-system-x86_64 -machine "q35,accel=tcg" -cpu max)
  console=ttyS0
  text_sym=_text
  ;;
x86_64-6.1 | amd64-6.1)
  arch=x86_64 ver=6.1.0-53-cloud-amd64 goarch=amd64
  kd=$("$shared/tools/kernel-data")
  ko=$here/e2e/kmod/btfi_e2e.ko
  work=${E2E_WORK:-$cache/e2e}
  # Page tables, uaccess and cpuid on top (thirty functions, ~2,600 sites).
  judge_funcs=${E2E_JUDGE_FUNCS:-$common_funcs,pmd_flags,pmd_bad,user_access_begin,native_cpuid}
  qemu_pkg="qemu-system-x86"
  qemu=(qemu-system-x86_64 -machine "q35,accel=tcg" -cpu max)
  console=ttyS0
  text_sym=_text
  ;;
arm64-6.1 | aarch64-6.1 | arm64-6.12 | aarch64-6.12)
  arch=arm64 goarch=arm64
  if [ "$kernel" = 6.12 ]; then
    kd=$("$here/scripts/kernel-data-arm64" 6.12)
    ver=$(e2e_release "$kd")
    build_612 btfi_e2e.arm64.6.12.ko
    ko=$here/e2e/kmod/btfi_e2e.arm64.6.12.ko
    work=${E2E_WORK:-$cache/e2e-arm64-6.12}
  else
    ver=6.1.0-53-cloud-arm64
    kd=$("$here/scripts/kernel-data-arm64")
    ko=$here/e2e/kmod/btfi_e2e.arm64.ko
    work=${E2E_WORK:-$cache/e2e-arm64}
  fi
  # On top: LL/SC exclusive sequences, DAIF masking, system registers,
  # TLB maintenance and the KVM hyp code (.hyp.text).
  judge_funcs=${E2E_JUDGE_FUNCS:-$common_funcs,__ll_sc__cmpxchg_case_64,local_daif_mask,read_cpuid_id,system_supports_address_auth,__tlbi_sync_s1ish,__hyp_my_cpu_offset,__kern_hyp_va,kvm_vcpu_get_esr}
  qemu_pkg="qemu-system-arm"
  # pauth-impdef: the kernel signs return addresses (pac-ret); qemu's
  # architected QARMA is far slower under TCG than its own hash.
  qemu=(qemu-system-aarch64 -machine "virt,accel=tcg" -cpu "max,pauth-impdef=on")
  console=ttyAMA0
  # /proc/kallsyms has no _text on arm64 (it starts at _stext, 64K on).
  text_sym=_stext
  # Parameters the module's DWARF gives no location at their site (gcc
  # computes them straight into printk's argument registers): "sites
  # --dwarf" prints them [unavailable], and no probe fetches them. gcc 14
  # locates every parameter of btfi_frame, and not btfi_spill's b.
  # The task_pid_nr places in nvhe_hyp_panic_handler, whose address
  # kallsyms also names __kvm_nvhe_nvhe_hyp_panic_handler (the nVHE hyp
  # alias): resolve --running leaves them out (the check below).
  if [ "$kernel" = 6.12 ]; then
    arm64_unchecked="btfi_spill:b btfi_spill:f"
    arm64_files_only="nvhe_hyp_panic_handler+0x118 nvhe_hyp_panic_handler+0x140 nvhe_hyp_panic_handler+0x170 nvhe_hyp_panic_handler+0x90 nvhe_hyp_panic_handler+0xfc"
  else
    arm64_unchecked="btfi_spill:f btfi_frame:a btfi_frame:b btfi_frame:f btfi_frame:g btfi_frame:h btfi_frame:j btfi_frame:m btfi_frame:n btfi_frame:p"
    arm64_files_only="nvhe_hyp_panic_handler+0x118 nvhe_hyp_panic_handler+0x140 nvhe_hyp_panic_handler+0x164 nvhe_hyp_panic_handler+0x90 nvhe_hyp_panic_handler+0xf8"
  fi
  ;;
*) printf 'e2e: E2E_ARCH must be x86_64 or arm64 and E2E_KERNEL 6.1 or 6.12\n' >&2; exit 2 ;;
esac
# 10,000 places and more at once, in functions of code the guest does not
# run (ext4, zstd, networking, KVM): on arm64 6.12 only, for detaching
# them takes minutes under TCG and one kernel shows the file limit.
many_funcs=""
[ "$arch/$kernel" = arm64/6.12 ] && many_funcs="EXT4_SB MEM_readST MEM_read32 MEM_read16 MEM_readLE64 ZSTD_NbCommonBytes read_pnet sock_net skb_end_pointer skb_network_header skb_tail_pointer nla_put_u32 ___ctxt_sys_reg vcpu_has_nv"
many_funcs=${E2E_MANY_FUNCS-$many_funcs}
# vmlinux functions resolved both on the host and with --running in the
# guest; the kernel then parses every definition (address and fetch args).
vmlinux_funcs="get_cred kref_get task_pid_nr skb_has_frag_list pci_name"
funcs=$e2e_module_funcs
triggers=$e2e_triggers
seed=$e2e_seed

log() { e2e_log "$@"; }
phase() { log "$1 ($((SECONDS - start)) s)"; }

# --- what the host needs ------------------------------------------------------
pkgs=("$qemu_pkg" busybox-static gzip)
[ "$E2E_RESOLVER" = perf ] && pkgs+=(linux-perf)
e2e_need_pkgs "${pkgs[@]}"

vmlinux=$kd/vmlinux
# fetch_deb PACKAGE: its .deb in $cache/debs. The host's apt is amd64-only,
# so arm64 packages are fetched by URL from the pool (as
# scripts/kernel-data-arm64 does).
fetch_deb() {
  ( cd "$cache/debs"
    case $1 in
    linux-image-*-arm64-unsigned) "$here/scripts/fetch-pool" "${1}_$(cat "$kd/version")_arm64.deb" ;;
    busybox-static) "$here/scripts/fetch-pool" "${1}_1.35.0-4+deb12u1+b1_arm64.deb" b/busybox ;;
    *) [ -n "$(ls "$1"_*.deb 2>/dev/null)" ] ||
         apt-get -q -o APT::Sandbox::User=root download "$1" >&2 ;;
    esac )
}
# deb_file GLOB PATH OUT: unpack one file of the cached .deb GLOB.deb.
deb_file() {
  tmp=$(mktemp -d)
  dpkg-deb --fsys-tarfile "$(ls "$cache/debs/"$1.deb | head -n 1)" | tar -x -C "$tmp" "$2"
  mv "$tmp/$2" "$3"; rm -rf "$tmp"
}
mkdir -p "$cache/debs" "$cache/boot-$ver"
vmlinuz=$cache/boot-$ver/vmlinuz
[ -f "$kd/vmlinuz" ] && vmlinuz=$kd/vmlinuz # in the kernel-data folder (6.12 x86-64)
if [ ! -f "$vmlinuz" ]; then
  fetch_deb "linux-image-$ver-unsigned"
  deb_file "linux-image-$ver-unsigned_*" "./boot/vmlinuz-$ver" "$vmlinuz"
fi
busybox=/bin/busybox
if [ "$arch" = arm64 ]; then
  busybox=$cache/boot-$ver/busybox
  if [ ! -f "$busybox" ]; then
    fetch_deb busybox-static
    deb_file "busybox-static_*_arm64" ./bin/busybox "$busybox"
  fi
fi
if [ -n "${E2E_REBUILD:-}" ]; then make -C "$here/e2e/kmod" "$(basename "$ko")" >&2; fi
# The link-time address of $text_sym, which the guest's judge moves by
# KASLR's offset.
link_text=$(nm "$vmlinux" | awk -v s="$text_sym" '$3 == s { t = $1 } END { print t }')
# x86-64: Debian's perf in the guest (the host's), which runs resolve's
# --format perf lines of every module function and prints the values
# the run compares with printk (trace_perf_values); E2E_PEER_PERF=0 leaves it out.
peer_perf=0
if [ "$arch" = x86_64 ] && [ "$E2E_RESOLVER" = btfinline ] && [ "${E2E_TRACE:-1}" = 1 ] && [ "${E2E_PEER_PERF:-1}" != 0 ]; then
  peer_perf=1
  command -v perf >/dev/null || e2e_need_pkgs linux-perf
fi
# x86-64: Debian's bpftrace in the guest too (the host's), which runs
# resolve's --format bpftrace lines of every module function, its values
# compared with printk as perf's are (trace_bpftrace_values). With LLVM
# it is 250 MB: it comes on a disk of its own (ext4 on an NVMe drive,
# which both kernels have built in), read as needed, not in the
# initramfs the guest holds in RAM. E2E_PEER_BPFTRACE=0 leaves it out.
peer_bpftrace=0
if [ "$peer_perf" = 1 ] && [ "${E2E_PEER_BPFTRACE:-1}" != 0 ]; then
  peer_bpftrace=1
  e2e_need_pkgs bpftrace e2fsprogs
fi
# btfinline's commands read the guest's cache, filled through a local
# debuginfod server (below), which reads the -dbg .deb with
# libarchive-tools' bsdtar: without it, it indexes nothing and answers 404.
# Installed here, where scripts/e2e-all prepares the runs one at a time:
# two runs' apt-get at once fail on dpkg's lock.
[ "$E2E_RESOLVER" = btfinline ] && e2e_need_pkgs debuginfod curl libarchive-tools
phase "inputs ready"
# E2E_PREPARE=1: stop here, with the packages, downloads and module in
# place (scripts/e2e-all prepares the runs one by one, then boots them two
# at a time).
[ "${E2E_PREPARE:-0}" = 1 ] && exit 0

# --- the initramfs --------------------------------------------------------------
rm -rf "$work"; mkdir -p "$work/root/bin" "$work/root/e2e" "$work/root/"{proc,sys,dev,tmp}
root=$work/root
cp "$busybox" "$root/bin/busybox"
e2e_go_static "$goarch" "$root/bin/e2e-guest" ./e2e/guest
e2e_go_static "$goarch" "$root/bin/sitecount" ./examples/sitecount
( cd "$here" && go build -o "$work/sitelist" ./e2e/sitelist )
# The stand-in does not need btfinline: a tree whose btfinline does not
# build yet still gets its boot, module and kprobe checks.
if ! e2e_go_static "$goarch" "$root/bin/btfinline" ./cmd/btfinline; then
  [ "$E2E_RESOLVER" = perf ] || { log "btfinline does not build"; exit 1; }
  log "warning: btfinline does not build; the perf stand-in goes on without it"
fi
# guest_bin BIN [DIR]: a host binary in the guest (DIR/bin, DIR the
# initramfs by default), with the libraries it links at their paths.
guest_bin() {
  local d=${2:-$root}
  mkdir -p "$d/bin"
  cp "$1" "$d/bin/"
  ldd "$1" | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }' | while read -r l; do
    [ -f "$l" ] && mkdir -p "$d$(dirname "$l")" && cp -Ln "$l" "$d$l"
  done
}
[ "$peer_perf" = 1 ] && guest_bin "$(command -v perf)"
if [ "$peer_bpftrace" = 1 ]; then
  guest_bin "$(command -v bpftrace)" "$work/peers"
  mke2fs -q -t ext4 -L peers -d "$work/peers" "$work/peers.img" "$(($(du -sm "$work/peers" | cut -f1) * 5 / 4 + 16))M"
  rm -rf "$work/peers"
  qemu+=(-drive "file=$work/peers.img,if=none,id=peers,format=raw" -device "nvme,drive=peers,serial=peers")
fi
# E2E_PEERS=1 (x86-64): Debian's bpftrace in the guest too, to run
# resolve's --format bpftrace lines (and perf's by hand: trace_peers).
if [ "${E2E_PEERS:-0}" = 1 ]; then
  [ "$arch" = x86_64 ] || { log "E2E_PEERS=1 needs the host's binaries: x86-64 only"; exit 2; }
  command -v bpftrace >/dev/null || { sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo; $sudo apt-get install -y -q bpftrace >&2; }
  for b in /usr/bin/perf /usr/bin/bpftrace; do
    guest_bin "$b"
  done
  # 250 MB unpacked from the initramfs: 512M fails now and then
  # ("Initramfs unpacking failed: write error").
  mem=${E2E_MEM:-1G}
fi
cp "$here/e2e/init.sh" "$root/init"
cp "$here/e2e/btfinline.sh" "$here/e2e/guest.sh" "$here/e2e/trace.sh" "$root/e2e/"
# resolve names a module after its file: btfi_e2e, whatever the arch.
cp "$ko" "$root/e2e/btfi_e2e.ko"
ko=$root/e2e/btfi_e2e.ko
# shellcheck source=e2e/btfinline.sh
. "$here/e2e/btfinline.sh"
export BTFINLINE=$root/bin/btfinline
# The host side needs a host build when the guest is another architecture.
if [ "$goarch" != "$(go env GOHOSTARCH)" ] && [ -f "$BTFINLINE" ]; then
  BTFINLINE=$work/btfinline
  ( cd "$here" && go build -trimpath -o "$BTFINLINE" ./cmd/btfinline )
fi
phase "built btfinline and e2e-guest"

case $E2E_RESOLVER in
btfinline)
  btfi_encode_vmlinux "$vmlinux" "$root/e2e/vmlinux.inline"
  btfi_encode_module "$ko" "$vmlinux" "$root/e2e/btfi_e2e.inline"
  phase "encoded .BTF.inline"
  # The guest kernel serves no .inline, as Debian ships it: its commands
  # without --inline read the cache (XDG_CACHE_HOME=/e2e/xdg), filled by
  # build id through a local debuginfod server; it must hold the bytes
  # encode wrote (its packages come before "inputs ready").
  e2e_debuginfod_fill "$work/debuginfod" "$(ls "$cache/debs/linux-image-$ver-dbg_"*.deb | head -n 1)" "$root/e2e/xdg/btfinline" "$vmlinux" "$ko"
  for o in vmlinux:"$vmlinux" btfi_e2e:"$ko"; do
    cmp "$root/e2e/xdg/btfinline/$(e2e_build_id "${o#*:}")/${o%%:*}.inline" "$root/e2e/${o%%:*}.inline" ||
      { log "the cached ${o%%:*}.inline is not what encode wrote"; exit 1; }
  done
  cp /etc/os-release "$root/e2e/os-release"
  phase "cache filled through debuginfod"
  btfi_resolve_file btfi_initfn "$ko" "$root/e2e/btfi_e2e.inline" "$vmlinux" >"$root/e2e/init-probes.txt"
  for f in $vmlinux_funcs; do btfi_resolve_vmlinux "$f" "$root/e2e/vmlinux.inline" "$vmlinux"; done >"$root/e2e/vmlinux-resolve.txt"
  : >"$root/e2e/probes.txt"
  # The kernel judges the union of btfinline's traceable sites and all
  # DWARF sites under one selection (address hash, function list), so
  # that both of btfinline's errors show: sites it keeps that the kernel
  # refuses, and sites it drops that the kernel accepts.
  btfi_sites_traceable "$vmlinux" "$root/e2e/vmlinux.inline" >"$work/all-traceable.txt"
  "$work/sitelist" -sample "$sample" -funcs "$judge_funcs" -list "$work/all-traceable.txt" >"$root/e2e/traceable.txt"
  # E2E_SELFTEST=3: an empty traceable list, which the judge must not
  # take for a pass.
  [ "${E2E_SELFTEST:-0}" = 3 ] && : >"$root/e2e/traceable.txt"
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
E2E_TEXT_SYM=$text_sym
E2E_LINK_TEXT=$link_text
E2E_SELFTEST=${E2E_SELFTEST:-0}
E2E_TRACE=${E2E_TRACE:-1}
E2E_LOOP=${E2E_LOOP:-20000}
E2E_HOT=${E2E_HOT:-__list_del_entry}
E2E_KEEP_OPT=${E2E_KEEP_OPT:-0}
E2E_HOT_EVENTS=${E2E_HOT_EVENTS:-0}
E2E_PROFILE_ATTACH=${E2E_PROFILE_ATTACH:-0}
E2E_PEERS=${E2E_PEERS:-0}
E2E_PEER_BPFTRACE=$peer_bpftrace
E2E_RATE_LOOP=${E2E_RATE_LOOP:-100000}
E2E_FAULTS=$faults
E2E_FAULTS_FUNC=${E2E_FAULTS_FUNC:-i_size_read}
E2E_MANY_FUNCS="$many_funcs"
BTFINLINE=/bin/btfinline
E2E_VMLINUX_BUILDID=$(e2e_build_id "$vmlinux")
E2E_DEB_VERSION=$ver
ENV
log "module probes: $(wc -l <"$root/e2e/init-probes.txt") init + $(wc -l <"$root/e2e/probes.txt"); judge sites: $(wc -l <"$root/e2e/sites.txt")"
e2e_pack "$root" "$work/initrd.cpio.gz"
phase "initramfs $(du -h "$work/initrd.cpio.gz" | cut -f1)"

# --- boot -------------------------------------------------------------------------
boot=$SECONDS
qrc=0
e2e_boot "$timeout" "$mem" "$vmlinuz" "$work/initrd.cpio.gz" "console=$console panic=-1 loglevel=4" \
  "$work/console.log" "${qemu[@]}" || qrc=$?
phase "qemu exited with $qrc after $((SECONDS - boot)) s"

# --- verdict ----------------------------------------------------------------------
e2e_results "$work/console.log" "$work/results.txt"
# Where the guest's time went: each phase's seconds, from its marks.
awk '/^E2E boot seconds/ { printf "boot %.0f s", $4; sep = ", "; prev = "insmod"; at = $4 }
  /^E2E phase / { if (prev != "") printf "%s%s %.0f s", sep, prev, $5 - at; sep = ", "; prev = $3; at = $5 }
  END { if (sep != "") print "" }' "$work/results.txt" | sed 's/^/e2e: guest phases: /'
grep -E '^E2E (kernel|kaslr|lookup|probes|refused|MISMATCH|UNPAIRED|error|summary|judge [^p]|module|boot|resolve|trace [^r]|trace-line|trace-expect|trace-stack|peer|api|trace-stderr [^b]|TRACE|count|COUNT|attach|overhead|rate|hot|kprobes-left|register|faults|flood)' "$work/results.txt" || true
fail=""
# failed REASON: the run fails; every reason is printed at the end.
failed() { fail="${fail:+$fail; }$1"; log "FAIL: $1"; }
# An address immediate resolve --running gives for vmlinux must be the one
# from the files moved by the KASLR slide of $text_sym.
if [ "$E2E_RESOLVER" = btfinline ]; then
  e2e_slide_check "$work/results.txt" "$root/e2e/vmlinux-resolve.txt" "$link_text" ||
    failed "address immediates of resolve --running did not move with KASLR"
  grep -q '^E2E resolve-addr' "$work/results.txt" || failed "resolve --running gave no address immediate: the KASLR check checked nothing"
fi
grep -q '^E2E-END' "$work/results.txt" || failed "the guest did not finish (see $work/console.log)"
# The guest's commands without --inline read the cache the host filled;
# the kernel served no inline BTF of its own.
if [ "$E2E_RESOLVER" = btfinline ]; then
  grep -qx 'E2E lookup kernel-inline=0 cache-entries=2' "$work/results.txt" || failed "the guest's inline BTF did not come from the cache alone"
  grep -qx 'E2E lookup empty-cache error names the package: yes' "$work/results.txt" || failed "no check of the empty cache's error"
  grep -qx 'E2E lookup other-build entry refused: yes' "$work/results.txt" || failed "no check of another build's cache entry"
  grep -qE '^E2E lookup sites-running objects=[0-9]+ lines=[0-9]+ module-lines=[1-9][0-9]* same-as-each=yes ' "$work/results.txt" ||
    failed "sites --running did not list vmlinux and the loaded modules as --module does for each"
  grep -qx 'E2E lookup sites-running missing module named, vmlinux listed: yes' "$work/results.txt" || failed "no check of sites --running with a module's inline BTF missing"
fi
grep -qE '^E2E (MISMATCH|UNPAIRED|error)' "$work/results.txt" && failed "mismatches or errors"
sum=$(grep '^E2E summary' "$work/results.txt" || true)
if [ -z "$sum" ]; then failed "no summary"
else
  probed=$(sed -n 's/.*sites probed=\([0-9]*\).*/\1/p' <<<"$sum")
  hitn=$(sed -n 's/.*sites hit=\([0-9]*\).*/\1/p' <<<"$sum")
  matched=$(sed -n 's/.* matched=\([0-9]*\).*/\1/p' <<<"$sum")
  [ "$probed" = "$expect" ] || failed "$probed sites probed, the module has $expect"
  [ "$probed" = "$hitn" ] || failed "$((probed - hitn)) probed sites never fired"
  [ "${matched:-0}" -gt 0 ] || failed "no argument matched"
fi
# Every parameter the module's DWARF gives a probed function is fetched
# and checked against printk at each probed site of it (a member of a
# struct argument, w_lo for w, counts for it), but those written below
# with their reason.
case "$E2E_RESOLVER/$arch" in
# perf fetches no constants and no struct split over two registers.
perf/*) expect_unchecked="btfi_konst:k btfi_wide:w" ;;
btfinline/arm64) expect_unchecked=${arm64_unchecked:-} ;;
*) expect_unchecked="" ;;
esac
"$work/sitelist" -params -funcs "$(tr ' ' , <<<"$funcs btfi_initfn")" "$ko" >"$work/params.txt" ||
  failed "sitelist -params failed"
unchecked=$(awk -v expect="$expect_unchecked" '
  FNR == NR { for (i = 2; i <= NF; i++) params[$1] = params[$1] " " $i; next }
  $1 == "E2E" && $2 == "probe" { ev = $3; sub(/^p:[^\/]*\//, "", ev); fn = ev; sub(/_[0-9]+$/, "", fn); probed[ev] = fn }
  $1 == "E2E" && $2 == "match" { k = $(NF - 1); sub(/=.*/, "", k); sub(/^\*/, "", k); seen[$3 SUBSEP k] = 1 }
  END {
    n = split(expect, e, " "); for (i = 1; i <= n; i++) ok[e[i]] = 1
    for (ev in probed) {
      fn = probed[ev]; m = split(params[fn], ps, " ")
      if (m == 0) { print "no-dwarf-parameters:" fn; continue }
      for (i = 1; i <= m; i++) {
        total++; hit = 0
        for (key in seen) { split(key, kk, SUBSEP); if (kk[1] == ev && (kk[2] == ps[i] || index(kk[2], ps[i] "_") == 1)) hit = 1 }
        if (hit) checked++
        else if (!((fn ":" ps[i]) in ok)) print ev ":" ps[i]
        else { skipped++; used[fn ":" ps[i]] = 1 }
      }
    }
    for (x in ok) if (!(x in used)) print "expected-but-checked:" x
    printf "E2E parameters dwarf=%d checked=%d expected-unchecked=%d\n", total, checked, skipped > "/dev/stderr"
  }' "$work/params.txt" "$work/results.txt" 2>"$work/params-summary.txt" | sort)
cat "$work/params-summary.txt"
if [ -n "$unchecked" ]; then
  printf 'E2E PARAMETER %s\n' $unchecked
  failed "parameters of probed sites not checked: $(tr '\n' ' ' <<<"$unchecked")"
fi
grep -q '^E2E parameters dwarf=[1-9]' "$work/params-summary.txt" || failed "no parameter counted"
# resolve --running: the module's lines the files' but for frame-base
# arguments; vmlinux's the same, without frame-base arguments, or only
# from --running (a rule that needs the ELF), none bad, none equal is a
# failure too; the kernel registers every definition but those only
# --running gave.
if [ "$E2E_RESOLVER" = btfinline ]; then
  n=$(sed -n 's/^E2E resolve --running module: \([0-9]*\) lines differ.*/\1/p' "$work/results.txt")
  [ "$n" = 0 ] || failed "resolve --running module: ${n:-no comparison} lines differ from the files"
  rc_line=$(grep '^E2E resolve-check vmlinux:' "$work/results.txt" || true)
  case $rc_line in
  "") failed "no resolve --running vmlinux comparison" ;;
  *", 0 bad") ;;
  *) failed "resolve --running vmlinux differs from the files: $rc_line" ;;
  esac
  case $rc_line in "E2E resolve-check vmlinux: 0 the same,"*) failed "resolve --running vmlinux: no line equal to the files'" ;; esac
  # Places only the files give: none, but on arm64 the five task_pid_nr
  # places of the nVHE hyp alias (arm64_files_only above).
  want_files_only=${arm64_files_only:-}
  files_only=$(sed -n 's/^E2E resolve-only files: p:[^ ]* \([^ ]*\).*/\1/p' "$work/results.txt" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
  [ "$files_only" = "$want_files_only" ] || failed "resolve --running vmlinux: places only the files give: '$files_only', expected '$want_files_only'"
  not_only=$(awk '/^E2E resolve-only running: / { only[$4] = 1 }
    /^E2E resolve-check vmlinux:/ { f = 1 }
    f && /^E2E refused p:/ { if (!($3 in only)) print $3 }
    f && /^E2E probes defined=/ { exit }' "$work/results.txt")
  [ -z "$not_only" ] || failed "the kernel refused vmlinux probes resolve gives from the files too: $(tr '\n' ' ' <<<"$not_only")"
fi
# btfinline trace: every value equal to printk, one event per call, no
# event lost, per-place counts equal to kprobe_profile's, no kprobe left.
# Killed at random moments, it leaves nothing behind (x86-64: the sysctl
# it pauses exists there only); an "E2E error faults" line fails the run
# above.
if [ "$E2E_RESOLVER" = btfinline ] && [ "${E2E_TRACE:-1}" != 0 ] && [ "$arch" = x86_64 ] && [ "$faults" != 0 ]; then
  fs=$(grep '^E2E faults summary' "$work/results.txt" || true)
  [ -n "$fs" ] || failed "no faults summary"
  [ "$(sed -n 's/.* kills=\([0-9]*\).*/\1/p' <<<"$fs")" = "$faults" ] || failed "btfinline trace was not killed $faults times: $fs"
  [ "$(sed -n 's/.* left-behind=\([0-9]*\).*/\1/p' <<<"$fs")" = 0 ] || failed "btfinline trace killed left state behind"
fi
if [ "$E2E_RESOLVER" = btfinline ] && [ "${E2E_TRACE:-1}" != 0 ] && [ "${E2E_TRACE:-1}" != faults ]; then
  while read -r m; do failed "$m"; done < <(e2e_trace_verdict "$work/results.txt")
  grep -q '^E2E trace-expect api example: last values: ' "$work/results.txt" || failed "no check of the API example (examples/sitecount)"
  grep -q '^E2E trace-expect follow-modules: ' "$work/results.txt" || failed "no check of trace --follow-modules"
  grep -q '^E2E trace-expect attach within 1.25 times kprobe_events: ' "$work/results.txt" || failed "no comparison of the attach with kprobe_events"
  grep -q '^E2E trace-expect attach round 2 within 3 context switches a place and 250 a second: ' "$work/results.txt" || failed "no count of the attach's context switches"
  [ -z "$many_funcs" ] || grep -q '^E2E trace-expect 10,000 places at once: ' "$work/results.txt" || failed "no check of 10,000 places at once"
  # The figures of README's trace table that a run reproduces exactly.
  # shellcheck source=e2e/trace.sh
  . "$here/e2e/trace.sh"
  # (the table's columns are the 6.1 runs; 6.12 is checked, not shown)
  if [ "$kernel" = 6.1 ]; then
    rm_col=3; [ "$arch" = arm64 ] && rm_col=4
    rm_err=$(trace_readme "$here/README.md" "$work/results.txt" $rm_col)
    [ -z "$rm_err" ] || { printf '%s\n' "$rm_err"; failed "README's btfinline trace figures are not this run's"; }
  fi
  if [ "$arch" = x86_64 ]; then
    grep -q '^E2E trace-expect flood: ' "$work/results.txt" || failed "no event flood check"
  fi
  cs=$(grep '^E2E count summary' "$work/results.txt" || true)
  if [ -z "$cs" ]; then failed "no count comparison"
  else
    [ "$(sed -n 's/.* differ=\([0-9]*\).*/\1/p' <<<"$cs")" = 0 ] || failed "per-place counts differ from kprobe_profile"
    [ "$(sed -n 's/.* hit=\([0-9]*\).*/\1/p' <<<"$cs")" -gt 0 ] || failed "no place of the hot function was hit"
  fi
fi
# The peers' values (trace_perf_values, trace_bpftrace_values): every
# line taken, every module place hit, every value the tool printed equal
# to the printk truth, none unpaired, no kprobe left.
peer_values() {
  local t=$1 l s n
  l=$(grep "^E2E peer $t lines=" "$work/results.txt" || true)
  s=$(grep "^E2E peer $t summary " "$work/results.txt" || true)
  if [ -z "$l" ] || [ -z "$s" ]; then failed "no $t value check"
  else
    n=$(sed -n 's/.* lines=\([0-9]*\).*/\1/p' <<<"$l")
    [ "${n:-0}" -gt 0 ] && [ "$(sed -n 's/.* refused=\([0-9]*\).*/\1/p' <<<"$l")" = 0 ] || failed "$t refused lines: $l"
    pv() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$s"; }
    [ "$(pv mismatched)" = 0 ] && [ "$(pv unpaired)" = 0 ] || failed "$t's values differ from printk: $s"
    [ "$(pv matched)" -gt 0 ] && [ "$(pv matched)" = "$(pv checked)" ] || failed "$t matched $(pv matched) of $(pv checked) values: $s"
    [ "$(pv probed)" = "$n" ] || failed "$t defined other probes than its lines: $s"
    [ "$(pv hit)" = "$n" ] || failed "a place $t defined was not hit: $s"
  fi
  grep -q "^E2E kprobes-left peer-$t 0\$" "$work/results.txt" || failed "$t left kprobes behind"
}
if [ "$peer_perf" = 1 ]; then peer_values perf; fi
if [ "$peer_bpftrace" = 1 ]; then peer_values bpftrace; fi
# The judge: every listed site judged, at least half of them accepted
# where btfinline said traceable, a verdict line for each pairing, no
# refusal called traceable, none that nothing explains.
nlisted=$(wc -l <"$root/e2e/sites.txt")
[ "$nlisted" -ge 5000 ] || failed "only $nlisted sites for the judge"
jsites=$(sed -n 's/^E2E judge sites=\([0-9]*\).*/\1/p' "$work/results.txt")
unexplained=$(sed -n 's/^E2E judge sites=.* unexplained=\([0-9]*\).*/\1/p' "$work/results.txt")
[ "$jsites" = "$nlisted" ] || failed "the judge judged ${jsites:-no} sites of $nlisted"
[ "$unexplained" = 0 ] || failed "the kernel refused ${unexplained:-?} sites that nothing explains"
if [ -f "$root/e2e/traceable.txt" ]; then
  verdict() { sed -n "s/^E2E judge oracle traceable=$1 kernel=$2: \([0-9]*\).*/\1/p" "$work/results.txt"; }
  yes_acc=$(verdict yes accepted) yes_ref=$(verdict yes refused) no_acc=$(verdict no accepted) no_ref=$(verdict no refused)
  [ -n "$yes_acc" ] && [ -n "$yes_ref" ] && [ -n "$no_acc" ] && [ -n "$no_ref" ] || failed "the judge printed no verdict"
  [ "${yes_acc:-0}" -ge $((nlisted / 2)) ] || failed "only ${yes_acc:-0} of $nlisted sites traceable and accepted"
  if [ "${E2E_STRICT_JUDGE:-1}" != 0 ]; then
    [ "${yes_ref:-0}" = 0 ] || failed "the kernel refused $yes_ref sites btfinline called traceable"
  fi
fi
# README.md shows one whole run of the 6.1 x86-64 check (its stable
# lines), e2e/README.md that of each other kernel: a run fails when its
# lines are not the block's. A 6.12 package the archive replaced (its
# version is not the one of docs/figures) is not compared.
if [ "$E2E_RESOLVER" = btfinline ] && [ "$sample" = 36 ] && [ -z "${E2E_JUDGE_FUNCS:-}" ]; then
  doc=$here/e2e/README.md
  [ "$arch/$kernel" = x86_64/6.1 ] && doc=$here/README.md
  built=$(cat "$kd/version") pinned=$(cat "$here/docs/figures/$kernel-$arch/version")
  if [ "$built" = "$pinned" ]; then
    rb=$(e2e_readme_block "$doc" "$work/results.txt" "$kernel-$arch") || {
      printf '%s\n' "$rb"; failed "${doc#"$here"/}'s e2e block $kernel-$arch is not this run's (E2E_UPDATE_README=1 writes it)"; }
    # docs/trace.md's attach table: this run's attach of every place of
    # the hot function against kprobe_events' define and enable in the
    # same boot. The seconds are the run's that wrote the block; the
    # places and the verdict are compared.
    al=$(grep -E '^E2E (attach btfinline round|attach hits-attaching|attach kprobe_events round|attach best|trace-expect attach within)' "$work/results.txt" |
      sed 's/ start-to-attached=[0-9.]*//; s/ stop-to-exit=[0-9.]*//')
    ab=$(e2e_readme_lines "$here/docs/trace.md" "attach-$kernel-$arch" "$al" 's/\(attach\|attached-last\|define\|enable\|disable\|remove\|ratio\|btfinline\|kprobe_events\|switches\|total\|places-hit\|most\)=[0-9.]*/\1=S/g; s/ at=.*/ at=P/') || {
      printf '%s\n' "$ab"; failed "docs/trace.md's attach block attach-$kernel-$arch is not this run's (E2E_UPDATE_README=1 writes it)"; }
  else
    log "verdict lines not compared with ${doc#"$here"/}: the kernel is $built, the figures' $pinned"
  fi
fi
log "total wall time $((SECONDS - start)) s (boot to poweroff $((SECONDS - boot)) s)"
if [ -n "$fail" ]; then log "FAIL: $fail"; exit 1; fi
log "PASS"
