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
	# A stale "Attached" from an earlier trace with the same ERR would
	# end the wait below before this one attaches.
	rm -f "$_err"
	"$BTFINLINE" trace "$@" >"$_out" 2>"$_err" &
	TRACE_PID=$!
	# Four greps a second, and read -t on a pipe nobody writes as the
	# sleep; several of these traces may run at once (the timed attach
	# waits without polling: trace_start_piped). (The shell's read
	# builtin reads a file a byte a system call: over --verbose's lines
	# it took much of the CPU.)
	[ -p /tmp/e2e-tick ] || mkfifo /tmp/e2e-tick
	exec 9<>/tmp/e2e-tick
	_i=0
	while ! grep -q '^Attached' "$_err" 2>/dev/null; do
		if ! kill -0 "$TRACE_PID" 2>/dev/null; then
			exec 9<&-
			trace_not_attached "$_err" "$@"
			return 1
		fi
		_i=$((_i + 1))
		[ $_i -gt 480 ] && { exec 9<&-; trace_not_attached "$_err" "$@"; return 1; }
		read -r -t 0.25 _ <&9
	done
	exec 9<&-
}

# trace_not_attached ERR ARGS...: the error of a trace that did not say
# "Attached": still running after 120 s, or exited (with its stderr).
trace_not_attached() {
	_e=$1
	shift
	if kill -0 "$TRACE_PID" 2>/dev/null; then
		echo "E2E error btfinline trace $* did not attach in 120 s"
	else
		echo "E2E error btfinline trace $* exited before attaching"
		sed 's/^/E2E trace-stderr /' "$_e"
		TRACE_PID=""
	fi
}

# trace_start_piped OUT ERR ARGS...: trace_start for an attach that is
# timed: no process polls ERR meanwhile (a grep is a fork, an exec and an
# exit on the guest's one CPU, and their scheduler paths are places of a
# hot function's trace); a copier reads trace's stderr from a pipe into
# ERR and says when the "Attached" line has come (or stderr has ended).
trace_start_piped() {
	_out=$1 _err=$2
	shift 2
	rm -f "$_err" /tmp/e2e-err
	: >"$_err"
	mkfifo /tmp/e2e-err
	[ -p /tmp/e2e-attached ] || mkfifo /tmp/e2e-attached
	exec 9<>/tmp/e2e-attached
	while IFS= read -r _l; do
		printf '%s\n' "$_l" >>"$_err"
		case $_l in Attached*) echo >&9 ;; esac
	done </tmp/e2e-err && echo >&9 &
	COPY_PID=$!
	"$BTFINLINE" trace "$@" >"$_out" 2>/tmp/e2e-err &
	TRACE_PID=$!
	# The copier also says when stderr ended, so that an exit before
	# attaching ends the wait.
	read -r -t 120 _ <&9
	exec 9<&-
	grep -q '^Attached' "$_err" || { trace_not_attached "$_err" "$@"; return 1; }
}

# trace_stop ERR: SIGINT, wait, and print its stderr.
trace_stop() {
	[ -n "$TRACE_PID" ] || return 1
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID"
	_rc=$?
	# trace_start_piped's copier ends with trace's stderr.
	[ -z "$COPY_PID" ] || wait "$COPY_PID"
	COPY_PID=""
	echo "E2E trace exit $_rc"
	[ $_rc = 0 ] || echo "E2E error btfinline trace exited with $_rc"
	grep -v '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]: [0-9]* events' "$1" | sed 's/^/E2E trace-stderr /'
	TRACE_PID=""
}

# expect WHAT GOT WANT: an error line when they differ.
expect() {
	if [ "$2" = "$3" ]; then echo "E2E trace-expect $1: $2"
	else echo "E2E error btfinline trace $1: got '$2', want '$3'"; fi
}

# kprobes_left: kprobes still registered (none of ours must be after exit).
kprobes_left() {
	echo "E2E kprobes-left $1 $(grep -c . $KP/list)"
	grep . $KP/list | head -5 | sed 's/^/E2E kprobes-left-line /'
}

