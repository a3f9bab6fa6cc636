package hugepage

import (
	"os"
	"strings"
)

// Size is the huge page size Advise aligns to (x86-64 and arm64 with
// 4 KiB pages).
const Size = 2 << 20

// Mode is the kernel's transparent huge page setting, from
// /sys/kernel/mm/transparent_hugepage/enabled: "always", "madvise" or
// "never", and "" where there is no such file (no THP, not Linux).
func Mode() string { return modeOf(readFile("/sys/kernel/mm/transparent_hugepage/enabled")) }

// modeOf picks the bracketed word: "always [madvise] never".
func modeOf(s string) string {
	i := strings.IndexByte(s, '[')
	j := strings.IndexByte(s, ']')
	if i < 0 || j < i {
		return ""
	}
	return s[i+1 : j]
}

// strictOvercommit reports whether the kernel counts every writable
// private mapping against a commit limit (vm.overcommit_memory 2): there
// a large reservation can fail, and the runtime dies of a failed mapping
// instead of returning an error.
func strictOvercommit() bool {
	return strings.TrimSpace(readFile("/proc/sys/vm/overcommit_memory")) == "2"
}

func readFile(name string) string {
	b, err := os.ReadFile(name)
	if err != nil {
		return ""
	}
	return string(b)
}
