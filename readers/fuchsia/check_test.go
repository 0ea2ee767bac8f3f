package fuchsia

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// fixtureProfiles returns the committed profiles, decompressed.
func fixtureProfiles(t *testing.T) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob("../../testdata/fuchsia/*.pb*")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if IsGzip(data) {
			z, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if data, err = io.ReadAll(z); err != nil {
				t.Fatal(err)
			}
		}
		out[filepath.Base(p)] = data
	}
	return out
}

// feedChunks runs a profileCheck over data arriving in random pieces.
func feedChunks(data []byte, r *rand.Rand) (int, error) {
	c := newProfileCheck()
	for n := 0; n < len(data); {
		n = min(len(data), n+1+r.IntN(64))
		if off, err := c.feed(data[:n]); err != nil {
			return off, err
		}
	}
	return 0, nil
}

// The check as a gzipped profile arrives refuses nothing the decoder
// accepts: every fixture passes it however it is cut into pieces, and
// every damaged fixture it refuses, the decoder refuses too.
func TestCheckRefusesOnlyWhatTheDecoderDoes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	refused := 0
	for name, data := range fixtureProfiles(t) {
		for i := 0; i < 20; i++ {
			if off, err := feedChunks(data, r); err != nil {
				t.Fatalf("%s: refused at %d: %v", name, off, err)
			}
		}
		for i := 0; i < 400; i++ {
			d := bytes.Clone(data)
			for k := 0; k <= r.IntN(3); k++ {
				j := r.IntN(len(d))
				if r.IntN(2) == 0 {
					d[j] ^= 1 << r.IntN(8)
				} else {
					d[j] = byte(r.IntN(256))
				}
			}
			off, err := feedChunks(d, r)
			if err == nil {
				continue
			}
			refused++
			if _, derr := ReadBytes(d, Options{}); derr == nil {
				t.Fatalf("%s, damaged: the check refuses it at %d (%v), the decoder reads it", name, off, err)
			}
		}
	}
	if refused == 0 {
		t.Fatal("the check refused no damaged profile")
	}
	t.Logf("%d damaged profiles refused by the check", refused)
}
