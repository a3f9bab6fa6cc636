#!/bin/busybox sh
# /init of the end-to-end test VM (built into the initramfs by e2e/run.sh).
# Prints its results between E2E-BEGIN and E2E-END on the serial console
# and powers the machine off; e2e/run.sh turns them into an exit code.
. /e2e/guest.sh
e2e_guest_begin
echo "E2E kernel $(uname -r) resolver=$E2E_RESOLVER"
echo "E2E kaslr $E2E_TEXT_SYM=$(grep " $E2E_TEXT_SYM\$" /proc/kallsyms | cut -d' ' -f1) (link time $E2E_LINK_TEXT; _text lines in kallsyms: $(grep -c " _text$" /proc/kallsyms))"
t0=$(cut -d' ' -f1 /proc/uptime)
echo "E2E boot seconds $t0"

# btfinline --running reads /sys/kernel/btf/*.inline: lay the encoded
# files next to the kernel's own BTF on a tmpfs over /sys/kernel/btf.
btf_overlay() {
	mkdir -p /tmp/btf
	cp /sys/kernel/btf/* /tmp/btf/
	for f in /e2e/*.inline; do [ -f "$f" ] && cp "$f" /tmp/btf/; done
	mount -t tmpfs btf /sys/kernel/btf
	cp /tmp/btf/* /sys/kernel/btf/
}

e2e_trace_start

# Sites in .init.text: defined before the module exists (MOD:SYM+OFF stays
# pending until the module is loaded), so they fire during insmod.
e2e-guest probe /e2e/init-probes.txt
[ -d $T/events/inline ] && echo 1 >$T/events/inline/enable
echo 1 >$T/tracing_on
insmod /e2e/btfi_e2e.ko seed="$E2E_SEED" || echo "E2E error insmod failed"
[ "$E2E_RESOLVER" = btfinline ] && btf_overlay

cp /e2e/init-probes.txt /tmp/all-probes.txt
: >/tmp/probes.txt
if [ "$E2E_RESOLVER" = btfinline ]; then
	# The probes come from the module's files on the running kernel
	# (frame-base arguments need its CFI); --running alone must give the
	# same lines but for those arguments.
	: >/tmp/probes-running.txt
	for f in $E2E_FUNCS; do
		btfi_resolve_elf "$f" btfi_e2e >>/tmp/probes.txt || echo "E2E error resolve $f"
		btfi_resolve "$f" btfi_e2e >>/tmp/probes-running.txt || echo "E2E error resolve --running $f"
	done
	grep '^p:' /tmp/probes.txt | sed "$E2E_FRAME_ARGS" >/tmp/pf.n
	grep '^p:' /tmp/probes-running.txt | sed "$E2E_FRAME_ARGS" >/tmp/pr.n
	echo "E2E resolve --running module: $(diff /tmp/pf.n /tmp/pr.n | grep -c '^[-+]p:') lines differ from the files but for frame-base arguments; $(grep -o '=[+-]*[0-9]*(%sp)' /tmp/probes.txt | wc -l) frame-base fetches"
else
	cp /e2e/probes.txt /tmp/probes.txt
fi
# E2E_SELFTEST=1 proves that the check can fail: the first register fetch
# of the first probe reads %sp instead, and the run must report a mismatch.
# E2E_SELFTEST=2 drops the last argument of the first probe instead: the
# host must then find a parameter never checked.
if [ "$E2E_SELFTEST" = 1 ]; then
	awk '!done && /^p:/ && sub(/=%[a-z0-9]+:/, "=%sp:") { done = 1 } 1' /tmp/probes.txt >/tmp/p && mv /tmp/p /tmp/probes.txt
fi
if [ "$E2E_SELFTEST" = 2 ]; then
	awk '!done && /^p:/ && NF > 3 { sub(/ [^ ]*$/, ""); done = 1 } 1' /tmp/probes.txt >/tmp/p && mv /tmp/p /tmp/probes.txt
fi
e2e_fire_and_check /tmp/probes.txt /tmp/all-probes.txt
# btfinline trace (e2e/trace.sh): the module's functions against printk,
# and the cost of a hit.
if [ "$E2E_RESOLVER" = btfinline ] && [ "$E2E_TRACE" != 0 ]; then
	. /e2e/trace.sh
	if [ "$E2E_TRACE" != faults ]; then
		trace_module
		trace_overhead
		[ "${E2E_PEERS:-0}" = 1 ] && trace_peers
	fi
fi
rmmod btfi_e2e
t1=$(cut -d' ' -f1 /proc/uptime)
echo "E2E module phase ended at $t1 s of uptime"

# vmlinux through --running: the same lines as from the files on the host,
# and definitions the kernel accepts (addresses and fetch arguments).
if [ "$E2E_RESOLVER" = btfinline ] && [ -s /e2e/vmlinux-resolve.txt ]; then
	e2e_vmlinux_running /e2e/vmlinux-resolve.txt
	echo >$T/kprobe_events
fi

# btfinline trace on every place of a hot vmlinux function.
[ "$E2E_RESOLVER" = btfinline ] && [ "$E2E_TRACE" != 0 ] && [ "$E2E_TRACE" != faults ] && trace_vmlinux
# ... and killed at random moments: nothing may be left behind.
[ "$E2E_RESOLVER" = btfinline ] && [ "$E2E_TRACE" != 0 ] && trace_faults

# The kernel as judge of traceability.
oracle=""
[ -f /e2e/traceable.txt ] && oracle="-traceable /e2e/traceable.txt"
oracle="$oracle -textsym $E2E_TEXT_SYM -text $E2E_LINK_TEXT"
# shellcheck disable=SC2086
[ -s /e2e/sites.txt ] && e2e-guest judge -batch "$E2E_BATCH" $oracle /e2e/sites.txt
echo "E2E-END"
poweroff -f
