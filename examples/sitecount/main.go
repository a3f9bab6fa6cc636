// Command sitecount attaches its own BPF program to every inline site of
// a kernel function through the btfinline API, and when it stops prints
// each site's hits and the arguments of its last hit that sit in
// registers or are constants.
//
//	sudo sitecount [-inline FILE] [-for 10s] OBJECT FUNC
//
// OBJECT is vmlinux or a loaded module. The program is the same at every
// site: it counts by the site's cookie and keeps the pt_regs words that
// the sites' fetches read, at offsets fixed when it is built, which is
// all a kprobe program may read of its context. The arguments are then
// computed in user space from the fetches. It uses only the public
// package github.com/btfinline/btfinline and cilium/ebpf.
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/btfinline/btfinline"
	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

func main() {
	inline := flag.String("inline", "", "the object's .BTF.inline from this file, for a kernel that publishes none")
	dur := flag.Duration("for", 0, "stop after this long (default: at SIGINT or SIGTERM)")
	ready := flag.String("ready", "", "create this file once attached (for scripts)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: sitecount [-inline FILE] [-for DURATION] [-ready FILE] OBJECT FUNC")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Arg(1), *inline, *dur, *ready); err != nil {
		fmt.Fprintln(os.Stderr, "sitecount:", err)
		os.Exit(1)
	}
}

func run(object, fn, inline string, dur time.Duration, ready string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	t, err := btfinline.OpenRunning(ctx, object, &btfinline.RunningOptions{Inline: inline})
	if err != nil {
		return err
	}
	places, err := t.Places(fn)
	if err != nil {
		return err
	}
	sites := slices.DeleteFunc(places, func(p btfinline.Place) bool { return p.Kind != btfinline.Inline })
	if len(sites) == 0 {
		return fmt.Errorf("%s has no inline sites in %s", fn, object)
	}
	// The pt_regs words any site's fetches start from, each kept in a
	// slot of the site's map value after its hit count.
	var words []int
	for _, p := range sites {
		for _, a := range p.Args {
			for _, f := range a.Fetch {
				if !f.Const && !slices.Contains(words, f.PtRegsOffset) {
					words = append(words, f.PtRegsOffset)
				}
			}
		}
	}
	slices.Sort(words)
	m, err := ebpf.NewMap(&ebpf.MapSpec{Name: "sitecount", Type: ebpf.Array, KeySize: 4,
		ValueSize: uint32(8 * (1 + len(words))), MaxEntries: uint32(len(sites))})
	if err != nil {
		return err
	}
	defer m.Close()
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Name: "sitecount", Type: ebpf.Kprobe, License: "GPL", Instructions: program(m.FD(), words)})
	if err != nil {
		return err
	}
	defer prog.Close()
	links, err := btfinline.Attach(prog, sites)
	if err != nil {
		return err
	}
	defer links.Close()
	fmt.Fprintf(os.Stderr, "sitecount: attached at %d of %d inline sites of %s in %s\n", len(links.Attached()), len(sites), fn, object)
	for i, err := range links.Failed() {
		fmt.Fprintf(os.Stderr, "sitecount: not at %s: %v\n", sites[i].Probe, err)
	}
	if ready != "" {
		if err := os.WriteFile(ready, nil, 0o644); err != nil {
			return err
		}
	}
	if dur > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, dur)
		defer cancel()
	}
	<-ctx.Done()
	links.Close()
	return report(m, sites, words)
}

// program counts a hit at the site of its cookie and keeps the pt_regs
// words at offsets words.
func program(mapFD int, words []int) asm.Instructions {
	insns := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		asm.FnGetAttachCookie.Call(),
		asm.StoreMem(asm.RFP, -4, asm.R0, asm.Word),
		asm.LoadMapPtr(asm.R1, mapFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "exit"),
		asm.Mov.Reg(asm.R7, asm.R0),
		asm.Mov.Imm(asm.R1, 1),
		asm.StoreXAdd(asm.R7, asm.R1, asm.DWord),
	}
	for i, off := range words {
		insns = append(insns,
			asm.LoadMem(asm.R1, asm.R6, int16(off), asm.DWord),
			asm.StoreMem(asm.R7, int16(8+8*i), asm.R1, asm.DWord))
	}
	return append(insns, asm.Mov.Imm(asm.R0, 0).WithSymbol("exit"), asm.Return())
}

// report prints one line a site: its probe point, hits, and each
// argument of the last hit that a register or a constant gives.
func report(m *ebpf.Map, sites []btfinline.Place, words []int) error {
	val := make([]byte, 8*(1+len(words)))
	for i, p := range sites {
		if err := m.Lookup(uint32(i), &val); err != nil {
			return err
		}
		word := func(k int) uint64 { return binary.NativeEndian.Uint64(val[8*k:]) }
		line := []string{p.Probe, fmt.Sprintf("hits=%d", word(0))}
		for _, a := range p.Args {
			v, err := value(a, func(off int) uint64 { return word(1 + slices.Index(words, off)) })
			if err != nil {
				line = append(line, a.Name+"=?")
				continue
			}
			line = append(line, fmt.Sprintf("%s=%#x", a.Name, v))
		}
		fmt.Println(strings.Join(line, " "))
	}
	return nil
}

// value computes an argument from its fetch and the kept pt_regs words,
// as wide as its type: sign-extended when signed, as printk's %llx of a
// value cast to 64 bits shows it.
func value(a btfinline.Arg, reg func(off int) uint64) (uint64, error) {
	if len(a.Fetch) != 1 || a.Fetch[0].Size != 0 {
		return 0, errors.New("not in a register or a constant")
	}
	f := a.Fetch[0]
	v := f.Value
	if !f.Const {
		v = reg(f.PtRegsOffset)
	}
	v += uint64(f.Offset)
	if a.Size > 0 && a.Size < 8 {
		sh := 64 - 8*uint(a.Size)
		if a.Signed {
			v = uint64(int64(v<<sh) >> sh)
		} else {
			v = v << sh >> sh
		}
	}
	return v, nil
}
