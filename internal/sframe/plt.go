package sframe

import (
	"bytes"
	"debug/elf"
)

type pltSec struct {
	name       string
	addr, size uint64
	data       []byte
}

func (in *Input) pltSections() []pltSec {
	if in.ABI != ABIAMD64LE || in.Rel {
		return nil
	}
	var out []pltSec
	for _, s := range in.File.Sections {
		switch s.Name {
		case ".plt", ".plt.sec", ".plt.got":
		default:
			continue
		}
		if s.Size == 0 || s.Type == elf.SHT_NOBITS {
			continue
		}
		d, _ := in.data(s)
		out = append(out, pltSec{s.Name, s.Addr, s.Size, d})
	}
	return out
}

func inPLT(plts []pltSec, addr uint64) bool {
	for _, p := range plts {
		if addr >= p.addr && addr < p.addr+p.size {
			return true
		}
	}
	return false
}

var endbr64 = []byte{0xf3, 0x0f, 0x1e, 0xfa}

func spFRE(start uint32, off int32) FRE {
	f := FRE{Start: start, Info: FREInfo(BaseSP, 1, 0, false)}
	f.W[0] = off
	return f
}

// pltFDEs returns the SFrame FDEs GNU ld synthesises for the x86-64 PLT
// sections (elfxx-x86.c): PLT0 as a normal FDE, the PLT entries as one
// PC-mask FDE repeating every entry.
func (in *Input) pltFDEs(plts []pltSec) []FDE {
	var out []FDE
	hasSec := false
	for _, p := range plts {
		if p.name == ".plt.sec" {
			hasSec = true
		}
	}
	for _, p := range plts {
		ft := FRETypeFor(p.size)
		switch p.name {
		case ".plt":
			const entry = 16
			rest := p.addr
			size := p.size
			lazy := len(p.data) >= 2 && p.data[0] == 0xff && p.data[1] == 0x35
			if lazy && size >= entry {
				out = append(out, FDE{Start: int64(p.addr), Size: entry, Info: ft,
					FREs: []FRE{spFRE(0, 16), spFRE(6, 24)}})
				rest += entry
				size -= entry
			}
			if size == 0 {
				continue
			}
			fres := []FRE{spFRE(0, 8)}
			if lazy {
				second := uint32(11)
				if hasSec || (len(p.data) >= entry+4 && bytes.Equal(p.data[entry:entry+4], endbr64)) {
					second = 9
				}
				fres = append(fres, spFRE(second, 16))
			}
			out = append(out, FDE{Start: int64(rest), Size: uint32(size), Info: ft | PCTypeMask<<4, RepSize: entry, FREs: fres})
		case ".plt.sec":
			out = append(out, FDE{Start: int64(p.addr), Size: uint32(p.size), Info: ft | PCTypeMask<<4, RepSize: 16, FREs: []FRE{spFRE(0, 8)}})
		case ".plt.got":
			rep := uint8(8)
			if hasSec || (len(p.data) >= 4 && bytes.Equal(p.data[:4], endbr64)) {
				rep = 16
			}
			out = append(out, FDE{Start: int64(p.addr), Size: uint32(p.size), Info: ft | PCTypeMask<<4, RepSize: rep, FREs: []FRE{spFRE(0, 16)}})
		}
	}
	return out
}
