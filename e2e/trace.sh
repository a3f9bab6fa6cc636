# e2e/trace.sh: the "btfinline trace" checks of the end-to-end test, sourced
# by /init in the guest (busybox sh) after the kprobe checks of the module.
# Every result line starts with "E2E "; e2e/run.sh turns them into a verdict.
T=/sys/kernel/tracing
KP=/sys/kernel/debug/kprobes

now() { cut -d' ' -f1 /proc/uptime; }
# secs T0 T1: T1 - T0 in seconds.
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# trace_start OUT ERR ARGS...: btfinline trace in the background; returns
# when it has attached (its "Attached" line on ERR) or died.
trace_start() {
	_out=$1 _err=$2
	shift 2
	"$BTFINLINE" trace "$@" >"$_out" 2>"$_err" &
	TRACE_PID=$!
	_i=0
	while ! grep -q '^Attached' "$_err"; do
		if ! kill -0 "$TRACE_PID" 2>/dev/null; then
			echo "E2E error btfinline trace $* exited before attaching"
			sed 's/^/E2E trace-stderr /' "$_err"
			TRACE_PID=""
			return 1
		fi
		_i=$((_i + 1))
		[ $_i -gt 1200 ] && { echo "E2E error btfinline trace $* did not attach in 120 s"; return 1; }
		sleep 0.1
	done
}

# trace_stop ERR: SIGINT, wait, and print its stderr.
trace_stop() {
	[ -n "$TRACE_PID" ] || return 1
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID"
	_rc=$?
	echo "E2E trace exit $_rc"
	[ $_rc = 0 ] || echo "E2E error btfinline trace exited with $_rc"
	sed 's/^/E2E trace-stderr /' "$1"
	TRACE_PID=""
}

# kprobes_left: kprobes still registered (none of ours must be after exit).
kprobes_left() {
	echo "E2E kprobes-left $1 $(grep -c . $KP/list)"
	grep . $KP/list | head -5 | sed 's/^/E2E kprobes-left-line /'
}

# The module's test functions traced while the module runs them: every
# event's values against the printk truth, one event per call.
trace_module() {
	_probes=""
	for f in $E2E_FUNCS; do
		case $f in
		btfi_deref) _probes="$_probes btfi_e2e:btfi_deref(p,p->a,p->b)" ;;
		*) _probes="$_probes btfi_e2e:$f" ;;
		esac
	done
	dmesg -c >/dev/null
	# shellcheck disable=SC2086
	trace_start /tmp/tr.json /tmp/tr.err $_probes /e2e/btfi_e2e.inline -B /sys/kernel/btf/vmlinux -B /e2e/btfi_e2e.ko --json || return
	for n in $E2E_TRIGGERS; do echo "$n" >/proc/btfi_e2e; done
	trace_stop /tmp/tr.err
	dmesg >/tmp/dmesg.txt
	e2e-guest tracecheck /tmp/tr.json /tmp/dmesg.txt
	kprobes_left module
	# --running alone (the module's .inline next to its BTF): the same
	# places, counted.
	trace_start /tmp/trc.json /tmp/trc.err btfi_e2e:btfi_add3 --running --count --json || return
	for n in $E2E_TRIGGERS; do echo "$n" >/proc/btfi_e2e; done
	trace_stop /tmp/trc.err
	echo "E2E trace running-count $(tail -n 1 /tmp/trc.json)"
	kprobes_left running
}

# loop_ns N: the module's tight loop of N btfi_hot calls, in ns.
loop_ns() {
	dmesg -c >/dev/null
	echo "loop $1" >/proc/btfi_e2e
	dmesg | sed -n 's/.*btfi: loop n=[0-9]* ns=\([0-9]*\).*/\1/p' | tail -n 1
}

