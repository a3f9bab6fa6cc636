package btf

// Errors are typed: FormatError for undecodable input (section + byte
// offset), UnknownKindError when a kind cannot be sized (type id + kind),
// ValidationError for verifier rules (type id + kind + the kernel's log).

import (
	"errors"
	"fmt"
)

// FormatError reports malformed BTF: which section and at which byte offset
// (from the start of the blob) decoding failed.
type FormatError struct {
	Section string // "header", "types", "strings", "layout"
	Offset  int64  // byte offset in the blob
	Msg     string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("btf: %s at offset %#x: %s", e.Section, e.Offset, e.Msg)
}

// ErrUnknownKind is wrapped by the error returned when a type of a kind this
// package does not know cannot be skipped because no layout section is
// available anywhere in the base chain.
var ErrUnknownKind = errors.New("unknown BTF kind")

// UnknownKindError names the kind and type id that could not be sized.
type UnknownKindError struct {
	ID     TypeID
	Kind   Kind
	Offset int64
	Reason string
}

func (e *UnknownKindError) Error() string {
	return fmt.Sprintf("btf: types at offset %#x: type [%d] has unknown kind %d: %s", e.Offset, e.ID, uint8(e.Kind), e.Reason)
}

func (e *UnknownKindError) Unwrap() error { return ErrUnknownKind }

// ValidationError is one violation of the kernel verifier's rules, in the
// kernel's words. ID is the type id the log line names (0 for the header,
// the string and the layout section), Kind that type's kind, Msg the
// kernel's message alone ("Invalid type_id") and Log the verifier log as
// BPF_BTF_LOAD's log prints it: the type line ("[5] PTR (anon) type_id=9
// Invalid type_id"), with a second line for a member, DATASEC or LOCSEC
// entry where the kernel prints one.
type ValidationError struct {
	ID   TypeID
	Kind Kind
	Msg  string
	Log  string
}

func (e *ValidationError) Error() string {
	return "btf: " + e.Log
}
