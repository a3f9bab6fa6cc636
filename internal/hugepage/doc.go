// Package hugepage asks Linux for transparent huge pages for the Go heap
// where the kernel gives them only on request (THP "madvise", Ubuntu's
// default and this project's CI host's; Debian and RHEL default to
// "always", where every anonymous mapping gets them unasked).
//
// Why: an encode touches a few hundred megabytes of fresh heap. With 4
// KiB pages each page is a fault the kernel takes and zeroes, and each
// a TLB entry of its own; on a virtual machine both cost more than on
// bare metal. With 2 MiB pages there is one fault for 512 of them
// (docs/encoding.md says what it saves).
//
// How: the Go runtime maps its heap in runs of 4 MiB or more and never
// advises them. Advise allocates one large object, so that the runtime
// maps that much at once, advises the kernel that its range wants huge
// pages, and frees it at once: the runtime hands out free pages lowest
// address first, so the heap that follows grows into the advised range.
// Nothing of the range is touched before it is used; a mapping the
// runtime makes later, past it, gets small pages as before.
//
// It imports the standard library and golang.org/x/sys/unix only.
package hugepage
