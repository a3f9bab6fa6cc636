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

# Debian's kernel serves no /sys/kernel/btf/*.inline: btfinline without
# --inline finds the inline BTF in its cache by the build ids this kernel
# reports. The host filled the cache through debuginfod (e2e/lib.sh).
export XDG_CACHE_HOME=/e2e/xdg
mkdir -p /etc && cp /e2e/os-release /etc/os-release

# lookup_check: the commands found the inline BTF in the cache (the
# kernel serves none); with an empty cache the error names the package
# to install; a cache entry recorded for another build is refused.
lookup_check() {
	echo "E2E lookup kernel-inline=$(ls /sys/kernel/btf | grep -c '\.inline$') cache-entries=$(ls "$XDG_CACHE_HOME"/btfinline/*/meta.json | wc -l)"
	"$BTFINLINE" cache list 2>&1 | awk '{ print "E2E lookup cache-list", $1, $2, $3 }'
	XDG_CACHE_HOME=/tmp/lk-empty "$BTFINLINE" resolve get_cred --running >/dev/null 2>/tmp/lk.err &&
		echo "E2E error resolve --running with an empty cache and no debug files succeeded"
	if grep -q '^btfinline: no inline BTF for vmlinux (build id '"$E2E_VMLINUX_BUILDID" /tmp/lk.err &&
	   grep -qF "install linux-image-$(uname -r)-dbg" /tmp/lk.err && grep -q 'debuginfod: DEBUGINFOD_URLS is not set' /tmp/lk.err; then
		echo "E2E lookup empty-cache error names the package: yes"
	else
		echo "E2E error empty cache: $(tr '\n' ' ' </tmp/lk.err)"
	fi
	_other=0123456789abcdef0123456789abcdef01234567
	mkdir -p /tmp/lk-other/btfinline
	cp -r "$XDG_CACHE_HOME/btfinline/$E2E_VMLINUX_BUILDID" /tmp/lk-other/btfinline/
	sed -i "s/\"build_id\": \"$E2E_VMLINUX_BUILDID\"/\"build_id\": \"$_other\"/" "/tmp/lk-other/btfinline/$E2E_VMLINUX_BUILDID/meta.json"
	XDG_CACHE_HOME=/tmp/lk-other "$BTFINLINE" resolve get_cred --running >/dev/null 2>/tmp/lk.err &&
		echo "E2E error resolve --running used a cache entry of another build"
	if grep -qF "recorded for build id $_other, not $E2E_VMLINUX_BUILDID" /tmp/lk.err; then
		echo "E2E lookup other-build entry refused: yes"
	else
		echo "E2E error other build's cache entry: $(tr '\n' ' ' </tmp/lk.err)"
	fi
	# sites --running lists vmlinux and every loaded module with BTF: the
	# lines of --module for each, in that order, a module's marked [MOD].
	# Compared by digest, one listing on the guest's tmpfs (RAM) at a time:
	# vmlinux's is 30-45 MB. Each listing of vmlinux takes a minute under
	# TCG, so there are two: all objects, and all but the module.
	"$BTFINLINE" sites --running --no-fetch >/tmp/lk-all.txt 2>/tmp/lk.err || echo "E2E error sites --running: $(tr '\n' ' ' </tmp/lk.err)"
	_all=$(md5sum </tmp/lk-all.txt) _vm=$(grep -v ' \[btfi_e2e\] ' /tmp/lk-all.txt | md5sum)
	_lines=$(wc -l </tmp/lk-all.txt) _mlines=$(grep -c ' \[btfi_e2e\] ' /tmp/lk-all.txt)
	_allerr=$(wc -l </tmp/lk.err)
	rm -f /tmp/lk-all.txt
	# A module with no inline BTF anywhere (its cache entry gone, nothing
	# to fetch) costs that module only: said first and named, vmlinux's
	# sites still listed.
	mkdir -p /tmp/lk-part && cp -r "$XDG_CACHE_HOME/btfinline" /tmp/lk-part/
	rm -r "$(dirname "$(grep -l '"object": "btfi_e2e"' /tmp/lk-part/btfinline/*/meta.json)")"
	XDG_CACHE_HOME=/tmp/lk-part "$BTFINLINE" sites --running --no-fetch >/tmp/lk-vm.txt 2>/tmp/lk.err
	_part=$(md5sum </tmp/lk-vm.txt)
	rm -rf /tmp/lk-part
	# vmlinux's lines (as that run listed them: a module's line has its
	# [MOD] mark where a section stands), then --module's of each module.
	_each=$({ awk '$3 !~ /^\[/' /tmp/lk-vm.txt; for _m in $(ls /sys/kernel/btf | grep -v -e '^vmlinux$' -e '\.inline$'); do
		"$BTFINLINE" sites --running --module "$_m" 2>/dev/null || echo "E2E error sites --running --module $_m" >&2
	done; } | md5sum)
	rm -f /tmp/lk-vm.txt
	echo "E2E lookup sites-running objects=$(ls /sys/kernel/btf | grep -vc '\.inline$') lines=$_lines module-lines=$_mlines same-as-each=$([ "$_all" = "$_each" ] && echo yes || echo no) stderr=$_allerr"
	_n=$(ls /sys/kernel/btf | grep -vc '\.inline$')
	if grep -q "^btfinline: inline BTF of $_n objects: $((_n - 1)) ready, 1 with no debug files here\$" /tmp/lk.err &&
	   grep -q "^btfinline: note: sites of 1 of $((_n - 1)) modules not listed" /tmp/lk.err && grep -q '^  btfi_e2e (build id ' /tmp/lk.err &&
	   [ "$_lines" -gt "$_mlines" ] && [ "$_part" = "$_vm" ]; then
		echo "E2E lookup sites-running missing module named, vmlinux listed: yes"
	else
		echo "E2E error sites --running without the module's entry: $(tr '\n' ' ' </tmp/lk.err)"
	fi
}

e2e_trace_start

# Sites in .init.text: defined before the module exists (MOD:SYM+OFF stays
# pending until the module is loaded), so they fire during insmod.
e2e-guest probe /e2e/init-probes.txt
[ -d $T/events/inline ] && echo 1 >$T/events/inline/enable
echo 1 >$T/tracing_on
insmod /e2e/btfi_e2e.ko seed="$E2E_SEED" || echo "E2E error insmod failed"
e2e_phase lookup
[ "$E2E_RESOLVER" = btfinline ] && lookup_check
e2e_phase module-resolve

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
e2e_phase module-fire
e2e_fire_and_check /tmp/probes.txt /tmp/all-probes.txt
# btfinline trace (e2e/trace.sh): the module's functions against printk,
# and the cost of a hit.
if [ "$E2E_RESOLVER" = btfinline ] && [ "$E2E_TRACE" != 0 ]; then
	. /e2e/trace.sh
	if [ "$E2E_TRACE" != faults ] && [ "$E2E_TRACE" != hot ]; then
		e2e_phase trace-module
		trace_module
		e2e_phase trace-overhead
		trace_overhead
		e2e_phase peer-perf
		trace_perf_values
		e2e_phase peer-bpftrace
		trace_bpftrace_values
		e2e_phase api-example
		trace_api_example
		[ "${E2E_PEERS:-0}" = 1 ] && trace_peers
		e2e_phase trace-flood
		trace_flood
		# The traced module removed under trace (the module's last use).
		e2e_phase trace-rmmod
		trace_rmmod
		e2e_phase trace-follow
		trace_follow
	fi
fi
[ -d /sys/module/btfi_e2e ] && rmmod btfi_e2e
t1=$(cut -d' ' -f1 /proc/uptime)
echo "E2E module phase ended at $t1 s of uptime"

# vmlinux through --running: the same lines as from the files on the host,
# and definitions the kernel accepts (addresses and fetch arguments).
e2e_phase vmlinux-resolve
if [ "$E2E_RESOLVER" = btfinline ] && [ -s /e2e/vmlinux-resolve.txt ]; then
	e2e_vmlinux_running /e2e/vmlinux-resolve.txt
	echo >$T/kprobe_events
fi

# btfinline trace on every place of a hot vmlinux function.
e2e_phase trace-hot
[ "$E2E_RESOLVER" = btfinline ] && [ "$E2E_TRACE" != 0 ] && [ "$E2E_TRACE" != faults ] && trace_vmlinux
e2e_phase trace-fdlimit
[ "$E2E_RESOLVER" = btfinline ] && [ "$E2E_TRACE" != 0 ] && [ "$E2E_TRACE" != faults ] && [ "$E2E_TRACE" != hot ] && trace_fdlimit
e2e_phase trace-many
[ "$E2E_RESOLVER" = btfinline ] && [ "$E2E_TRACE" != 0 ] && [ "$E2E_TRACE" != faults ] && [ "$E2E_TRACE" != hot ] && trace_many
# ... and killed at random moments: nothing may be left behind.
e2e_phase trace-faults
[ "$E2E_RESOLVER" = btfinline ] && [ "$E2E_TRACE" != 0 ] && [ "$E2E_TRACE" != hot ] && trace_faults

# The kernel as judge of traceability.
e2e_phase judge
oracle=""
[ -f /e2e/traceable.txt ] && oracle="-traceable /e2e/traceable.txt"
oracle="$oracle -textsym $E2E_TEXT_SYM -text $E2E_LINK_TEXT"
# shellcheck disable=SC2086
[ -s /e2e/sites.txt ] && e2e-guest judge -batch "$E2E_BATCH" $oracle /e2e/sites.txt
e2e_phase end
echo "E2E-END"
poweroff -f
