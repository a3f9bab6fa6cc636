package dwarfsite

import (
	"fmt"
	"strings"
)

// Source languages (DW_AT_language of a compilation unit), named as
// pahole's --lang_exclude names them (DW_LANG_ without the prefix, in
// lower case). Kbuild runs pahole with --lang_exclude=rust when the kernel
// has Rust, so its .BTF has no Rust types; the encoder leaves the same
// units out.
var langNames = map[int64]string{
	0x01: "c89", 0x02: "c", 0x04: "c_plus_plus", 0x0c: "c99", 0x1a: "c_plus_plus_11",
	0x1c: "rust", 0x1d: "c11", 0x21: "c_plus_plus_14", 0x2c: "c17",
	0x8001: "mips_assembler",
}

// LangName is the name of DW_AT_language value lang: one of langNames, or
// "lang(0x...)" for others.
func LangName(lang int64) string {
	if n, ok := langNames[lang]; ok {
		return n
	}
	return fmt.Sprintf("lang(%#x)", lang)
}

// ParseLanguages checks a comma-separated list of language names (as
// --lang-exclude takes them) and returns them; "" is none.
func ParseLanguages(list string) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	var out []string
	for _, n := range strings.Split(list, ",") {
		n = strings.ToLower(strings.TrimSpace(n))
		found := false
		for _, k := range langNames {
			found = found || k == n
		}
		if !found {
			return nil, fmt.Errorf("unknown language %q (known: c89, c, c99, c11, c17, c_plus_plus, c_plus_plus_11, c_plus_plus_14, rust, mips_assembler)", n)
		}
		out = append(out, n)
	}
	return out, nil
}
