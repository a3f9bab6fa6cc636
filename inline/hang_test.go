package inline

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestHangHunt(t *testing.T) {
	b, _ := os.ReadFile(filepath.Join(fixtureDir, "sites-x86_64.o"))
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		d := append([]byte(nil), b...)
		for k := 0; k < 4; k++ {
			d[rng.Intn(len(d))] = byte(rng.Intn(256))
		}
		done := make(chan struct{})
		go func() { ReadBytes(d, Options{Workers: 1}); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			os.WriteFile("/tmp/hang.o", d, 0o644)
			t.Fatalf("hang at %d", i)
		}
	}
}
