// Package jsontest holds what the tests of the hand-written record
// encoders share: hostile inputs, and values of a record type built by
// reflection so that every field is tried, so a field added to a record
// without its encoder being taught it fails the encoder's test.
package jsontest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Strings are strings an encoder must escape exactly as encoding/json
// does: HTML, quotes and backslashes, controls, invalid UTF-8, U+2028 and
// U+2029, an emoji, a cut-off sequence.
var Strings = []string{
	"", "plain", "a\"b\\c", "<script>&amp;</script>", "\x00\x1f\x7f\b\f\n\r\t",
	"\u2028\u2029", "\xff\xfe", "\xed\xa0\x80", "\U0001f600 ok", "\xe2\x80", "é ü ß 日本",
}

// Times are times whose JSON must come out as time.Time's MarshalJSON: no
// fraction, nanoseconds with trailing zeros trimmed, a zone with an
// offset, the zero time, the extremes of the years it accepts.
var Times = []time.Time{
	{},
	time.Date(2026, 12, 1, 15, 3, 7, 533826662, time.UTC),
	time.Date(2026, 12, 1, 15, 3, 7, 500000000, time.UTC),
	time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", -(9*3600+30*60))),
	time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	time.Date(0, 1, 1, 0, 0, 0, 1, time.UTC),
}

// Raws are json.RawMessage values: compact, with whitespace to remove,
// with HTML to escape, and not JSON at all.
var Raws = []string{
	`{"id":"h-1","nextSteps":["a"]}`,
	" {\"a\" : [1, 2.5e3, \"<b>&\u2028\"] ,\n\t\"b\":null} ",
	`"x"`, `[]`, `{`, `{"a":}`, `nul`, "\"\xff\"",
}

// FarTimes are times MarshalJSON refuses: the encoders must fail on them
// and let encoding/json report the error.
var FarTimes = []time.Time{
	time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
}

// Variants returns values of T: the zero value, then for every exported,
// encoded field (those of embedded and nested structs, of pointed-to and
// mapped structs included) copies with that field alone set to each of a
// few non-zero values, and one with every field set. A field of a type it
// has no values for fails the test: teach it the type.
func Variants[T any](t testing.TB) []T {
	t.Helper()
	var out []T
	for _, v := range structSamples(t, reflect.TypeFor[T](), true) {
		out = append(out, v.Interface().(T))
	}
	return out
}

var rawType = reflect.TypeFor[json.RawMessage]()
var timeType = reflect.TypeFor[time.Time]()

// samples returns non-zero values of typ.
func samples(t testing.TB, typ reflect.Type) []reflect.Value {
	t.Helper()
	var out []reflect.Value
	add := func(x any) { out = append(out, reflect.ValueOf(x).Convert(typ)) }
	switch {
	case typ == timeType:
		for _, tm := range Times[1:] {
			add(tm)
		}
		return out
	case typ == rawType:
		add(json.RawMessage(Raws[0]))
		add(json.RawMessage(Raws[1]))
		add(json.RawMessage{}) // empty but not nil: left out as nil is
		return out
	}
	switch typ.Kind() {
	case reflect.String:
		for _, s := range Strings[1:] {
			add(s)
		}
	case reflect.Bool:
		add(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		add(7)
		add(-1 << 31)
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		add(uint64(7))
		add(uint64(1 << 31))
	case reflect.Slice:
		out = append(out, reflect.MakeSlice(typ, 0, 0))
		elems := samples(t, typ.Elem())
		s := reflect.MakeSlice(typ, 0, len(elems))
		for _, e := range elems {
			s = reflect.Append(s, e)
		}
		out = append(out, s)
	case reflect.Map:
		if typ.Key().Kind() != reflect.String {
			t.Fatalf("jsontest: no values for map key type %s", typ.Key())
		}
		out = append(out, reflect.MakeMap(typ))
		elems := samples(t, typ.Elem())
		m := reflect.MakeMap(typ)
		keys := []string{"b", "a", "<&>", "\xff", "\u2028", "B", ""}
		for i, e := range elems {
			m.SetMapIndex(reflect.ValueOf(keys[i%len(keys)]+strings.Repeat("~", i/len(keys))).Convert(typ.Key()), e)
		}
		out = append(out, m)
	case reflect.Pointer:
		for _, e := range samples(t, typ.Elem()) {
			p := reflect.New(typ.Elem())
			p.Elem().Set(e)
			out = append(out, p)
		}
		out = append(out, reflect.New(typ.Elem()))
	case reflect.Struct:
		out = structSamples(t, typ, false)
	default:
		t.Fatalf("jsontest: no values for type %s", typ)
	}
	return out
}

// structSamples: each encoded field alone set to each of its values, and
// all set at once; with zero, the zero struct first.
func structSamples(t testing.TB, typ reflect.Type, zero bool) []reflect.Value {
	t.Helper()
	var out []reflect.Value
	if zero {
		out = append(out, reflect.New(typ).Elem())
	}
	all := reflect.New(typ).Elem()
	fields := 0
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() || f.Tag.Get("json") == "-" {
			continue
		}
		fields++
		vals := samples(t, f.Type)
		for _, v := range vals {
			x := reflect.New(typ).Elem()
			x.Field(i).Set(v)
			out = append(out, x)
		}
		all.Field(i).Set(vals[len(vals)-1])
	}
	if fields == 0 {
		t.Fatalf("jsontest: %s has no encoded fields", typ)
	}
	return append(out, all)
}

// Check holds enc to json.Marshal(v): the same bytes, or an error where
// Marshal has one (the caller then lets Marshal report it). An encoder
// that fails on what Marshal writes would be correct but slow, and fails
// too.
func Check(t testing.TB, v any, enc func() ([]byte, error)) {
	t.Helper()
	want, werr := json.Marshal(v)
	got, gerr := enc()
	switch {
	case werr != nil && gerr == nil:
		t.Fatalf("json.Marshal fails (%v), the encoder wrote %s\nvalue %s", werr, got, describe(v))
	case werr == nil && gerr != nil:
		t.Fatalf("the encoder fails (%v), json.Marshal writes %s", gerr, want)
	case werr == nil && string(got) != string(want):
		t.Fatalf("encoder:\n%s\njson.Marshal:\n%s", got, want)
	}
}

func describe(v any) string { return fmt.Sprintf("%+v", v) }

// CheckDecode holds a one-pass decoder to json.Unmarshal: where fast
// accepts data, json.Unmarshal accepts it too and decodes the same value.
// It reports whether fast accepted (what it declines goes to
// json.Unmarshal itself, so declining is never wrong, only slow).
func CheckDecode[T any](t testing.TB, data []byte, fast func([]byte, *T) bool) bool {
	t.Helper()
	var got T
	if !fast(data, &got) {
		return false
	}
	var want T
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("fast path accepted what json.Unmarshal refuses (%v): %q", err, data)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("input %q\nfast %+v\njson %+v", data, got, want)
	}
	return true
}
