package streamable

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// maxSafeInteger is the largest integer a header-mapped parameter may hold
// (2^53-1, the largest integer JavaScript represents exactly).
const maxSafeInteger = 1<<53 - 1

// Base64 sentinel around header values that are not plain ASCII.
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// EncodeHeaderValue returns the header form of a string: the string itself
// when it is plain ASCII (printable, no leading or trailing space, not
// looking like the sentinel), otherwise "=?base64?…?=" around its base64.
func EncodeHeaderValue(s string) string {
	if isPlainHeaderValue(s) {
		return s
	}
	return base64Prefix + base64.StdEncoding.EncodeToString([]byte(s)) + base64Suffix
}

// DecodeHeaderValue undoes EncodeHeaderValue. It fails when a sentinel
// value is not valid base64, or a plain value holds bytes outside printable
// ASCII.
func DecodeHeaderValue(v string) (string, error) {
	if strings.HasPrefix(v, base64Prefix) && strings.HasSuffix(v, base64Suffix) && len(v) >= len(base64Prefix)+len(base64Suffix) {
		b, err := base64.StdEncoding.DecodeString(v[len(base64Prefix) : len(v)-len(base64Suffix)])
		if err != nil {
			return "", fmt.Errorf("the =?base64?…?= value is not valid base64: %v", err)
		}
		return string(b), nil
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return "", fmt.Errorf("the value holds byte 0x%02x; values that are not printable ASCII must use =?base64?…?=", c)
		}
	}
	return v, nil
}

// isPlainHeaderValue reports whether s can travel as a header value as is.
func isPlainHeaderValue(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	if strings.HasPrefix(s, base64Prefix) && strings.HasSuffix(s, base64Suffix) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// errNoValue reports that the arguments hold no (or a null) value at a path.
var errNoValue = errors.New("no value")

// argumentAt returns the raw JSON value at path in the arguments object, or
// errNoValue when there is none or it is null.
func argumentAt(arguments jsontext.Value, path []string) (jsontext.Value, error) {
	cur := arguments
	for _, key := range path {
		if cur.Kind() != '{' {
			return nil, errNoValue
		}
		var obj map[string]jsontext.Value
		if err := json.Unmarshal(cur, &obj); err != nil {
			return nil, fmt.Errorf("the arguments are malformed: %w", err)
		}
		next, ok := obj[key]
		if !ok {
			return nil, errNoValue
		}
		cur = next
	}
	if len(cur) == 0 || cur.Kind() == 'n' {
		return nil, errNoValue
	}
	return cur, nil
}

// headerText returns the header text for an argument value (before the
// sentinel encoding): a string as is, an integer in decimal, a boolean as
// true or false. Other values cannot be mirrored.
func headerText(v jsontext.Value) (string, error) {
	switch v.Kind() {
	case '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", err
		}
		return s, nil
	case 't':
		return "true", nil
	case 'f':
		return "false", nil
	case '0':
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > maxSafeInteger {
			return "", fmt.Errorf("%s is not an integer within ±(2^53-1)", v)
		}
		return strconv.FormatInt(int64(f), 10), nil
	}
	return "", fmt.Errorf("a %s cannot be mirrored into a header; only strings, integers and booleans can", kindWord(v.Kind()))
}

// sameValue reports whether a decoded header value equals the body's value
// of an argument; numbers compare numerically (42 equals 42.0).
func sameValue(header string, body jsontext.Value) bool {
	if body.Kind() == '0' {
		h, err1 := strconv.ParseFloat(header, 64)
		b, err2 := strconv.ParseFloat(string(body), 64)
		return err1 == nil && err2 == nil && h == b
	}
	want, err := headerText(body)
	return err == nil && want == header
}

// kindWord names a JSON kind for messages.
func kindWord(k jsontext.Kind) string {
	switch k {
	case '{':
		return "JSON object"
	case '[':
		return "JSON array"
	case 'n':
		return "null"
	}
	return "JSON value"
}
