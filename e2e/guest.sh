# e2e/guest.sh: the guest side shared by the /init scripts of the qemu
# runs (e2e/init.sh on the Debian kernel, kbuild/init.sh on the kernel
# built with the kbuild series). Sourced by busybox sh: keep it POSIX.

T=/sys/kernel/tracing
# The sed command that drops frame-base arguments (+N(%sp), -N(%sp)) from
# kprobe_events lines: --running cannot give them (no CFI from the
# running kernel), so the comparisons with the files leave them out.
E2E_FRAME_ARGS='s/ [^ ]*=[-+][0-9]*(%sp):[a-z0-9]*//g'

# e2e_guest_mounts: busybox applets, proc, sysfs, devtmpfs, tmpfs on /tmp,
# tracefs and debugfs.
e2e_guest_mounts() {
	export PATH=/bin
	/bin/busybox --install -s /bin
	mount -t proc proc /proc
	mount -t sysfs sys /sys
	mount -t devtmpfs dev /dev 2>/dev/null
	mount -t tmpfs tmp /tmp
	mount -t tracefs tracefs /sys/kernel/tracing
	mount -t debugfs debugfs /sys/kernel/debug
}

# e2e_guest_begin: the mounts, the run's settings (/e2e/env) and command
# lines (/e2e/btfinline.sh), the console as output, and the start marker.
e2e_guest_begin() {
	e2e_guest_mounts
	. /e2e/env
	. /e2e/btfinline.sh
	exec >/dev/console 2>&1
	echo "E2E-BEGIN"
}

# e2e_phase NAME: when a step of the run starts, in seconds of uptime
# (the host sums them up: where the guest's time goes).
e2e_phase() {
	echo "E2E phase $1 at $(cut -d' ' -f1 /proc/uptime) s"
}

# e2e_trace_start: an empty ring buffer that records every printk, so
# that the module's printed values and the kprobe hits are in one stream,
# in execution order. Tracing itself is switched on by the caller.
e2e_trace_start() {
	echo 8192 >$T/buffer_size_kb
	echo >$T/trace
	echo 1 >$T/events/printk/console/enable
}

# e2e_fire_and_check PROBES ALL: define the kprobes of PROBES, run every
# caller of the test module (one write of each of $E2E_TRIGGERS to
# /proc/btfi_e2e), and compare what the kprobes of ALL (PROBES and any
# defined before) fetched with what the module printed. Leaves no probe
# or event behind.
e2e_fire_and_check() {
	e2e-guest probe "$1"
	[ "$1" = "$2" ] || cat "$1" >>"$2"
	echo 1 >$T/events/inline/enable
	for n in $E2E_TRIGGERS; do echo "$n" >/proc/btfi_e2e; done
	echo 0 >$T/tracing_on
	cat $T/trace >/tmp/trace.txt
	echo "E2E trace lines $(wc -l </tmp/trace.txt)"
	e2e-guest check "$2" /tmp/trace.txt
	echo 0 >$T/events/inline/enable
	echo 0 >$T/events/printk/console/enable
	echo >$T/kprobe_events
}

# e2e_vmlinux_running HOSTFILE: resolve each of $E2E_VMLINUX_FUNCS with
# --running alone and compare the lines with HOSTFILE, the same functions
# resolved from the files on the host; then have the kernel parse every
# definition (addresses, registers, immediates, memory fetches).
e2e_vmlinux_running() {
	: >/tmp/vr.txt
	for f in $E2E_VMLINUX_FUNCS; do btfi_resolve "$f" vmlinux | grep '^p:' >>/tmp/vr.txt; done
	# Immediates holding a kernel address (a global's &x) must move with
	# KASLR: they are compared apart (x86-64 0xffffffff8..., arm64
	# 0xffff8000...).
	addr='s/=\\0xffff[0-9a-f]*:/=\\ADDR:/g'
	sed "$addr" /tmp/vr.txt >/tmp/vr.n
	sed "$addr" "$1" >/tmp/vh.n
	# Each line against the host's: the same; without some %sp-based
	# arguments (frame-base ones need the files' CFI, which the running
	# kernel does not publish); a probe only --running gives (a rule
	# that needs the ELF: jump-label, static-call, BUG() sites); a place
	# only the files give (the host holds each such line to an expected
	# list); anything else is bad, and fails the run.
	awk '
		function args(line, a,   n, f, i) { n = split(line, f, " "); for (i = 3; i <= n; i++) a[f[i]] = 1 }
		NR == FNR { if ($1 ~ /^p:/) host[$1] = $0; next }
		$1 ~ /^p:/ {
			seen[$1] = 1
			if (!($1 in host)) { only++; print "E2E resolve-only running: " $0; next }
			if (host[$1] == $0) { same++; next }
			delete h; delete g; args(host[$1], h); args($0, g); ok = 1
			for (k in g) if (!(k in h)) ok = 0
			for (k in h) if (!(k in g) && k !~ /\(%sp\):|=%sp:/) ok = 0
			if (ok) frame++; else { bad++; if (bad <= 5) print "E2E resolve-bad host: " host[$1] " running: " $0 }
		}
		END {
			for (k in host) if (!(k in seen)) { files++; print "E2E resolve-only files: " host[k] }
			printf "E2E resolve-check vmlinux: %d the same, %d without frame-base arguments, %d only from --running, %d only from the files, %d bad\n", same, frame, only, files, bad
		}' /tmp/vh.n /tmp/vr.n
	echo "E2E resolve --running vmlinux: $(wc -l </tmp/vr.txt) lines, $(grep -c '=\\0xffff' /tmp/vr.txt) address immediates"
	# Every address immediate as the guest resolved it: the host checks
	# that each moved by exactly the KASLR slide.
	awk '{ for (i = 3; i <= NF; i++) if ($i ~ /=\\0xffff/) { split($i, kv, "="); sub(/^\\/, "", kv[2]); sub(/:.*/, "", kv[2]); print "E2E resolve-addr", $1, kv[1], kv[2] } }' /tmp/vr.txt
	e2e-guest probe /tmp/vr.txt | grep -v '^E2E probe '
}
