// The ftrace tables of a module (ET_REL) on each architecture, for
// TestFtraceTables: on x86-64, 6.2+'s call padding (CALL_PADDING:
// -fpatchable-function-entry=16,16) puts every function in
// __patchable_function_entries with or without ftrace, and ftrace itself
// records only __mcount_loc; on arm64, ftrace is
// -fpatchable-function-entry=2, and a notrace function has no entry.
#define notrace __attribute__((patchable_function_entry(0, 0)))

int traced(int x) { return x * 3 + 1; }

notrace int untraced(int x) { return x * 5 + 2; }
