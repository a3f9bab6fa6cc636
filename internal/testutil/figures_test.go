package testutil

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// figureBlock is a block of a Markdown file that quotes a figures file:
//
//	<!-- figures: 6.1-x86_64/stats-vmlinux.txt -->
//	```
//	...the file's contents...
//	```
//	<!-- /figures -->
var figureBlock = regexp.MustCompile("(?s)<!-- figures: (\\S+) -->\n(```\n)?(.*?)(```\n)?<!-- /figures -->")

// TestDocsQuoteFigures: every figures block of the README and the docs
// holds exactly the figures file it names (docs/figures, written by the
// kernel checks), so that a figure cannot drift from what the checks
// assert. BTFI_UPDATE_FIGURES=1 rewrites the blocks from the files.
func TestDocsQuoteFigures(t *testing.T) {
	root := repoRoot()
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"), filepath.Join(root, "e2e", "README.md"), filepath.Join(root, "kbuild", "README.md"))
	blocks := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		out := figureBlock.ReplaceAllStringFunc(text, func(m string) string {
			sm := figureBlock.FindStringSubmatch(m)
			blocks++
			want, err := os.ReadFile(filepath.Join(figuresDir(), sm[1]))
			if err != nil {
				t.Errorf("%s quotes %s: %v", doc, sm[1], err)
				return m
			}
			fence := sm[2] != ""
			got := sm[3]
			if got != string(want) {
				if !UpdateFigures() {
					t.Errorf("%s: the block quoting %s differs from the file:\n--- file\n%s--- block\n%s", doc, sm[1], want, got)
				}
			}
			if fence {
				return "<!-- figures: " + sm[1] + " -->\n```\n" + string(want) + "```\n<!-- /figures -->"
			}
			return "<!-- figures: " + sm[1] + " -->\n" + string(want) + "<!-- /figures -->"
		})
		if UpdateFigures() && out != text {
			if err := os.WriteFile(doc, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if blocks == 0 {
		t.Error("no figures block in the README or docs")
	}
}