# The cost of a hit and the event rate: btfi_hot N times, untraced,
# counted, and with every event sent and read.
trace_overhead() {
	n=${E2E_LOOP:-20000}
	base=$(loop_ns "$n")
	base2=$(loop_ns "$n")
	trace_start /tmp/hc.json /tmp/hc.err btfi_e2e:btfi_hot /e2e/btfi_e2e.inline -B /sys/kernel/btf/vmlinux -B /e2e/btfi_e2e.ko --count --json || return
	counted=$(loop_ns "$n")
	trace_stop /tmp/hc.err
	trace_start /tmp/he.json /tmp/he.err btfi_e2e:btfi_hot /e2e/btfi_e2e.inline -B /sys/kernel/btf/vmlinux -B /e2e/btfi_e2e.ko --json || return
	t0=$(now)
	events=$(loop_ns "$n")
	sleep 1
	trace_stop /tmp/he.err
	echo "E2E overhead n=$n untraced_ns=$base,$base2 count_ns=$counted events_ns=$events events=$(grep -c '"func"' /tmp/he.json)"
	kprobes_left overhead
}

# Every place of a hot vmlinux function: attach time against kprobe_events
# in the same boot, then per-place hits against kprobe_profile over exactly
# the same interval: with /sys/kernel/debug/kprobes/enabled off, no kprobe
# fires, and a kprobe_events probe and ours at one address are one
# aggregated kprobe, armed and disarmed together.
trace_vmlinux() {
	fn=${E2E_HOT:-__list_del_entry}
	"$BTFINLINE" resolve "$fn" --running --format kprobe | grep '^p:' >/tmp/hot.txt
	echo "E2E hot $fn places=$(wc -l </tmp/hot.txt)"
	# Ours first, alone: attach (arming every kprobe) and detach.
	t0=$(now)
	trace_start /tmp/ha.json /tmp/ha.err "$fn" --count --json || return
	t1=$(now)
	trace_stop /tmp/ha.err
	t2=$(now)
	echo "E2E attach btfinline places=$(grep -c . /tmp/hot.txt) start-to-attached=$(secs "$t0" "$t1") stop-to-exit=$(secs "$t1" "$t2")"
	kprobes_left attach
	# kprobe_events: define, enable (arming), disable, remove.
	e2e-guest register /tmp/hot.txt
	t0=$(now)
	echo 1 >$T/events/inline/enable
	t1=$(now)
	echo 0 >$T/events/inline/enable
	t2=$(now)
	echo >$T/kprobe_events
	t3=$(now)
	echo "E2E attach kprobe_events enable=$(secs "$t0" "$t1") disable=$(secs "$t1" "$t2") remove=$(secs "$t2" "$t3")"
	# The comparison.
	e2e-guest register /tmp/hot.txt >/dev/null
	echo 1 >$T/events/inline/enable
	echo 0 >$KP/enabled
	trace_start /tmp/hp.json /tmp/hp.err "$fn" --count --json || return
	cat $T/kprobe_profile >/tmp/prof0
	echo 1 >$KP/enabled
	for i in 1 2 3 4 5 6 7 8; do
		ls -l / /proc /sys >/dev/null
		cat /proc/meminfo /proc/self/maps >/dev/null
		sh -c 'echo x | cat >/dev/null'
	done
	echo 0 >$KP/enabled
	cat $T/kprobe_profile >/tmp/prof1
	trace_stop /tmp/hp.err
	echo 1 >$KP/enabled
	e2e-guest countcheck /tmp/prof0 /tmp/prof1 /tmp/hp.json
	echo 0 >$T/events/inline/enable
	echo >$T/kprobe_events
	# Every event of a small workload, none lost.
	trace_start /tmp/hv.json /tmp/hv.err "$fn" --json || return
	for i in 1 2 3 4; do ls -l / /proc >/dev/null; done
	trace_stop /tmp/hv.err
	echo "E2E hot events $(grep -c '"func"' /tmp/hv.json)"
	kprobes_left vmlinux
}
