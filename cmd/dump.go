package cmd

// "btfinline dump" prints BTF like "bpftool btf dump file FILE" (format
// raw), which it matches byte for byte for kinds 1-19, plus the LOC kinds
// in the format of bpftool's September 2026 follow-up. An ELF FILE is read
// from its .BTF section; --section .BTF.inline reads that section split on
// the ELF's own .BTF (itself split on the -B chain). --validate prints the
// kernel verifier's verdict instead (btf.ValidateFor), for BPF_BTF_LOAD or
// for the vmlinux/module loader.

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/spf13/cobra"
)

type dumpOptions struct {
	bases    []string
	json     bool
	validate string // "", or a btf.Loader name
	section  string
}

func newDumpCmd() *cobra.Command {
	o := &dumpOptions{}
	c := &cobra.Command{
		Use:   "dump [-B BASE]... FILE [--json] [--validate[=load|module]] [--section NAME]",
		Short: "dump BTF types like bpftool btf dump file",
		Long: `Dump the types of FILE, a raw BTF blob (detached .btf, /sys/kernel/btf/*)
or an ELF file (vmlinux, .ko: its .BTF section), in bpftool's raw format.

  -B BASE      base BTF of a split FILE; repeat for a multi-split chain, the
               first -B being the root (vmlinux, then the module for
               module.inline)
  --section S  read ELF section S (e.g. .BTF.inline, split on the ELF's own .BTF)
  -j, --json   JSON output like "bpftool -j btf dump file"
  --validate[=load|module]
               check the kernel's BTF verifier rules instead of dumping,
               print every violation and exit 1 if there is any:
                 load    (the default) what BPF_BTF_LOAD checks (btf_parse):
                         header, string and layout sections, every type's
                         own fields, then the resolve of every type (what
                         each type refers to, sizes, loops), the FUNC_PROTO
                         checks and modifier chains
                 module  what the kernel checks when it loads vmlinux BTF at
                         boot or a module's BTF at module load
                         (btf_parse_base, btf_parse_module): header, string
                         section, every type's own fields and modifier
                         chains; no resolve, the layout section not parsed
               Each violation is printed as the kernel's verifier log prints
               it ("[5] PTR (anon) type_id=9 Invalid type_id", a second line
               for a member or entry). A type stops at its first violation,
               as in the kernel, and the check goes on with the other types;
               a type whose check runs into one already reported is not
               reported again. See docs/validate.md.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 2 && o.validate != "" {
				if _, err := btf.ParseLoader(args[0]); err == nil {
					return fmt.Errorf("write --validate=%s, with '='", args[0])
				}
			}
			return cobra.ExactArgs(1)(c, args)
		},
		RunE: func(c *cobra.Command, args []string) error {
			spec, err := loadBTFChain(o.bases, args[0], o.section)
			if err != nil {
				return err
			}
			if o.validate != "" {
				l, err := btf.ParseLoader(o.validate)
				if err != nil {
					return err
				}
				errs := spec.ValidateFor(l)
				w := c.OutOrStdout()
				for _, e := range errs {
					var ve *btf.ValidationError
					if errors.As(e, &ve) {
						fmt.Fprintln(w, ve.Log)
					} else {
						fmt.Fprintln(w, e)
					}
				}
				if len(errs) > 0 {
					return &exitError{code: 1, msg: fmt.Sprintf("%s: %d violations of the kernel's %s rules", args[0], len(errs), l)}
				}
				return nil
			}
			return spec.Dump(c.OutOrStdout(), btf.DumpOptions{JSON: o.json})
		},
	}
	f := c.Flags()
	f.StringArrayVarP(&o.bases, "base-btf", "B", nil, "base BTF (repeatable: first is the root, vmlinux)")
	f.BoolVarP(&o.json, "json", "j", false, "JSON output")
	f.StringVar(&o.validate, "validate", "", "check the kernel verifier's rules: load (BPF_BTF_LOAD, the default) or module (vmlinux and module BTF loader)")
	f.Lookup("validate").NoOptDefVal = btf.LoaderBTFLoad.String()
	f.StringVar(&o.section, "section", "", "ELF section to read (default .BTF)")
	return c
}

// loadBTFChain loads each base on top of the previous one, then file on top
// of the last. An ELF contributes its .BTF; with section set (other than
// .BTF) file's section is read on top of file's .BTF when section is
// .BTF.inline (unless file is the last -B already), or directly on the
// chain otherwise.
func loadBTFChain(bases []string, file, section string) (*btf.Spec, error) {
	var base *btf.Spec
	for _, b := range bases {
		s, err := btf.LoadFile(b, base)
		if err != nil {
			return nil, err
		}
		base = s
	}
	if section == "" || section == ".BTF" {
		return btf.LoadFile(file, base)
	}
	if !btf.IsELF(file) {
		return nil, fmt.Errorf("%s: --section needs an ELF file", file)
	}
	f, err := elf.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if section == ".BTF.inline" && f.Section(".BTF") != nil && !sameFile(bases, file) {
		main, err := btf.LoadELFSection(f, ".BTF", base)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		base = main
	}
	s, err := btf.LoadELFSection(f, section, base)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return s, nil
}

// sameFile reports whether file is already the last base (-B m.ko
// --section .BTF.inline m.ko): its .BTF is then in the chain already.
func sameFile(bases []string, file string) bool {
	if len(bases) == 0 {
		return false
	}
	a, err1 := os.Stat(bases[len(bases)-1])
	b, err2 := os.Stat(file)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}
