package cmd

// Version is what "btfinline --version" prints ("btfinline version 0.1").
// Build scripts test it as pahole's is tested: the kernel series in kbuild/
// turns MAJOR.MINOR into MAJOR*100+MINOR (scripts/btfinline-version.sh)
// and needs 1 or more, the first version that rewrites an allocated
// .BTF.inline in place (encode --elf-section on a linked vmlinux). Raise it
// when a build-facing flag or behaviour changes.
const Version = "0.1"