# The module's test functions traced while the module runs them: every
# event's values against the printk truth, one event per call. TRACE_SRC:
# where trace reads the module's inline BTF and symbols (default its files;
# kbuild/init.sh, on a kernel that serves them, --running), split into words.
# shellcheck disable=SC2086
trace_module() {
	: "${TRACE_SRC:=/e2e/btfi_e2e.inline -B /sys/kernel/btf/vmlinux -B /e2e/btfi_e2e.ko}"
	_probes=""
	for f in $E2E_FUNCS; do
		case $f in
		btfi_deref) _probes="$_probes btfi_e2e:btfi_deref(p,p->a,p->b)" ;;
		*) _probes="$_probes btfi_e2e:$f" ;;
		esac
	done
	dmesg -c >/dev/null
	trace_start /tmp/tr.json /tmp/tr.err $_probes $TRACE_SRC --json || return
	for n in $E2E_TRIGGERS; do echo "$n" >/proc/btfi_e2e; done
	trace_stop /tmp/tr.err
	dmesg >/tmp/dmesg.txt
	# E2E_SELFTEST=1: one traced value off by one; the run must fail.
	if [ "$E2E_SELFTEST" = 1 ]; then
		awk '!done && sub(/"a":[0-9]+/, "&1") { done = 1 } 1' /tmp/tr.json >/tmp/t && mv /tmp/t /tmp/tr.json
	fi
	e2e-guest tracecheck /tmp/tr.json /tmp/dmesg.txt
	kprobes_left module
	# A filter in the kernel: events (a == 10: btfi_call_regs with n=5),
	# and counts with a signed comparison (c < 0: 3 calls of btfi_call_regs
	# and 1 of btfi_call_regs2 for the four triggers).
	trace_start /tmp/tf.json /tmp/tf.err btfi_e2e:btfi_add3 $TRACE_SRC --json --filter 'a == 10' || return
	for n in $E2E_TRIGGERS; do echo "$n" >/proc/btfi_e2e; done
	trace_stop /tmp/tf.err
	expect "filter events" "$(grep -c '"a":10,' /tmp/tf.json) $(grep -c . /tmp/tf.json)" "1 1"
	trace_start /tmp/tc.json /tmp/tc.err btfi_e2e:btfi_add3 $TRACE_SRC --json --count --filter 'c < 0 && (b & 0xf) != 0xff' || return
	for n in $E2E_TRIGGERS; do echo "$n" >/proc/btfi_e2e; done
	trace_stop /tmp/tc.err
	expect "filter counts" "$(tail -n 1 /tmp/tc.json | sed -n 's/.*"total":\([0-9]*\).*/\1/p')" 4
	# A kernel stack, symbolised: the module's callers are on it. Once as
	# a breakpoint kprobe (jump optimization off), once as it comes (a
	# single x86-64 kprobe is jump-optimized within milliseconds).
	# btfi_wide's place is a mov; btfi_konst's is a one-byte push, where
	# the kernel's ORC unwinder, looking up the frame of pt_regs' ip (one
	# past the probe, after the push that has not run), ends the stack
	# after the first frame, as it does for bpftrace's kstack (trace_peers).
	for opt in 0 1; do
		[ -w /proc/sys/debug/kprobes-optimization ] && echo $opt >/proc/sys/debug/kprobes-optimization
		trace_start /tmp/ts$opt.txt /tmp/ts.err btfi_e2e:btfi_wide btfi_e2e:btfi_konst $TRACE_SRC --stack || return
		sleep 1
		echo 5 >/proc/btfi_e2e
		trace_stop /tmp/ts.err
		sed "s/^/E2E trace-line optimization=$opt /" /tmp/ts$opt.txt
		for f in wide konst; do
			awk -v f="btfi_$f(" '/^[0-9]/ { on = index($0, f) > 0 } on' /tmp/ts$opt.txt >/tmp/ts$opt.$f
			echo "E2E trace-stack optimization=$opt btfi_$f frames=$(grep -c "$(printf '^\t')" /tmp/ts$opt.$f) callers=$(grep -c 'btfi_call_misc+0x[0-9a-f]* \[btfi_e2e\]' /tmp/ts$opt.$f),$(grep -c 'btfi_write[.a-z]*+0x[0-9a-f]* \[btfi_e2e\]' /tmp/ts$opt.$f),$(grep -c "$(printf '^\t')vfs_write+0x" /tmp/ts$opt.$f)"
		done
		expect "stack (optimization=$opt) of btfi_wide: btfi_call_misc, btfi_write, vfs_write" "$(grep -c 'btfi_call_misc+0x[0-9a-f]* \[btfi_e2e\]' /tmp/ts$opt.wide) $(grep -c 'btfi_write[.a-z]*+0x[0-9a-f]* \[btfi_e2e\]' /tmp/ts$opt.wide) $(grep -c "$(printf '^\t')vfs_write+0x" /tmp/ts$opt.wide)" "1 1 1"
	done
	# vmlinux: get_cred while ls runs; the syscall entry must be on it.
	trace_start /tmp/tv.txt /tmp/tv.err get_cred --stack || return
	ls / >/dev/null
	trace_stop /tmp/tv.err
	head -n 12 /tmp/tv.txt | sed 's/^/E2E trace-line vmlinux /'
	echo "E2E trace-stack vmlinux events=$(grep -c ' get_cred(' /tmp/tv.txt) frames=$(grep -c "$(printf '^\t')" /tmp/tv.txt) syscall=$(grep -c "$(printf '^\t').*syscall" /tmp/tv.txt)"
	# The system call entry: do_syscall_64 on x86-64, invoke_syscall on arm64.
	_entry=do_syscall_64
	[ "$(uname -m)" = aarch64 ] && _entry=invoke_syscall
	expect "stack of get_cred: some events, some through $_entry" "$([ "$(grep -c ' get_cred(' /tmp/tv.txt)" -gt 0 ] && echo y) $([ "$(grep -c "$(printf '^\t')$_entry+0x" /tmp/tv.txt)" -gt 0 ] && echo y)" "y y"
	# The line output, for the record.
	trace_start /tmp/tl.txt /tmp/tl.err 'btfi_e2e:btfi_deref(p, p->a, p->b)' btfi_e2e:btfi_wide $TRACE_SRC || return
	echo 5 >/proc/btfi_e2e
	trace_stop /tmp/tl.err
	sed 's/^/E2E trace-line /' /tmp/tl.txt
	# --running alone (the module's .inline next to its BTF): the same
	# places, counted.
	trace_start /tmp/trc.json /tmp/trc.err btfi_e2e:btfi_add3 --running --count --json || return
	for n in $E2E_TRIGGERS; do echo "$n" >/proc/btfi_e2e; done
	trace_stop /tmp/trc.err
	echo "E2E trace running-count $(tail -n 1 /tmp/trc.json)"
	kprobes_left running
	# Two sessions at once on overlapping functions (the kernel aggregates
	# their kprobes at a shared place): each counts every hit, as the
	# session alone did.
	trace_start /tmp/to1.json /tmp/to1.err btfi_e2e:btfi_add3 btfi_e2e:btfi_wide $TRACE_SRC --count --json || return
	_p1=$TRACE_PID
	trace_start /tmp/to2.json /tmp/to2.err btfi_e2e:btfi_add3 $TRACE_SRC --count --json || return
	for n in $E2E_TRIGGERS; do echo "$n" >/proc/btfi_e2e; done
	trace_stop /tmp/to2.err
	TRACE_PID=$_p1
	trace_stop /tmp/to1.err
	_solo=$(tail -n 1 /tmp/trc.json | sed -n 's/.*"total":\([0-9]*\).*/\1/p')
	expect "overlapping sessions: btfi_add3 hits in each, as alone; btfi_wide hit" \
		"$(func_hits /tmp/to1.json btfi_add3) $(func_hits /tmp/to2.json btfi_add3) $([ "$(func_hits /tmp/to1.json btfi_wide)" -gt 0 ] && echo y)" "$_solo $_solo y"
	kprobes_left overlapping
}

