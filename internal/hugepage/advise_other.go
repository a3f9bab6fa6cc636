//go:build !linux

package hugepage

// Advise does nothing here: transparent huge pages are Linux's.
func Advise(n int) int { return 0 }

func limited() bool { return false }
