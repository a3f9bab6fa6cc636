package elfobj

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestReleaseDocumented: docs/encoding.md says which sections Release
// gives back with the constant of the code.
func TestReleaseDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/encoding.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(b)), " ")
	if want := fmt.Sprintf("those of %d MiB and more", bulkSection>>20); !strings.Contains(doc, want) {
		t.Errorf("docs/encoding.md does not say %q", want)
	}
}
