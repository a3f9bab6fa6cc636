package kprobe

// Rule names the kernel's rule behind a refusal (kernel/kprobes.c,
// kernel/trace/trace_kprobe.c and the arch's decoders; docs/inspect.md
// lists them with their sources).
type Rule uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Rule -linecomment -output=rule_string.go

const (
	Allowed     Rule = iota // allowed
	Blacklist               // blacklist
	Section                 // section
	Padding                 // padding
	DeadCode                // dead code
	Notrace                 // notrace
	PatchSite               // patch site
	Instruction             // instruction
)

// Refusal says why a kprobe cannot sit at an address: the rule, and what
// it found there, as the commands print it (Detail). The zero Refusal
// allows the kprobe.
type Refusal struct {
	Rule   Rule
	Detail string
}

// OK reports whether the kprobe is allowed.
func (f Refusal) OK() bool { return f.Rule == Allowed }

// MarshalText spells the refusal in JSON as its detail, which is all the
// commands print.
func (f Refusal) MarshalText() ([]byte, error) { return []byte(f.Detail), nil }

// String is the detail, "" when allowed.
func (f Refusal) String() string { return f.Detail }

// refuse is the refusal of rule with detail, or none when detail is "".
func refuse(rule Rule, detail string) Refusal {
	if detail == "" {
		return Refusal{}
	}
	return Refusal{Rule: rule, Detail: detail}
}
