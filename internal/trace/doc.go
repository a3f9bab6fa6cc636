// Package trace owns "btfinline trace": it turns the places and fetch
// specs package resolve computes for a function into one BPF kprobe
// program per probe, attaches it at every place with a per-site cookie,
// and turns the events the programs send into lines, JSON, counts and
// histograms.
//
// One program serves every site of a probe. The sites differ only in
// where each argument is, so that is data: a spec per site in an array
// map indexed by the attachment's BPF cookie (bpf_get_attach_cookie),
// which the program interprets (a register of pt_regs or a constant, then
// up to MaxSteps "add an offset, load N bytes" steps through
// bpf_probe_read_kernel). Loading one program per probe and attaching it
// N times costs N perf_event_open calls and N BPF links, and no verifier
// run per site. docs/trace.md gives the layouts and the reasons.
//
// It imports resolve (places, fetch specs, kallsyms), btf (types for
// formatting and member paths) and github.com/cilium/ebpf (maps, program
// loading, ring buffer); only cmd imports it.
package trace
