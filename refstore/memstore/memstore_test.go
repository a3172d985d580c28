package memstore_test

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/hash"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/memstore"
	"github.com/git-handoff/git-handoff/refstore/recordstest"
)

func TestRecords(t *testing.T) {
	for _, format := range []string{refstore.FormatSHA1, refstore.FormatSHA256} {
		t.Run(format, func(t *testing.T) {
			recordstest.Run(t, func(t *testing.T) recordstest.Harness {
				s, err := memstore.New(format)
				if err != nil {
					t.Fatal(err)
				}
				return recordstest.Harness{
					Records:      s,
					Open:         func(*testing.T) refstore.Records { return s },
					WriteRawBlob: func(_ *testing.T, data []byte) string { return s.WriteRawBlob(data) },
					Format:       s.ObjectFormat(),
				}
			})
		})
	}
}

func TestNewRefusesUnknownFormats(t *testing.T) {
	if _, err := memstore.New("md5"); err == nil {
		t.Fatal("md5 accepted")
	}
	if s, err := memstore.New(""); err != nil || s.ObjectFormat() != refstore.FormatSHA1 {
		t.Fatalf(`New("") = %v, %v; want a sha1 store`, s, err)
	}
}

// blobs are contents whose ids the two must agree on: empty, binary, a
// record, one past the size git's header size digits change, oversized.
var blobs = [][]byte{
	nil,
	[]byte("hello\n"),
	[]byte("a\x00b\xff\xfe\n\r\n"),
	[]byte(`{"schema":"git-handoff/session/v1","id":"s1","prev":"` + strings.Repeat("0", 40) + `"}`),
	bytes.Repeat([]byte("x"), 10),
	bytes.Repeat([]byte("y"), 999),
	bytes.Repeat([]byte("z"), refstore.MaxRecord+1),
}

// TestIDsAreGitHashObject is the differential check: the id a memstore
// gives a blob is the one git hash-object gives the same bytes, in a
// repository of each object format.
func TestIDsAreGitHashObject(t *testing.T) {
	gittest.Isolate(t)
	for _, format := range []string{refstore.FormatSHA1, refstore.FormatSHA256} {
		t.Run(format, func(t *testing.T) {
			dir := gittest.Init(t, "--object-format="+format)
			s, err := memstore.New(format)
			if err != nil {
				t.Fatal(err)
			}
			for _, data := range blobs {
				cmd := exec.Command("git", "hash-object", "--stdin")
				cmd.Dir, cmd.Stdin = dir, bytes.NewReader(data)
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("git hash-object: %v", err)
				}
				want := strings.TrimSpace(string(out))
				got := s.WriteRawBlob(data)
				if got != want {
					t.Errorf("%d bytes: memstore %s, git hash-object %s", len(data), got, want)
				}
				if id, err := memstore.BlobID(format, data); err != nil || id != got {
					t.Errorf("BlobID = %s, %v; the store wrote %s", id, err, got)
				}
				if len(data) <= refstore.MaxRecord {
					if id, err := s.WriteBlob(context.Background(), data); err != nil || id != want {
						t.Errorf("WriteBlob = %s, %v; git hash-object %s", id, err, want)
					}
				}
			}
		})
	}
}

// The store's SHA-1 is go-git's own: plumbing.ComputeHash in the default
// build, where go-git's hash is SHA-1.
func TestSHA1IsGoGitsComputeHash(t *testing.T) {
	if hash.Size != 20 {
		t.Skip("go-git built with -tags sha256")
	}
	for _, data := range blobs {
		want := plumbing.ComputeHash(plumbing.BlobObject, data).String()
		if got, _ := memstore.BlobID(refstore.FormatSHA1, data); got != want {
			t.Errorf("%d bytes: %s, go-git %s", len(data), got, want)
		}
	}
}

func TestWriterConformance(t *testing.T) {
	recordstest.RunWriter(t, func(t *testing.T) recordstest.WriterHarness {
		st, err := memstore.New(refstore.FormatSHA1)
		if err != nil {
			t.Fatal(err)
		}
		return recordstest.WriterHarness{Writer: st, SetConfig: func(t *testing.T, key, value string) { st.Configure(key, value) }}
	})
}