# func_hits JSON FUNC: the hits of FUNC in the last counts line of trace
# --count --json.
func_hits() {
	tail -n 1 "$1" | grep -o '"func":"'"$2"'","caller":"[^"]*","hits":[0-9]*' | sed 's/.*"hits"://' | awk '{ n += $1 } END { print n + 0 }'
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
	# A histogram of i over 0..999: [512, 1K) holds 488 values, [0] one.
	trace_start /tmp/hh.json /tmp/hh.err 'btfi_e2e:btfi_hot(i)' /e2e/btfi_e2e.inline -B /sys/kernel/btf/vmlinux -B /e2e/btfi_e2e.ko --hist i --json || return
	loop_ns 1000 >/dev/null
	trace_stop /tmp/hh.err
	expect "hist" "$(grep -o '"zero":[0-9]*' /tmp/hh.json) $(grep -o '{"min":512,"max_exclusive":1024,"count":[0-9]*}' /tmp/hh.json)" '"zero":1 {"min":512,"max_exclusive":1024,"count":488}'
	# --duration ends the run by itself (5 s after attaching), --interval
	# prints the counts of each interval on the way: two loops of 1000, a
	# second apart.
	t0=$(now)
	trace_start /tmp/hd.json /tmp/hd.err btfi_e2e:btfi_hot /e2e/btfi_e2e.inline -B /sys/kernel/btf/vmlinux -B /e2e/btfi_e2e.ko --count --json --interval 500ms --duration 5s || return
	loop_ns 1000 >/dev/null
	sleep 1
	loop_ns 1000 >/dev/null
	wait "$TRACE_PID"
	_rc=$?
	t1=$(now)
	TRACE_PID=""
	echo "E2E trace duration exit=$_rc seconds=$(secs "$t0" "$t1") intervals=$(grep -c '"counts":"[0-9]' /tmp/hd.json) interval_hits=$(grep '"counts":"[0-9]' /tmp/hd.json | sed -n 's/.*"total":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')"
	expect "duration: exit, total" "$_rc $(grep '"counts":"total"' /tmp/hd.json | sed -n 's/.*"total":\([0-9]*\).*/\1/p')" "0 2000"
	expect "interval: sum of the intervals' hits" "$(grep '"counts":"[0-9]' /tmp/hd.json | sed -n 's/.*"total":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print (s == 2000) }')" 1
	# The event rate this one-CPU machine sustains, producing and reading:
	# a burst that fits the ring buffer (8 MiB, 80 bytes an event), timed
	# until the reader has printed every event (text, to /dev/null).
	m=${E2E_RATE_LOOP:-100000}
	trace_start /dev/null /tmp/hr.err btfi_e2e:btfi_hot /e2e/btfi_e2e.inline -B /sys/kernel/btf/vmlinux -B /e2e/btfi_e2e.ko --interval 100ms || return
	t0=$(now)
	rate=$(loop_ns "$m")
	t1=$(now)
	_i=0
	while ! grep -q ": $m events" /tmp/hr.err && [ $_i -lt 600 ]; do sleep 0.1; _i=$((_i + 1)); done
	t2=$(now)
	# The interval line is the reader's own count: one that never says
	# every event was printed is an interval lost (or a reader stuck).
	grep -q ": $m events" /tmp/hr.err || echo "E2E error btfinline trace --interval: no interval line said $m events after $(secs "$t0" "$t2") s"
	trace_stop /tmp/hr.err
	echo "E2E rate n=$m loop_ns=$rate produced=$(secs "$t0" "$t1") read=$(secs "$t0" "$t2") $(grep -E '^[0-9]+ hits' /tmp/hr.err)"
	kprobes_left overhead
}

# attach_profile_start: with E2E_PROFILE_ATTACH=1, ftrace's function_graph
# tracer on the kernel functions of registering, arming and firing a
# kprobe, through perf and BPF and through kprobe_events (the function
# profiler is not in Debian's kernels).
attach_profile_start() {
	[ "${E2E_PROFILE_ATTACH:-0}" = 1 ] || return 0
	echo nop >$T/current_tracer
	: >$T/set_ftrace_filter
	for f in __x64_sys_perf_event_open __arm64_sys_perf_event_open __x64_sys_bpf __arm64_sys_bpf \
		__x64_sys_close __arm64_sys_close __x64_sys_write __arm64_sys_write \
		perf_event_alloc perf_init_event perf_kprobe_event_init perf_kprobe_init create_local_trace_kprobe \
		perf_trace_event_init perf_trace_init perf_install_in_context find_get_context \
		perf_event_attach_bpf_prog bpf_link_prime bpf_link_settle perf_event_release_kernel \
		register_kprobe check_kprobe_address_safe jump_label_text_reserved static_call_text_reserved \
		find_bug arch_prepare_kprobe __get_insn_slot arm_kprobe enable_kprobe enable_trace_kprobe \
		__register_trace_kprobe alloc_trace_kprobe trace_probe_init \
		lookup_symbol_name ftrace_location_range within_error_injection_list \
		aarch64_insn_patch_text text_poke text_poke_sync arch_arm_kprobe \
		probes_write trace_parse_run_command trace_kprobe_create register_trace_kprobe \
		register_kprobe_event trace_add_event_call find_trace_kprobe traceprobe_parse_probe_arg \
		kprobe_breakpoint_handler kprobe_int3_handler kprobe_dispatcher kprobe_perf_func trace_call_bpf \
		pcpu_alloc pcpu_alloc_noprof __alloc_percpu synchronize_rcu kprobe_optimizer \
		security_perf_event_alloc security_perf_event_open perf_event_set_bpf_prog \
		fd_install anon_inode_getfile kmalloc_trace __kmalloc; do
		echo "$f" >>$T/set_ftrace_filter 2>/dev/null
	done
	echo "E2E profile filter $(tr '\n' ' ' <$T/set_ftrace_filter)"
	_prof_on=$(cat $T/tracing_on) _prof_kb=$(sed 's/.*expanded: \([0-9]*\).*/\1/' $T/buffer_size_kb) _prof_tail=$(cat $T/options/funcgraph-tail)
	echo 1 >$T/tracing_on
	echo 60000 >$T/buffer_size_kb
	echo 1 >$T/options/funcgraph-tail
	echo function_graph >$T/current_tracer
	: >$T/trace
}

# attach_profile_stop TAG: each profiled function's calls and time since
# attach_profile_start, as "E2E profile TAG" lines.
attach_profile_stop() {
	[ "${E2E_PROFILE_ATTACH:-0}" = 1 ] || return 0
	echo 0 >$T/tracing_on
	awk -v tag="$1" '
		/ us +\|/ {
			split($0, p, "|"); n = split(p[1], w, " "); d = w[n - 1]; r = p[2]
			if (r ~ /\/\* .* \*\//) { sub(/.*\/\* /, "", r); sub(/ \*\/.*/, "", r) }
			else if (r ~ /\(\);/) gsub(/[ ();]/, "", r)
			else next
			t[r] += d; c[r]++
		}
		END { for (f in t) printf "E2E profile %s %s calls=%d ms=%.1f\n", tag, f, c[f], t[f] / 1000 }' $T/trace
	echo "E2E profile $1 lost $(cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { n += $2 } END { print n + 0 }')"
	echo nop >$T/current_tracer
	: >$T/set_ftrace_filter
	echo "$_prof_tail" >$T/options/funcgraph-tail
	echo "$_prof_kb" >$T/buffer_size_kb
	echo "$_prof_on" >$T/tracing_on
}

# attach_btfinline ROUND: trace's attach of every place of $fn (the
# lines of /tmp/hot.txt), alone, arming each kprobe, then its detach;
# _att is the attach's seconds as trace says them.
attach_btfinline() {
	attach_profile_start
	t0=$(now)
	trace_start_piped /tmp/ha.json /tmp/ha.err "$fn" --count --json --verbose || return
	t1=$(now)
	attach_profile_stop "btfinline-$1"
	trace_stop /tmp/ha.err
	t2=$(now)
	# trace's own figure of its attach, how many places it attached last
	# because they fired often meanwhile, and the hits while attaching
	# (its --verbose line).
	_att=$(sed -n 's/^Attached [0-9]* places of [0-9]* probe(s) in \([0-9.]*\) s.*/\1/p' /tmp/ha.err)
	_last=$(sed -n 's/^btfinline trace: \([0-9]*\) places fired often while the others were attached.*/\1/p' /tmp/ha.err)
	_places=$(grep -c . /tmp/hot.txt)
	echo "E2E attach btfinline round=$1 places=$_places start-to-attached=$(secs "$t0" "$t1") stop-to-exit=$(secs "$t1" "$t2") attach=$_att attached-last=${_last:-0}"
	_h=$(sed -n 's/^btfinline trace: \([0-9]*\) hits at \([0-9]*\) places while attaching, the most \([0-9]*\) at \(.*\)/total=\1 places-hit=\2 most=\3 at=\4/p' /tmp/ha.err)
	_sw=$(sed -n 's/^btfinline trace: \([0-9]*\) context switches of its threads while attaching.*/\1/p' /tmp/ha.err)
	echo "E2E attach hits-attaching round=$1 switches=${_sw:-0} ${_h:-total=0 places-hit=0 most=0 at=none}"
	# Each context switch of trace's threads runs the scheduler code
	# that holds the hottest places: a Go system call of a registration's
	# length cost 13 to 17 a place on one CPU. Raw calls leave the
	# runtime's monitor, which wakes at most 100 times a second while a
	# goroutine runs (two switches each), and what the kernel does per
	# place (arm64 patches text under stop_machine): at most 3 a place
	# and 250 a second of the attach (docs/trace.md, "What attaching
	# costs").
	expect "attach round $1 within 3 context switches a place and 250 a second" "$(awk -v s="$_sw" -v p="$_places" -v t="$_att" 'BEGIN { print (s != "" && t != "" && s <= 3 * p + 250 * t) ? "yes" : "no: " s " for " p " places in " t " s" }')" yes
	case $1 in 1) kprobes_left attach ;; *) kprobes_left again ;; esac
}

