#!/bin/busybox sh
# /init of the VM of scripts/check-kbuild: the kernel built with the kbuild
# series, which serves its own inline BTF. btfinline runs with --running
# only: /sys/kernel/btf and /proc/kallsyms, no .inline file in the
# initramfs. Results between E2E-BEGIN and E2E-END on the serial console;
# the host turns them into an exit code.
. /e2e/guest.sh
e2e_guest_begin
echo "E2E kernel $(uname -r)"
echo "E2E kaslr _text=$(grep ' _text$' /proc/kallsyms | cut -d' ' -f1)"
for m in $KB_MODULES; do
	insmod "/e2e/$m.ko" || echo "E2E error insmod $m"
done
e2e_trace_start
echo 1 >$T/tracing_on
insmod /e2e/btfi_e2e.ko seed="$E2E_SEED" || echo "E2E error insmod btfi_e2e failed"

# What the kernel serves, for the host to compare with the built files.
echo "E2E btf $(ls /sys/kernel/btf | tr '\n' ' ')"
for f in /sys/kernel/btf/*.inline; do
	[ -f "$f" ] && echo "E2E sysfs ${f##*/} $(wc -c <"$f") $(sha256sum <"$f" | cut -d' ' -f1)"
done
dmesg | grep 'BTF' | sed 's/^/E2E dmesg /'
# For kbuild/README.md: the files as the kernel lists them, and one
# function of vmlinux and one of the test module from --running alone.
ls -l /sys/kernel/btf/vmlinux.inline /sys/kernel/btf/btfi_e2e.inline | sed 's/^/E2E show /'
btfinline resolve btfi_add3 --running --module btfi_e2e 2>&1 | head -n 12 | sed 's/^/E2E show /'

# The sites of vmlinux and of each module from --running: the same lines
# as from the files on the host but for the address column (runtime,
# KASLR-moved, there). --traceable: every site the files keep, and those
# the rules that need the ELF (jump-label, static-call and BUG() sites)
# would drop.
for m in vmlinux $KB_MODULES btfi_e2e; do
	for t in all traceable; do
		opt=""
		[ $t = traceable ] && opt=--traceable
		if ! btfinline sites --running $opt --module "$m" >/tmp/s.txt 2>/tmp/s.err; then
			echo "E2E error sites --running $opt --module $m: $(head -n 3 /tmp/s.err)"
			continue
		fi
		# A module's lines name it after the caller ("[MOD]", as kallsyms
		# does); the files' lines, read from FILE, do not.
		[ "$m" = vmlinux ] || sed -i "s/^\([^ ]* [^ ]*\) \[$m\] /\1 /" /tmp/s.txt
		# Without the address column (KASLR-moved here); vmlinux's address
		# immediates moved too (resolve-check below checks them against
		# the slide). A module's freed init text is left out of the
		# comparison, and counted: its symbols are gone from kallsyms, and
		# no site of it may be called traceable.
		# In the whole list, the site itself (section, function, arguments):
		# which symbol kallsyms (it has no sizes) names a site no ELF
		# symbol covers, and the wording of a refusal, depend on the
		# source of the rules; the traceable list compares them all.
		norm='s/ \[address 0x[0-9a-f]*\]/ [address]/g'
		[ "$m" = vmlinux ] || norm=''
		[ $t = all ] && norm="$norm${norm:+;}"'s/^[^ ]* //; s/ \[notrace: .*\]$//'
		# vmlinux's exit text is freed after boot with its init text, and
		# kallsyms gives no base for it: left out as well.
		freed='^[.]init'
		[ "$m" = vmlinux ] && freed='^[.](init|exit)'
		grep -E '^(0x|\?)' /tmp/s.txt | cut -d' ' -f2- | awk -v f="$freed" '$2 !~ f' | sed "$norm" | sort >/tmp/s.n
		grep '^0x' "/e2e/sites-$t-$m.txt" | cut -d' ' -f2- | awk -v f="$freed" '$2 !~ f' | sed "$norm" | sort >/tmp/h.n
		[ "$m" = vmlinux ] || echo "E2E sites --running $t init $m: $(grep -E '^(0x|\?)' /tmp/s.txt | awk '$3 ~ /^\.init/' | grep -vc '\[notrace: module init text')"' not refused in freed init text'
		# Lines as multisets (busybox has no comm): "+" only --running
		# gives, "-" only the files.
		# (by FILENAME: with NR == FNR an empty h.n would read s.n as h.n)
		awk 'FILENAME == "/tmp/h.n" { h[$0]++; next } { if (h[$0] > 0) h[$0]--; else print "+" $0 }
			END { for (k in h) while (h[k]-- > 0) print "-" k }' /tmp/h.n /tmp/s.n | sort >/tmp/d.n
		echo "E2E sites --running $t $m: $(wc -l </tmp/s.n) sites, $(grep -c '^+' /tmp/d.n) more and $(grep -c '^-' /tmp/d.n) fewer than from the files"
		{ grep '^+' /tmp/d.n | head -n 3; grep '^-' /tmp/d.n | head -n 3; } | sed "s/^/E2E sites-diff $t $m /"
		# What --running says of a site its --traceable drops: the line of
		# the whole list (with its mark) that holds the dropped one.
		[ $t = all ] && cp /tmp/s.txt /tmp/s-all.txt
		if [ $t = traceable ]; then
			grep '^-' /tmp/d.n | head -n 3 | cut -c2- | while read -r l; do
				grep -F -- "$l" /tmp/s-all.txt | head -n 1 | sed "s/^/E2E sites-why $m /"
			done
		fi
	done
done

# vmlinux functions through resolve --running, each line set against the
# host's (e2e/guest.sh: the same, without frame-base arguments, only
# --running, or bad).
e2e_vmlinux_running /e2e/vmlinux-resolve.txt
echo >$T/kprobe_events

# The test module: every site placed by resolve --running, the fetched
# values compared with what the module prints.
: >/tmp/probes.txt
for f in $E2E_FUNCS; do
	btfi_resolve "$f" btfi_e2e >>/tmp/probes.txt || echo "E2E error resolve --running $f"
done
grep '^p:' /tmp/probes.txt >/tmp/p && mv /tmp/p /tmp/probes.txt
e2e_fire_and_check /tmp/probes.txt /tmp/probes.txt
# btfinline trace of the test module from sysfs and kallsyms alone.
. /e2e/trace.sh
TRACE_SRC=--running trace_module
# The module removed under a trace of it and get_cred (this removes it),
# and the hard limit on open files too low for E2E_HOT's places.
trace_rmmod
trace_fdlimit

# The kernel as judge of the sites --traceable kept (a sample).
[ -s /e2e/judge.txt ] && e2e-guest judge -batch 256 -traceable /e2e/judge.txt -textsym _text -text "$KB_LINK_TEXT" /e2e/judge.txt
echo "E2E-END"
# No ACPI in this kernel: a reset ends qemu (-no-reboot).
reboot -f
