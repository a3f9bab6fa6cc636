# e2e/btfinline.sh: every btfinline command line the end-to-end test runs,
# and their stand-ins, in one place. Sourced by e2e/run.sh on the host and
# by /init in the guest (busybox sh: keep it POSIX).
#
# E2E_RESOLVER selects who computes the kprobe definitions:
#   btfinline  btfinline encode / resolve / sites (the product)
#   perf       perf probe -D from DWARF on the host, e2e/sitelist for the
#              site list: the stand-in used until btfinline resolve exists
#
# Every resolver function prints kprobe_events lines of the form
#   p:inline/FUNC_N [MOD:]CALLER+0xOFF NAME=FETCH:TYPE ...
# with the argument names of the C parameters (a struct split over two
# registers as NAME_FIELD, e.g. w_lo and w_hi).

: "${E2E_RESOLVER:=btfinline}"
: "${BTFINLINE:=btfinline}"

# --- host side ---------------------------------------------------------------

# btfi_encode_vmlinux VMLINUX OUT: split BTF on vmlinux's .BTF.
btfi_encode_vmlinux() {
	"$BTFINLINE" encode "$1" -o "$2"
}

# btfi_encode_module MODULE.ko VMLINUX OUT: multi-split BTF on the module's
# .BTF, itself split on vmlinux's.
btfi_encode_module() {
	"$BTFINLINE" encode "$1" -B "$2" -o "$3"
}

# btfi_sites_traceable VMLINUX VMLINUX_INLINE: the traceable sites of
# vmlinux as "ADDR SECTION CALLER+0xOFF FUNC" lines (e2e-guest judge's
# input), from the text output of sites:
#   0xffffffff81000359 __startup_64+0x19 .text fixup_int(void * ptr [...], ...)
btfi_sites_traceable() {
	"$BTFINLINE" sites "$2" -B "$1" --traceable |
		awk '$1 ~ /^0x[0-9a-f]+$/ { a = $1; sub(/^0x/, "", a); f = $4; sub(/\(.*/, "", f); print a, $3, $2, f }'
}

# btfi_resolve_file FUNC MODULE.ko MODULE_INLINE VMLINUX: kprobe lines for
# the sites of FUNC in a module that is not loaded yet (its .init.text), in
# the MOD:CALLER+OFF form the kernel keeps pending until the module loads.
# resolve comments such sites out as "(notrace: module init text ...)":
# true once the module is live, but a probe defined before insmod fires
# during init, which is what this test checks, so the comment is undone.
btfi_resolve_file() {
	"$BTFINLINE" resolve "$1" "$3" -B "$4" -B "$2" --format kprobe |
		sed -n 's/^# (notrace: module init text.*) \(p:inline\/\)/\1/; /^p:/p'
}

# btfi_resolve_vmlinux FUNC VMLINUX_INLINE VMLINUX: kprobe lines for the
# sites of FUNC in vmlinux, from the files; the guest's --running answer
# must be the same lines (caller+offset forms do not depend on KASLR).
btfi_resolve_vmlinux() {
	"$BTFINLINE" resolve "$1" "$2" -B "$3" --format kprobe | grep '^p:'
}

# --- guest side ---------------------------------------------------------------

# btfi_resolve FUNC MODULE: kprobe lines for every site of FUNC in the
# running kernel (MODULE "vmlinux" for the kernel itself), from
# /sys/kernel/btf/*.inline and /proc/kallsyms.
btfi_resolve() {
	"$BTFINLINE" resolve "$1" --running --format kprobe --module "$2"
}

# btfi_resolve_elf FUNC MODULE: the same from the module's files in /e2e
# (MODULE.inline, and MODULE.ko for its symbols and call frame information)
# on the running kernel's BTF, placed at the running module's sections.
# Frame-base (+N(%sp)) arguments need the .ko's CFI, which the running
# kernel does not publish.
btfi_resolve_elf() {
	"$BTFINLINE" resolve "$1" "/e2e/$2.inline" -B /sys/kernel/btf/vmlinux -B "/e2e/$2.ko" --running --format kprobe
}

# --- perf stand-in (host side) -----------------------------------------------

# The arguments to fetch for each test function of e2e/kmod/btfi_e2e.c,
# as perf probe arguments.
btfi_perf_args() {
	case $1 in
	btfi_add3) echo "a b c" ;;
	btfi_stack) echo "v w" ;;
	btfi_spill) echo "a b c d e f g h" ;;
	btfi_deref) echo "p p_a=p->a p_b=p->b" ;;
	btfi_fields) echo "x y z" ;;
	btfi_konst) echo "x k" ;;
	btfi_wide) echo "w_lo=w.lo w_hi=w.hi tag" ;;
	btfi_outer) echo "x y" ;;
	btfi_inner) echo "p q" ;;
	btfi_initfn) echo "s t" ;;
	btfi_frame) echo "a b c d e f g h i j k l m n o p" ;;
	esac
}

# btfi_perf_resolve FUNC MODULE.ko VMLINUX: the stand-in of btfi_resolve,
# run on the host. perf refuses a whole definition when one argument has a
# location it does not support (constants, structs in registers), so such
# arguments are dropped (they count as unavailable).
btfi_perf_resolve() {
	_f=$1 _ko=$2 _vm=$3 _ok=""
	for _a in $(btfi_perf_args "$_f"); do
		if perf probe -k "$_vm" -m "$_ko" -q -D "$_f $_a" >/dev/null 2>&1; then
			_ok="$_ok $_a"
		fi
	done
	# shellcheck disable=SC2086
	perf probe -k "$_vm" -m "$_ko" -q -D "$_f$_ok" 2>/dev/null |
		awk -v f="$_f" '/^p:/ {
			split($2, w, "+"); $2 = w[1] "+" sprintf("0x%x", w[2])
			$1 = "p:inline/" f "_" n++; print }'
}
