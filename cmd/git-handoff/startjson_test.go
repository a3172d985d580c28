package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/git-handoff/git-handoff/internal/jsonrec/jsontest"
)

// encoderJSON is what printJSON printed before shapes wrote themselves.
func encoderJSON(t *testing.T, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestStartJSONEncoder: start's output is what the Encoder prints, for
// every field set in turn (a field added to the shape without teaching
// appendJSON fails here), and appendJSON writes all but the rare shapes
// itself.
func TestStartJSONEncoder(t *testing.T) {
	vs := jsontest.Variants[startJSON](t)
	for _, v := range vs {
		want := encoderJSON(t, v)
		var got bytes.Buffer
		if err := printJSON(&got, v); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("printJSON:\n%s\nthe Encoder:\n%s", got.Bytes(), want)
		}
		if _, err := v.appendJSON(nil); (err == nil) != (v.Snapshot == nil) {
			t.Fatalf("appendJSON error %v with snapshot %v", err, v.Snapshot)
		}
	}
}

// FuzzStartJSON: the same over strings the fuzzer picks.
func FuzzStartJSON(f *testing.F) {
	for i, s := range jsontest.Strings {
		f.Add(s, jsontest.Strings[(i+4)%len(jsontest.Strings)], uint8(i))
	}
	f.Fuzz(func(t *testing.T, a, b string, bits uint8) {
		for _, v := range jsontest.Variants[startJSON](t) {
			v.Brief, v.Session.ID = a, b
			if bits&1 != 0 {
				v.Notices = []string{a, b}
			}
			if v.Handoff != nil {
				v.Handoff.NextSteps = append(v.Handoff.NextSteps, a)
			}
			var got bytes.Buffer
			if err := printJSON(&got, v); err != nil {
				t.Fatal(err)
			}
			if want := encoderJSON(t, v); !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("printJSON:\n%s\nthe Encoder:\n%s", got.Bytes(), want)
			}
		}
	})
}