# attach_kprobe_events ROUND: the same places through kprobe_events,
# defined (one write each) and enabled (armed in one pass); _k is the
# seconds of both.
attach_kprobe_events() {
	attach_profile_start
	t0=$(now)
	e2e-guest register /tmp/hot.txt
	t1=$(now)
	echo 1 >$T/events/inline/enable
	t2=$(now)
	attach_profile_stop "kprobe_events-$1"
	_k=$(secs "$t0" "$t2")
	_kdef=$(secs "$t0" "$t1") _ken=$(secs "$t1" "$t2")
}

# least N...: the smallest of the numbers given, the empty ones (a
# figure a round did not print) left out; empty when all are.
least() {
	printf '%s\n' "$@" | awk 'NF && (m == "" || $1 + 0 < m + 0) { m = $1 } END { print m }'
}

# kprobe_events_remove ROUND: disable and remove attach_kprobe_events'
# probes, and say its seconds.
kprobe_events_remove() {
	t3=$(now)
	echo 0 >$T/events/inline/enable
	t4=$(now)
	echo >$T/kprobe_events
	t5=$(now)
	echo "E2E attach kprobe_events round=$1 define=$_kdef enable=$_ken disable=$(secs "$t3" "$t4") remove=$(secs "$t4" "$t5")"
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
	# Ours first, alone: attach (arming every kprobe) and detach; with
	# E2E_KEEP_OPT=1 again with kprobe jump optimization left on.
	if [ "${E2E_KEEP_OPT:-0}" = 1 ]; then
		t0=$(now)
		trace_start /tmp/hk.json /tmp/hk.err "$fn" --count --json --keep-optprobes || return
		t1=$(now)
		trace_stop /tmp/hk.err
		t2=$(now)
		echo "E2E attach btfinline-keep-optprobes places=$(grep -c . /tmp/hot.txt) start-to-attached=$(secs "$t0" "$t1") stop-to-exit=$(secs "$t1" "$t2")"
	fi
	# Three rounds, ours then theirs each time: the host's load moves
	# between the measurements (two guests share two cores in make
	# test), and the best of each side's three is compared.
	attach_btfinline 1 || return
	_a1=$_att
	# How the hits from the attach to the stop spread over the places:
	# their sum, how many places fired, the ten largest, and how few
	# places hold half.
	tail -n 1 /tmp/ha.json | sed 's/"callers":.*//' | grep -o '"hits":[0-9]*' | sed 's/"hits"://' | sort -rn | awk '
		{ a[NR] = $1; s += $1; if ($1 > 0) h++ }
		END {
			printf "E2E attach hits total=%d places-hit=%d top=", s, h
			for (i = 1; i <= 10 && i <= NR; i++) printf "%s%d", (i > 1 ? "," : ""), a[i]
			for (i = 1; i <= NR && s > 0; i++) { q += a[i]; if (2 * q >= s) break }
			printf " half-in=%d\n", (s > 0 ? i : 0)
		}'
	attach_kprobe_events 1
	_k1=$_k
	# The comparison, on the same events.
	echo 0 >$KP/enabled
	t3=$(now)
	trace_start /tmp/hp.json /tmp/hp.err "$fn" --count --json || return
	t4=$(now)
	echo "E2E attach btfinline-disarmed places=$(grep -c . /tmp/hot.txt) start-to-attached=$(secs "$t3" "$t4")"
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
	kprobe_events_remove 1
	# Each side's seconds of every round, one after another (a round
	# whose attach printed none adds nothing).
	_as=$_a1 _ks=$_k1
	for _r in 2 3; do
		attach_btfinline $_r || return
		_as="$_as $_att"
		attach_kprobe_events $_r
		_ks="$_ks $_k"
		kprobe_events_remove $_r
	done
	# trace's attach against kprobe_events' define and enable, the best
	# of each side's three in this boot: no slower, within a quarter for
	# the host's noise (E2E_SELFTEST=6 makes trace's read four times
	# theirs).
	# shellcheck disable=SC2086
	_a=$(least $_as)
	# shellcheck disable=SC2086
	_k=$(least $_ks)
	[ "$E2E_SELFTEST" = 6 ] && _a=$(awk -v k="$_k" 'BEGIN { print 4 * k }')
	echo "E2E attach best btfinline=$_a kprobe_events=$_k ratio=$(awk -v a="$_a" -v k="$_k" 'BEGIN { printf "%.2f", a / k }')"
	expect "attach within 1.25 times kprobe_events" "$(awk -v a="$_a" -v k="$_k" 'BEGIN { print (a != "" && a <= 1.25 * k) ? "yes" : "no: " a " s against " k " s" }')" yes
	# E2E_SELFTEST=1: one kprobe_profile count off by one.
	if [ "$E2E_SELFTEST" = 1 ]; then
		awk '!done && $2 > 0 { $2 = $2 + 1; done = 1 } 1' /tmp/prof1 >/tmp/p && mv /tmp/p /tmp/prof1
	fi
	e2e-guest countcheck /tmp/prof0 /tmp/prof1 /tmp/hp.json
	kprobes_left vmlinux
	# E2E_HOT_EVENTS=1: every event of one process's work, none lost.
	[ "${E2E_HOT_EVENTS:-0}" = 1 ] || return
	rm -f /tmp/go; mkfifo /tmp/go
	( read -r _ </tmp/go; exec ls -lR /sys/class /proc/self >/dev/null 2>&1 ) &
	wpid=$!
	trace_start /tmp/hv.json /tmp/hv.err "$fn" --json --pid "$wpid" || return
	echo go >/tmp/go
	wait "$wpid"
	trace_stop /tmp/hv.err
	echo "E2E hot events $(grep -c '"func"' /tmp/hv.json) of pid $wpid"
	kprobes_left vmlinux-events
}

