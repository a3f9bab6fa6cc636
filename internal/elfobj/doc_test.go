package elfobj

import (
	"fmt"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

// TestReleaseDocumented: docs/encoding.md says which sections Release
// gives back with the constant of the code.
func TestReleaseDocumented(t *testing.T) {
	testutil.DocSays(t, "docs/encoding.md", fmt.Sprintf("those of %d MiB and more", bulkSection>>20))
}
