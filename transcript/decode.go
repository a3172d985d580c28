package transcript

import (
	"encoding/json"
	"errors"
)

// decode unmarshals a record into v, keeping what fits when a field the
// reader names has another type in this record (an agent's format grows
// and shifts between versions). It reports false only for data that is
// not JSON.
// isArray reports whether raw is a JSON array.
func isArray(raw json.RawMessage) bool {
	for _, b := range raw {
		switch b {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return b == '['
	}
	return false
}

func decode(data []byte, v any) bool {
	err := json.Unmarshal(data, v)
	var typeErr *json.UnmarshalTypeError
	return err == nil || errors.As(err, &typeErr)
}