# Faults leave nothing behind: btfinline trace killed with SIGKILL at
# seeded moments of its attach, event loop and detach (over 64 places, so
# that it pauses kprobe jump optimization); after each the sysctl, the
# kprobes, the BPF programs and maps are as before, no record and no
# watchdog is left, and the next trace attaches every place. x86-64 only:
# arm64 has no jump optimization to pause. E2E_SELFTEST=4 leaves something
# behind after three of the kills (the sysctl, a map, a kprobe): the run
# must fail.
trace_faults() {
	[ "$(uname -m)" = x86_64 ] || return 0
	[ "${E2E_FAULTS:-21}" != 0 ] || return 0
	_st=""
	[ "$E2E_SELFTEST" = 4 ] && _st=-selftest
	# shellcheck disable=SC2086
	e2e-guest faults -n "${E2E_FAULTS:-21}" -seed "$E2E_SEED" $_st -btfinline "$BTFINLINE" "${E2E_FAULTS_FUNC:-i_size_read}"
	kprobes_left faults
}

# perf_define TAG: every line of /tmp/perf.sh (perf probe commands) run
# by Debian's perf, each refusal and the count printed as "E2E TAG ...";
# sets ok and bad. perf finds a module's symbols in its file under
# /lib/modules, where the test module is put first.
perf_define() {
	mkdir -p "/lib/modules/$(uname -r)/extra"
	cp /e2e/btfi_e2e.ko "/lib/modules/$(uname -r)/extra/"
	ok=0 bad=0
	while read -r line; do
		if eval "$line" >/tmp/perf.out 2>&1; then ok=$((ok + 1)); else
			bad=$((bad + 1))
			echo "E2E $1 refused: $line"
			sed "s/^/E2E $1-said /" /tmp/perf.out | head -5
		fi
	done </tmp/perf.sh
	echo "E2E $1 lines=$(wc -l </tmp/perf.sh) accepted=$ok refused=$bad"
}

# trace_perf_values: resolve's --format perf lines for every function of
# the module, given to Debian's perf in this guest (x86-64: the host's
# binary); perf records the events it defined, with the printk console
# events, while the module is triggered, and every argument value perf
# script prints is compared with the printk truth as the run's own
# kprobes are (e2e-guest check, its lines tagged "peer perf"). A line
# perf refuses fails the run (the host checks "refused=0").
trace_perf_values() {
	command -v perf >/dev/null || return 0
	for f in $E2E_FUNCS; do
		"$BTFINLINE" resolve "$f" /e2e/btfi_e2e.inline -B /sys/kernel/btf/vmlinux -B /e2e/btfi_e2e.ko --running --format perf | grep '^perf probe'
	done >/tmp/perf.sh
	# E2E_SELFTEST=5: the first register fetch of perf's first line reads
	# %sp instead; the host must find perf's values wrong.
	if [ "$E2E_SELFTEST" = 5 ]; then
		awk '!done && sub(/=%[a-z0-9]+:/, "=%sp:") { done = 1 } 1' /tmp/perf.sh >/tmp/p && mv /tmp/p /tmp/perf.sh
	fi
	perf_define "peer perf"
	# What perf defined, in the kernel's words: the checker's types.
	grep '^p:inline/' $T/kprobe_events >/tmp/perf-defs.txt
	perf record -q -o /tmp/perf.data -a -e printk:console -e 'inline:*' -- \
		sh -c "for n in $E2E_TRIGGERS; do echo \$n >/proc/btfi_e2e; done" >/tmp/perf-rec.out 2>&1 ||
		sed 's/^/E2E peer perf-said record: /' /tmp/perf-rec.out | head -5
	perf script -i /tmp/perf.data >/tmp/perf-script.txt 2>/tmp/perf-script.err ||
		sed 's/^/E2E peer perf-said script: /' /tmp/perf-script.err | head -5
	echo "E2E peer perf recorded $(grep -c 'inline:' /tmp/perf-script.txt) events, $(grep -c 'console:' /tmp/perf-script.txt) printk lines"
	grep -m 2 'inline:' /tmp/perf-script.txt | sed 's/^ */E2E peer perf-line /'
	grep -m 1 'console:' /tmp/perf-script.txt | sed 's/^ */E2E peer perf-line /'
	e2e-guest check -tag "peer perf" /tmp/perf-defs.txt /tmp/perf-script.txt | grep -v '^E2E peer perf match '
	perf probe -q -d 'inline:*' >/dev/null 2>&1 || echo >$T/kprobe_events
	rm -f /tmp/perf.data
	kprobes_left peer-perf
}

