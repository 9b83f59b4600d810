package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"unicode"

	"github.com/autocut-dev/autocut/apiv1"
)

// errOverLimit is what limitReader reports once its limit is passed.
var errOverLimit = errors.New("over the limit")

// limitReader yields at most n bytes and then errOverLimit (where
// io.LimitReader would end the stream, so that a decoder reports a body
// cut short instead of a body too large).
type limitReader struct {
	r io.Reader
	n int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		// One more byte tells a body of exactly n bytes from a longer one.
		var one [1]byte
		if n, err := l.r.Read(one[:]); n > 0 {
			return 0, errOverLimit
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// decodeBody decodes a JSON request body of at most limit bytes into v:
// a larger body answers 413 body_too_large (before reading it when its
// Content-Length says so).
func decodeBody(r *http.Request, limit int64, v any) error {
	if r.ContentLength > limit {
		return fmt.Errorf("%w: the JSON body is %d bytes, over the %s limit", apiv1.ErrBodyTooLarge, r.ContentLength, sizeWords(limit))
	}
	return decodeJSON(r.Body, limit, v, "body")
}

// decodeJSON decodes one JSON object of at most limit bytes strictly:
// field names match exactly (encoding/json alone would take "PRESET" for
// "preset"), unknown and repeated fields are refused. Its errors are
// apiv1.ErrBadRequest or apiv1.ErrBodyTooLarge with a message for people
// that names the offending field by its JSON path and the expected kind of
// value in plain words (never a Go type).
func decodeJSON(r io.Reader, limit int64, v any, what string) error {
	b, err := io.ReadAll(&limitReader{r: r, n: limit})
	if err != nil {
		return decodeError(err, limit, what)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return decodeError(err, limit, what)
	}
	if d.More() {
		return fmt.Errorf("%w: %s: trailing data after the JSON object", apiv1.ErrBadRequest, what)
	}
	// The value decoded, so it is valid JSON: a second pass over its tokens
	// checks the names against the struct tags.
	if msg := checkNames(json.NewDecoder(bytes.NewReader(b)), reflect.TypeOf(v), ""); msg != "" {
		return fmt.Errorf("%w: %s: %s", apiv1.ErrBadRequest, what, msg)
	}
	return nil
}

// checkNames reads one JSON value from d and returns what is wrong with its
// object keys for type t ("" when nothing): a key that is not the exact
// JSON name of a field of the struct it fills, or a key repeated in one
// object. path is the value's JSON path, for the message.
func checkNames(d *json.Decoder, t reflect.Type, path string) string {
	tok, err := d.Token()
	if err != nil {
		return "" // (not reached: the value decoded)
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch tok {
	case json.Delim('{'):
		var fields map[string]reflect.Type
		if t != nil && t.Kind() == reflect.Struct {
			fields = jsonFields(t, nil)
		}
		seen := make(map[string]bool)
		for d.More() {
			kt, err := d.Token()
			if err != nil {
				return ""
			}
			key, _ := kt.(string)
			name := joinPath(path, key)
			if seen[key] {
				return fmt.Sprintf("field %q appears twice", name)
			}
			seen[key] = true
			var ft reflect.Type
			switch {
			case fields != nil:
				f, ok := fields[key]
				if !ok {
					for k := range fields {
						if strings.EqualFold(k, key) {
							return fmt.Sprintf("unknown field %q (field names are case-sensitive: %q)", name, joinPath(path, k))
						}
					}
					return fmt.Sprintf("unknown field %q", name)
				}
				ft = f
			case t != nil && t.Kind() == reflect.Map:
				ft = t.Elem()
			}
			if msg := checkNames(d, ft, name); msg != "" {
				return msg
			}
		}
		_, _ = d.Token() // '}'
	case json.Delim('['):
		var et reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			et = t.Elem()
		}
		for i := 0; d.More(); i++ {
			if msg := checkNames(d, et, fmt.Sprintf("%s[%d]", path, i)); msg != "" {
				return msg
			}
		}
		_, _ = d.Token() // ']'
	}
	return ""
}

// jsonFields adds to m (nil: a new map) the JSON names of struct type t's
// fields and their types, with the fields of untagged embedded structs, as
// encoding/json sees them.
func jsonFields(t reflect.Type, m map[string]reflect.Type) map[string]reflect.Type {
	if m == nil {
		m = make(map[string]reflect.Type)
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			jsonFields(ft, m)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
	}
	return m
}

// joinPath appends a key to a JSON path.
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// decodeError words a json.Decoder error for clients.
func decodeError(err error, limit int64, what string) error {
	var (
		te *json.UnmarshalTypeError
		se *json.SyntaxError
	)
	switch {
	case errors.Is(err, errOverLimit):
		return fmt.Errorf("%w: %s: over the %s limit", apiv1.ErrBodyTooLarge, what, sizeWords(limit))
	case errors.As(err, &te):
		field := jsonPath(te.Field)
		got := jsonKind(te.Value)
		if field == "" {
			return fmt.Errorf("%w: %s must be a JSON object, not %s", apiv1.ErrBadRequest, what, got)
		}
		return fmt.Errorf("%w: %s: field %s must be %s, not %s", apiv1.ErrBadRequest, what, field, goKind(te.Type), got)
	case errors.As(err, &se):
		return fmt.Errorf("%w: %s: invalid JSON at byte %d: %s", apiv1.ErrBadRequest, what, se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%w: %s: empty, expected a JSON object", apiv1.ErrBadRequest, what)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: %s: the JSON ends too early", apiv1.ErrBadRequest, what)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("%w: %s: unknown field %s", apiv1.ErrBadRequest, what, strings.TrimPrefix(err.Error(), "json: unknown field "))
	default:
		// A read error (the client went away) or a case not named above:
		// the text of either is not for the client.
		return fmt.Errorf("%w: %s: could not be read as JSON", apiv1.ErrBadRequest, what)
	}
}

// jsonPath turns an UnmarshalTypeError's Field into the field's JSON
// path: the Go names of embedded structs (apiv1.CreateFromURL embeds
// Options) are dropped; JSON names in apiv1 start with a lower-case letter.
func jsonPath(field string) string {
	var parts []string
	for _, p := range strings.Split(field, ".") {
		if p == "" || unicode.IsUpper([]rune(p)[0]) {
			continue
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ".")
}

// goKind names what a Go type accepts in JSON, in words.
func goKind(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number of at least 0"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "another kind of value"
}

// jsonKind names the JSON value an UnmarshalTypeError found ("string",
// "number", "number 1e999", "bool", "array", "object").
func jsonKind(v string) string {
	kind, rest, _ := strings.Cut(v, " ")
	switch kind {
	case "string":
		return "a string"
	case "number":
		if rest != "" && len(rest) <= 40 {
			return "the number " + rest + " (out of range)"
		}
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "null":
		return "null"
	}
	return "another kind of value"
}

// sizeWords writes a byte limit as KiB or MiB.
func sizeWords(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
