package refstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// MaxRecord caps every record blob. Records are notes, not payloads: a larger
// one is refused when written and skipped when read.
const MaxRecord = 64 << 10

var (
	// ErrTooLarge is returned for a record over MaxRecord.
	ErrTooLarge = errors.New("record too large")
	// ErrInvalidRecord is returned for a blob that is not a record we can
	// read: not JSON, not an object, no schema, or an unknown schema.
	ErrInvalidRecord = errors.New("invalid record")
	// ErrMissingObject is returned for a ref that names an object this
	// repository does not have (a git gc --prune=now beside a write that
	// an older git-handoff left in flight).
	ErrMissingObject = errors.New("missing object")
)

// TypeMissing is the Type of an Entry whose ref names an object the
// repository does not have, as git cat-file --batch says it.
const TypeMissing = "missing"

// Encode is the record's JSON, refused over MaxRecord.
func Encode(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding record: %w", err)
	}
	if len(data) > MaxRecord {
		return nil, fmt.Errorf("%w: %d bytes, at most %d (%d KiB)", ErrTooLarge, len(data), MaxRecord, MaxRecord>>10)
	}
	return data, nil
}

// Versioned is a record type that says which schema a decoded value
// carried; Decode then reads its blob in one pass.
type Versioned interface {
	RecordSchema() string
}

// Decode unmarshals the record in e into v after checking its size and that
// its "schema" field is exactly schema. Unknown fields are ignored so a newer
// minor writer stays readable; a different schema is refused with a hint.
func Decode(e Entry, schema string, v any) error {
	if e.Size > MaxRecord || len(e.Data) > MaxRecord {
		return fmt.Errorf("%w: %s is %d bytes, at most %d", ErrTooLarge, e.Ref, e.Size, MaxRecord)
	}
	if e.Type == TypeMissing {
		return fmt.Errorf("%w: %s points at %s, which this repository does not have (pruned by a git gc while the record was being written); remove the ref with: git update-ref -d %s %s", ErrMissingObject, e.Ref, e.OID, e.Ref, e.OID)
	}
	if e.Type != "" && e.Type != "blob" {
		return fmt.Errorf("%w: %s points at a %s, not a blob", ErrInvalidRecord, e.Ref, e.Type)
	}
	if r, ok := v.(Versioned); ok && json.Unmarshal(e.Data, v) == nil && r.RecordSchema() == schema {
		return nil // the common case: one pass. Anything else is looked at again, for its message.
	}
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(e.Data, &head); err != nil {
		return fmt.Errorf("%w: %s is not a JSON object: %v", ErrInvalidRecord, e.Ref, err)
	}
	switch {
	case head.Schema == nil:
		return fmt.Errorf("%w: %s has no schema field", ErrInvalidRecord, e.Ref)
	case *head.Schema != schema:
		return fmt.Errorf("%w: %s has schema %q, this git-handoff reads %q (a newer git-handoff may have written it: upgrade)", ErrInvalidRecord, e.Ref, *head.Schema, schema)
	}
	dec := json.NewDecoder(bytes.NewReader(e.Data))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrInvalidRecord, e.Ref, err)
	}
	return nil
}

// Skipped is a record that could not be read. It is reported, never fatal,
// and the record is left exactly as it was. Every record kind reports its
// unreadable records this one way.
type Skipped struct {
	Ref string
	Err error
}

func (w Skipped) String() string { return fmt.Sprintf("skipping %s: %v", w.Ref, w.Err) }

// ListDecoded reads every record under prefix, in ref order, decoding each
// with decode as it is read (as EachStreamed does); unreadable ones come
// back as Skipped.
func ListDecoded[T any](ctx context.Context, st Records, prefix string, decode func(Entry) (T, error)) ([]T, []Skipped, error) {
	var out []T
	var skipped []Skipped
	// Listed first, so the slice is made once at its size: growing it by
	// doubling copies records of a kilobyte a hundred thousand times over
	// and holds two copies at the end.
	ids, err := st.RefIDs(ctx, prefix)
	if err != nil {
		return nil, nil, err
	}
	out = make([]T, 0, len(ids))
	err = st.ReadEach(ctx, ids, func(e Entry) error {
		v, err := decode(e)
		if err != nil {
			skipped = append(skipped, Skipped{Ref: e.Ref, Err: err})
			return nil
		}
		out = append(out, v)
		return nil
	})
	return out, skipped, err
}
