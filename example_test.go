package btfinline_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/btfinline/btfinline"
)

// The fixture: a small "kernel" linked from internal/resolve/testdata/fixture.c,
// encoded with its .BTF.inline.
const fixture = "internal/resolve/testdata/x86_64.elf"

// Open a kernel image's inline BTF from its file and list the places of
// an inlined function with their arguments.
func ExampleOpen() {
	t, err := btfinline.Open(fixture)
	if err != nil {
		log.Fatal(err)
	}
	places, err := t.Places("cwnd_set")
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range places {
		fmt.Printf("%s %s at %#x", p.Kind, p.Probe, p.Address)
		if p.Refusal != nil {
			fmt.Printf(" (refused: %s)", p.Refusal.Rule)
		}
		fmt.Println()
		for _, a := range p.Args {
			fmt.Printf("  %s (%s): %s\n", a.Name, a.Type, a.Kprobe)
		}
	}
	// Output:
	// inline nmi_handler+0x3 at 0x400113 (refused: blacklist)
	//   sk (struct sock *): %di:x64
	//   val (u32): %si:u32
	// inline disconnect at 0x400140
	//   sk (struct sock *): %di:x64
	//   val (u32): \0xa:u32
	// inline ack+0x7 at 0x400167
	//   sk (struct sock *): %di:x64
	//   val (u32): %ax:u32
	// inline enter_idle at 0x400230 (refused: section)
	//   sk (struct sock *): %di:x64
	//   val (u32): \0x3:u32
	// inline setup at 0x400250 (refused: section)
	//   sk (struct sock *): %di:x64
	//   val (u32): \0x1:u32
}

// List every inline site of an object, with where its parameters are.
func ExampleTarget_Sites() {
	t, err := btfinline.Open(fixture)
	if err != nil {
		log.Fatal(err)
	}
	sites, err := t.Sites()
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range sites[:3] {
		fmt.Printf("%s in %s+%#x:", s.Func, s.Caller, s.CallerOffset)
		for _, p := range s.Params {
			fmt.Printf(" %s=%s", p.Name, p.Location)
		}
		fmt.Println()
	}
	// Output:
	// cwnd_set in nmi_handler+0x3: sk=%di val=%si
	// cwnd_set in disconnect+0x0: sk=%di val=const 0xa
	// cwnd_set in ack+0x7: sk=%di val=%ax
}

// A program reads an argument at a place from its fetch: here the
// pieces a BPF program needs (the offset in struct pt_regs, then an
// optional load).
func ExampleFetch() {
	t, err := btfinline.Open(fixture)
	if err != nil {
		log.Fatal(err)
	}
	places, err := t.Places("cwnd_set")
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range places[:2] {
		fmt.Println(p.Probe)
		for _, a := range p.Args {
			for _, f := range a.Fetch {
				switch {
				case f.Const:
					fmt.Printf("  %s: the constant %d\n", a.Name, f.Value)
				case f.Size > 0:
					fmt.Printf("  %s: %d bytes at pt_regs+%d (%s) %+d\n", a.Name, f.Size, f.PtRegsOffset, f.RegisterName, f.Offset)
				default:
					fmt.Printf("  %s: pt_regs+%d (%s)\n", a.Name, f.PtRegsOffset, f.RegisterName)
				}
			}
		}
	}
	// Output:
	// nmi_handler+0x3
	//   sk: pt_regs+112 (di)
	//   val: pt_regs+104 (si)
	// disconnect
	//   sk: pt_regs+112 (di)
	//   val: the constant 10
}

// Open the running kernel's vmlinux. Root is the host's /; here it is a
// copy of the fixture's /proc/kallsyms and /sys/kernel/btf, so the
// example runs anywhere.
func ExampleOpenRunning() {
	root := fakeHost()
	defer os.RemoveAll(root)
	t, err := btfinline.OpenRunning(context.Background(), "vmlinux", &btfinline.RunningOptions{Root: root})
	if err != nil {
		log.Fatal(err)
	}
	places, err := t.Places("cwnd_set")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(t.Object(), t.Arch(), t.Running(), len(places), "places")
	fmt.Printf("%s at %#x\n", places[0].Probe, places[0].Address)
	// Output:
	// vmlinux x86_64 true 5 places
	// nmi_handler+0x3 at 0x2400113
}

// fakeHost makes a / with the fixture's kernel files.
func fakeHost() string {
	root, err := os.MkdirTemp("", "btfinline-example")
	if err != nil {
		log.Fatal(err)
	}
	for src, dst := range map[string]string{
		"x86_64.kallsyms":   "proc/kallsyms",
		"x86_64.btf":        "sys/kernel/btf/vmlinux",
		"x86_64.inline.btf": "sys/kernel/btf/vmlinux.inline",
	} {
		b, err := os.ReadFile(filepath.Join("internal/resolve/testdata", src))
		if err != nil {
			log.Fatal(err)
		}
		p := filepath.Join(root, dst)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	return root
}