# trace_bpftrace_values: resolve's --format bpftrace lines for every
# function of the module, run by Debian's bpftrace (x86-64: the host's,
# on the run's second disk) while the module is triggered. bpftrace also
# prints the printk console lines, in the same stream (one CPU: in the
# order they happened), and every value it prints is compared with the
# printk truth by the run's own checker (e2e-guest check -bpftrace, its
# lines tagged "peer bpftrace"). The host fails the run unless bpftrace
# attached every line, every place fired and every value matched.
trace_bpftrace_values() {
	[ "${E2E_PEER_BPFTRACE:-0}" = 1 ] || return 0
	mkdir -p /peers
	_i=0
	while [ ! -b /dev/nvme0n1 ] && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
	mount -t ext4 -o ro /dev/nvme0n1 /peers || { echo "E2E error peers' disk: not mounted"; return; }
	: >/tmp/btv.bt
	: >/tmp/btv-defs.txt
	for f in $E2E_FUNCS; do
		"$BTFINLINE" resolve "$f" /e2e/btfi_e2e.inline -B /sys/kernel/btf/vmlinux -B /e2e/btfi_e2e.ko --running --format bpftrace | grep '^kprobe:' >>/tmp/btv.bt
		"$BTFINLINE" resolve "$f" /e2e/btfi_e2e.inline -B /sys/kernel/btf/vmlinux -B /e2e/btfi_e2e.ko --running --format kprobe | grep '^p:' >>/tmp/btv-defs.txt
	done
	_n=$(grep -c . /tmp/btv.bt)
	# E2E_SELFTEST=7: the first register bpftrace reads is %sp instead;
	# the host must find bpftrace's values wrong.
	if [ "$E2E_SELFTEST" = 7 ]; then
		awk '!done && sub(/reg\("[a-z0-9]+"\)/, "reg(\"sp\")") { done = 1 } 1' /tmp/btv.bt >/tmp/p && mv /tmp/p /tmp/btv.bt
	fi
	echo 'tracepoint:printk:console { printf("console: %s\n", str(args->msg)); }' >>/tmp/btv.bt
	_lp=/peers/lib/x86_64-linux-gnu:/peers/usr/lib/x86_64-linux-gnu
	t0=$(now)
	BPFTRACE_STRLEN=200 /peers/lib64/ld-linux-x86-64.so.2 --library-path "$_lp" /peers/bin/bpftrace /tmp/btv.bt >/tmp/btv.out 2>&1 &
	bp=$!
	# Attached when every kprobe is in the kernel's list ("SYM+OFF MOD").
	_i=0
	while _att=$(awk '$4 == "btfi_e2e" { n++ } END { print n + 0 }' $KP/list) && [ "$_att" -lt "$_n" ] &&
		kill -0 $bp 2>/dev/null && [ $_i -lt 1500 ]; do sleep 0.2; _i=$((_i + 1)); done
	echo "E2E peer bpftrace attached=$_att of $_n after $(secs "$t0" "$(now)") s"
	# The tracepoint is attached last.
	_i=0
	while ! grep -q '^Attaching' /tmp/btv.out && kill -0 $bp 2>/dev/null && [ $_i -lt 100 ]; do sleep 0.2; _i=$((_i + 1)); done
	sleep 2
	for n in $E2E_TRIGGERS; do echo "$n" >/proc/btfi_e2e; done
	# bpftrace reads its printf events asynchronously: let it.
	sleep 3
	kill -INT $bp 2>/dev/null
	wait $bp
	_rc=$?
	echo "E2E peer bpftrace lines=$_n accepted=$_att refused=$((_n - _att)) exit=$_rc events=$(grep -c '^btfi_' /tmp/btv.out) printk=$(grep -c '^console: btfi: fn=' /tmp/btv.out)"
	grep -v '^btfi_\|^console: \|^$' /tmp/btv.out | head -20 | sed 's/^/E2E peer bpftrace-said /'
	grep -m 2 '^btfi_' /tmp/btv.out | sed 's/^/E2E peer bpftrace-line /'
	# bpftrace's str() keeps 200 bytes: btfi_frame's printk of 16 values
	# is taken whole from the kernel log.
	dmesg >/tmp/btv-dmesg.txt
	e2e-guest check -tag "peer bpftrace" -bpftrace /tmp/btv.bt -dmesg /tmp/btv-dmesg.txt /tmp/btv-defs.txt /tmp/btv.out | grep -v '^E2E peer bpftrace match '
	umount /peers
	kprobes_left peer-bpftrace
}

# E2E_PEERS=1: resolve's --format perf and --format bpftrace lines for the
# module, run by Debian's perf and bpftrace in this guest while the module
# is triggered: does the tool accept each line, and do the probes fire?
trace_peers() {
	for f in btfi_add3 btfi_konst btfi_frame; do
		"$BTFINLINE" resolve "$f" /e2e/btfi_e2e.inline -B /sys/kernel/btf/vmlinux -B /e2e/btfi_e2e.ko --running --format perf | grep '^perf probe'
	done >/tmp/perf.sh
	"$BTFINLINE" resolve get_cred --running --format perf | grep '^perf probe' | head -n 4 >>/tmp/perf.sh
	perf_define "peers perf"
	expect "peers perf: lines refused" "$bad" 0
	if [ $ok -gt 0 ]; then
		echo >$T/trace
		echo 1 >$T/events/inline/enable
		echo 1 >$T/tracing_on
		for n in $E2E_TRIGGERS; do echo "$n" >/proc/btfi_e2e; done
		ls / >/dev/null
		echo 0 >$T/events/inline/enable
		echo "E2E peers perf hits module=$(grep -c ': btfi_' $T/trace) vmlinux=$(grep -c ': get_cred_' $T/trace)"
		# Each module line fires once a trigger.
		expect "peers perf: module hits" "$(grep -c ': btfi_' $T/trace)" "$(($(grep -c ' btfi_e2e' /tmp/perf.sh) * $(echo $E2E_TRIGGERS | wc -w)))"
		grep ': btfi_\|: get_cred_' $T/trace | head -4 | sed 's/^/E2E peers perf-hit /'
		perf probe -q -d 'inline:*' >/dev/null 2>&1 || echo >$T/kprobe_events
	fi
	for f in btfi_add3 btfi_konst; do
		"$BTFINLINE" resolve "$f" /e2e/btfi_e2e.inline -B /sys/kernel/btf/vmlinux -B /e2e/btfi_e2e.ko --running --format bpftrace | grep '^kprobe:'
	done >/tmp/bt.bt
	"$BTFINLINE" resolve get_cred --running --format bpftrace | grep '^kprobe:' | head -n 4 >>/tmp/bt.bt
	# bpftrace's own kstack at the same module place, and at get_cred's.
	sed -n 's/^\(kprobe:btfi_call_misc+[0-9]*\) .*/\1 { printf("kstack %s\\n", kstack); }/p' /tmp/bt.bt | head -n 1 >/tmp/bts.bt
	sed -n 's/^\(kprobe:[^ ]*\) { printf("get_cred_.*/\1 { printf("kstack %s\\n", kstack); }/p' /tmp/bt.bt | head -n 1 >>/tmp/bts.bt
	cat /tmp/bts.bt >>/tmp/bt.bt
	echo 'interval:s:20 { exit(); }' >>/tmp/bt.bt
	bpftrace /tmp/bt.bt >/tmp/bt.out 2>&1 &
	bp=$!
	_i=0
	while ! grep -q '^Attaching' /tmp/bt.out && kill -0 $bp 2>/dev/null && [ $_i -lt 600 ]; do sleep 0.2; _i=$((_i + 1)); done
	# "Attaching" comes before the probes are: give them time.
	sleep 8
	for n in $E2E_TRIGGERS; do echo "$n" >/proc/btfi_e2e; done
	ls / >/dev/null
	# bpftrace reads its printf events asynchronously: let it.
	sleep 3
	kill -INT $bp 2>/dev/null
	wait $bp
	_rc=$?
	echo "E2E peer bpftrace exit $_rc lines=$(grep -c '^kprobe:' /tmp/bt.bt) module=$(grep -c '^btfi_' /tmp/bt.out) (of $(($(grep -c '^kprobe:btfi_.*printf("btfi_' /tmp/bt.bt) * $(echo $E2E_TRIGGERS | wc -w)))) vmlinux=$(grep -c '^get_cred_' /tmp/bt.out)"
	expect "peer bpftrace: exit, module lines that fired" "$_rc $([ "$(grep -c '^btfi_' /tmp/bt.out)" -gt 0 ] && echo y)" "0 y"
	grep -v '^btfi_\|^get_cred_' /tmp/bt.out | head -40 | sed 's/^/E2E peer bpftrace-said /'
	grep '^btfi_\|^get_cred_' /tmp/bt.out | head -4 | sed 's/^/E2E peer bpftrace-hit /'
	kprobes_left peers
}

