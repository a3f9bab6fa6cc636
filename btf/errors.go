package btf

// Errors are typed: FormatError for undecodable input (section + byte
// offset), UnknownKindError when a kind cannot be sized (type id + kind),
// ValidationError for verifier rules (type id + kind + rule).

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

// ValidationError is one violation of the kernel verifier's rules. ID is 0
// for violations of the header or the string section.
type ValidationError struct {
	ID   TypeID
	Kind Kind
	Rule string
}

func (e *ValidationError) Error() string {
	if e.ID == 0 && e.Kind == 0 {
		return "btf: " + e.Rule
	}
	return fmt.Sprintf("btf: [%d] %s: %s", e.ID, e.Kind, e.Rule)
}