# trace_readme README RESULTS COLUMN: run on the host after the guest, an
# error line for each figure of README's "btfinline trace" table that this
# run's results do not reproduce (COLUMN 3: x86-64, 4: arm64): the module's
# values and events, and the places of __list_del_entry when it was the
# hot function. Timings and hit counts differ from run to run; these do not.
trace_readme() {
	_row() { grep "^| $1" "$2" | awk -F'|' -v c="$3" '{ sub(/^ /, "", $c); print $c }'; }
	_ts=$(grep '^E2E trace summary' "$2")
	_v() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<EOT
$_ts
EOT
	}
	_got="$(_v matched) of $(_v checked)"
	case "$(_row "the module's ten functions" "$1" "$3")" in "$_got"|"$_got "*) ;;
	*) echo "E2E error README: module values '$(_row "the module's ten functions" "$1" "$3")', this run: $_got" ;; esac
	_lost=$(grep -E '^E2E trace-stderr [0-9]+ hits, [0-9]+ events, [0-9]+ lost' "$2" | head -n 1 | sed 's/.* \([0-9]*\) lost.*/\1/')
	_got="$(_v events) for $(_v calls), $_lost"
	[ "$(_row "events for calls, lost" "$1" "$3")" = "$_got " ] ||
		echo "E2E error README: events '$(_row "events for calls, lost" "$1" "$3")', this run: $_got"
	if grep -q '^E2E hot __list_del_entry ' "$2"; then
		_got=$(sed -n 's/^E2E count summary places=\([0-9]*\) .*/\1/p' "$2" | tail -n 1 | awk '$1 >= 1000 { printf "%d,%03d", $1 / 1000, $1 % 1000; next } { print $1 }')
		case "$(_row '`__list_del_entry`: places attached' "$1" "$3")" in "$_got:"*) ;;
		*) echo "E2E error README: __list_del_entry places '$(_row '`__list_del_entry`: places attached' "$1" "$3")', this run: $_got" ;; esac
	fi
}

# trace_rmmod: the traced module removed while trace runs (the last check
# that needs the module). Its places go and trace says so; the vmlinux
# places go on counting, and trace exits cleanly at the end.
trace_rmmod() {
	trace_start /tmp/rm.json /tmp/rm.err btfi_e2e:btfi_add3 get_cred --running --count --json || return
	for n in $E2E_TRIGGERS; do echo "$n" >/proc/btfi_e2e; done
	rmmod btfi_e2e || echo "E2E error rmmod btfi_e2e failed while btfinline trace ran"
	_i=0
	while ! grep -q '^btfinline trace: module btfi_e2e was removed' /tmp/rm.err && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	_before=$(grep -c . $KP/list)
	ls / >/dev/null
	trace_stop /tmp/rm.err
	echo "E2E trace module-removed kprobes-at-removal=$_before $(tail -n 1 /tmp/rm.json | cut -c1-200)"
	expect "module removed while tracing: said, its hits kept, vmlinux places go on" \
		"$(grep -c '^btfinline trace: module btfi_e2e was removed: its 2 places are gone, [1-9][0-9]* places go on$' /tmp/rm.err) $(func_hits /tmp/rm.json btfi_add3) $([ "$(func_hits /tmp/rm.json get_cred)" -gt 0 ] && echo y)" \
		"1 $(tail -n 1 /tmp/trc.json | sed -n 's/.*"total":\([0-9]*\).*/\1/p') y"
	kprobes_left rmmod
}

# trace_flood: an event flood (E2E_FLOOD calls of btfi_hot, default 2
# million, every event printed) on x86-64; 10 million cost about 150 s
# of a run under TCG. The ring buffer's losses are counted and said: hits = events + lost, exactly, and hits = calls. The
# process' peak memory stays bounded (its VmHWM may grow by the ring
# buffer's pages at most: 32 MiB). --count's counts stay exact: they do
# not go through the ring buffer.
trace_flood() {
	[ "$(uname -m)" = x86_64 ] || return 0
	_n=${E2E_FLOOD:-2000000}
	trace_start /dev/null /tmp/fl.err btfi_e2e:btfi_hot --running || return
	_hwm0=$(awk '/^VmHWM/ { print $2 }' "/proc/$TRACE_PID/status")
	_ns=$(loop_ns "$_n")
	sleep 1
	_hwm1=$(awk '/^VmHWM/ { print $2 }' "/proc/$TRACE_PID/status")
	# Not trace_stop: its stderr line with losses would count as a lost
	# event of the checked runs.
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID"
	_rc=$?
	TRACE_PID=""
	_l=$(grep -E '^[0-9]+ hits, [0-9]+ events, [0-9]+ lost' /tmp/fl.err)
	_hits=${_l%% hits*} _ev=$(echo "$_l" | sed 's/.* hits, \([0-9]*\) events.*/\1/') _lost=$(echo "$_l" | sed 's/.* events, \([0-9]*\) lost.*/\1/')
	echo "E2E flood n=$_n loop_ns=$_ns exit=$_rc hits=$_hits events=$_ev lost=$_lost vmhwm_kib=$_hwm0,$_hwm1"
	trace_start /tmp/flc.json /tmp/flc.err btfi_e2e:btfi_hot --running --count --json || return
	loop_ns "$_n" >/dev/null
	trace_stop /tmp/flc.err
	expect "flood: exit 0, hits = calls = events + lost, losses said, memory bounded, counts exact" \
		"$_rc $_hits $((_ev + _lost)) $([ "${_lost:-0}" -gt 0 ] && echo lost) $([ $((_hwm1 - _hwm0)) -le 32768 ] && echo bounded) $(tail -n 1 /tmp/flc.json | sed -n 's/.*"total":\([0-9]*\).*/\1/p')" \
		"0 $_n $_n lost bounded $_n"
	kprobes_left flood
}

# trace_fdlimit: a hard limit on open files too low for the places (one
# link each): trace raises the soft limit itself, and with the hard one
# too low it says so before attaching anything. fs.nr_open caps even
# root's hard limit, which root could raise again otherwise.
trace_fdlimit() {
	_f=${E2E_HOT:-__list_del_entry}
	_nro=$(cat /proc/sys/fs/nr_open)
	echo 1024 >/proc/sys/fs/nr_open
	( ulimit -Hn 1024 && "$BTFINLINE" trace "$_f" >/dev/null 2>/tmp/fd.err )
	_rc=$?
	echo "$_nro" >/proc/sys/fs/nr_open
	sed 's/^/E2E trace-stderr fdlimit /' /tmp/fd.err | head -n 3
	expect "hard file limit too low: said before attaching" \
		"$_rc $(grep -c 'places need [0-9]* open files (one per place and 256 more), and the hard limit is 1024: raise it' /tmp/fd.err) $(grep -c . $KP/list)" "1 1 0"
}

# trace_many: 10,000 places and more at once (E2E_MANY_FUNCS, functions
# of code this guest does not run: ext4, zstd, networking, KVM; set by
# run.sh for arm64 6.12 only, whose run ends first), started with the
# soft and hard limits on open files below what they need: trace raises
# both (it runs as root, under fs.nr_open) and attaches every place; its
# soft limit is then one file per place and 256 more, and after the stop
# no kprobe is left.
trace_many() {
	[ -n "${E2E_MANY_FUNCS:-}" ] || return 0
	# shellcheck disable=SC2086
	( ulimit -Hn 4096 && ulimit -Sn 1024 && exec "$BTFINLINE" trace $E2E_MANY_FUNCS --count --json >/tmp/mn.json 2>/tmp/mn.err ) &
	TRACE_PID=$!
	t0=$(now)
	_i=0
	while ! grep -q '^Attached' /tmp/mn.err 2>/dev/null && kill -0 "$TRACE_PID" 2>/dev/null && [ $_i -lt 3000 ]; do sleep 0.1; _i=$((_i + 1)); done
	t1=$(now)
	_n=$(sed -n 's/^Attached \([0-9]*\) places.*/\1/p' /tmp/mn.err)
	_kp=$(grep -c . $KP/list)
	_soft=$(awk '/^Max open files/ { print $4 }' /proc/$TRACE_PID/limits 2>/dev/null)
	_fds=$(ls /proc/$TRACE_PID/fd 2>/dev/null | wc -l)
	trace_stop /tmp/mn.err
	t2=$(now)
	echo "E2E trace many places=${_n:-0} kprobes=$_kp soft-limit=$_soft fds=$_fds attach=$(secs "$t0" "$t1") stop-to-exit=$(secs "$t1" "$t2")"
	expect "10,000 places at once: all attached, the file limit raised" \
		"$([ "${_n:-0}" -ge 10000 ] && echo y) $([ "$_kp" = "${_n:-0}" ] && echo y) $([ "${_soft:-0}" -ge "$((${_n:-0} + 256))" ] && echo y) $([ "$_fds" -gt "${_n:-0}" ] && echo y)" "y y y y"
	kprobes_left many
}

# trace_follow: --follow-modules, after trace_rmmod (the module is not
# loaded). trace starts with the module away and waits for it (get_cred's
# vmlinux places go on meanwhile); each insmod attaches btfi_add3's two
# places, its inline BTF found by build id in the guest's cache, every
# trigger fires each once, and each rmmod detaches them and trace waits
# again: two rounds. bpftrace and perf cannot do this.
trace_follow() {
	[ -d /sys/module/btfi_e2e ] && rmmod btfi_e2e
	trace_start /tmp/tf.json /tmp/tf.err btfi_e2e:btfi_add3 get_cred --running --count --json --follow-modules || return
	for _r in 1 2; do
		insmod /e2e/btfi_e2e.ko || echo "E2E error insmod btfi_e2e failed under trace --follow-modules"
		_i=0
		while [ "$(grep -c '^btfinline trace: module btfi_e2e was loaded: ' /tmp/tf.err)" -lt $_r ] && [ $_i -lt 1200 ]; do sleep 0.1; _i=$((_i + 1)); done
		for n in $E2E_TRIGGERS; do echo "$n" >/proc/btfi_e2e; done
		rmmod btfi_e2e || echo "E2E error rmmod btfi_e2e failed under trace --follow-modules"
		_i=0
		while [ "$(grep -c '^btfinline trace: module btfi_e2e was removed: ' /tmp/tf.err)" -lt $_r ] && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
	done
	ls / >/dev/null
	trace_stop /tmp/tf.err
	_n=$(echo $E2E_TRIGGERS | wc -w)
	# E2E_SELFTEST=6: one round fewer counted, the check must fail.
	[ "$E2E_SELFTEST" = 6 ] && _n=$((_n / 2))
	expect "follow-modules: waited, attached and detached twice, every hit counted, vmlinux places go on" \
		"$(grep -c '^btfinline trace: waiting for module(s) btfi_e2e to be loaded$' /tmp/tf.err) $(grep -c '^btfinline trace: module btfi_e2e was loaded: 2 places of 1 probe(s) attached (0 skipped)$' /tmp/tf.err) $(grep -c '^btfinline trace: module btfi_e2e was removed: its 2 places are gone, [1-9][0-9]* places go on; waiting for it to be loaded again$' /tmp/tf.err) $(func_hits /tmp/tf.json btfi_add3) $([ "$(func_hits /tmp/tf.json get_cred)" -gt 0 ] && echo y)" \
		"1 2 2 $((4 * _n)) y"
	kprobes_left follow
}

# trace_api_example: examples/sitecount, the public Go API's example,
# attaches its own BPF program at every inline site of btfi_add3 (two
# callers) while the module runs every trigger: each site is hit once a
# trigger, and the arguments of its last hit, computed from the API's
# fetches and the pt_regs words the program kept, are the last trigger's
# printk values. E2E_SELFTEST=6 asks it for a function the module lacks:
# the host must see the check fail.
trace_api_example() {
	command -v sitecount >/dev/null || { echo "E2E error api example: no sitecount in the guest"; return; }
	_fn=btfi_add3
	[ "$E2E_SELFTEST" = 6 ] && _fn=btfi_add3x
	rm -f /tmp/sc.ready
	sitecount -inline /e2e/btfi_e2e.inline -ready /tmp/sc.ready btfi_e2e $_fn >/tmp/sc.out 2>/tmp/sc.err &
	_pid=$!
	_i=0
	while [ ! -e /tmp/sc.ready ] && kill -0 $_pid 2>/dev/null && [ $_i -lt 600 ]; do sleep 0.1; _i=$((_i + 1)); done
	dmesg -c >/dev/null
	for n in $E2E_TRIGGERS; do echo "$n" >/proc/btfi_e2e; done
	kill -INT $_pid 2>/dev/null
	wait $_pid
	_rc=$?
	sed 's/^/E2E api example-said /' /tmp/sc.err | head -5
	sed 's/^/E2E api example-line /' /tmp/sc.out
	expect "api example: exit, sites" "$_rc $(grep -c . /tmp/sc.out)" "0 2"
	expect "api example: hits of each site" "$(sed -n 's/.* hits=\([0-9]*\).*/\1/p' /tmp/sc.out | sort -u | tr '\n' ' ')" "$(echo $E2E_TRIGGERS | wc -w) "
	# printk's %#llx spells zero "0", Go's %#x "0x0".
	_want=$(dmesg | sed -n 's/.*btfi: fn=btfi_add3 //p' | tail -n 2 | sort | tr '\n' ';')
	_got=$(sed 's/^[^ ]* hits=[0-9]* //; s/=0x0\( \|$\)/=0\1/g' /tmp/sc.out | sort | tr '\n' ';')
	expect "api example: last values" "$_got" "$_want"
	kprobes_left api-example
}
