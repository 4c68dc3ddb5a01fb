package mcp

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/internal/jsonkind"
)

// ProgressToken ties progress notifications to a request: a JSON string or
// number, kept in its exact wire form. The zero value is absent.
type ProgressToken struct {
	raw string // the JSON text, e.g. `7` or `"abc"`; "" when absent
}

// StringProgressToken returns the token that is the JSON string s.
func StringProgressToken(s string) ProgressToken {
	b, _ := jsontext.AppendQuote(nil, s) // a Go string always quotes; invalid UTF-8 is replaced
	return ProgressToken{raw: string(b)}
}

// Int64ProgressToken returns the token that is the JSON integer n.
func Int64ProgressToken(n int64) ProgressToken {
	return ProgressToken{raw: strconv.FormatInt(n, 10)}
}

// IsValid reports whether the token is present.
func (t ProgressToken) IsValid() bool { return t.raw != "" }

// Raw returns the token's JSON text, or "" when absent. Two tokens are the
// same exactly when their Raw texts are equal.
func (t ProgressToken) Raw() string { return t.raw }

// String returns the JSON text for logs, or "<none>".
func (t ProgressToken) String() string {
	if t.raw == "" {
		return "<none>"
	}
	return t.raw
}

// MarshalJSONTo writes the token as received; an absent token is an error.
func (t ProgressToken) MarshalJSONTo(enc *jsontext.Encoder) error {
	if t.raw == "" {
		return fmt.Errorf("progress token is absent")
	}
	return enc.WriteValue(jsontext.Value(t.raw))
}

// UnmarshalJSONFrom accepts a JSON string or number and rejects anything
// else. Strings are kept in canonical form, numbers as written.
func (t *ProgressToken) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	val, err := dec.ReadValue()
	if err != nil {
		return err
	}
	switch val.Kind() {
	case '"':
		s, err := jsontext.AppendUnquote(nil, val)
		if err != nil {
			return fmt.Errorf("progress token is not a valid JSON string: %w", err)
		}
		*t = StringProgressToken(string(s))
	case '0':
		*t = ProgressToken{raw: string(val)}
	default:
		return fmt.Errorf("progress token is a JSON %s, want a string or a number", jsonkind.Name(val.Kind()))
	}
	return nil
}

// ProgressNotificationParams are the params of notifications/progress.
type ProgressNotificationParams struct {
	NotificationParams
	ProgressToken ProgressToken `json:"progressToken"`
	// Progress so far; it should increase with every notification.
	Progress float64 `json:"progress"`
	// Total is the progress at completion, if known (0 = unknown).
	Total float64 `json:"total,omitzero"`
	// Message describes the current progress (2025-03-26+).
	Message string `json:"message,omitempty"`
}

// progressFields is ProgressNotificationParams without its JSON methods.
type progressFields ProgressNotificationParams

// MarshalJSONTo encodes the params; without a progressToken it fails.
func (p ProgressNotificationParams) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*progressFields)(&p))
}

// UnmarshalJSONFrom decodes the params and refuses them without the
// progressToken the schema requires: such params could never be encoded,
// nor tied to a request.
func (p *ProgressNotificationParams) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if err := json.UnmarshalDecode(dec, (*progressFields)(p)); err != nil {
		return err
	}
	if !p.ProgressToken.IsValid() {
		return errors.New("notifications/progress params have no progressToken; the schema requires one")
	}
	return nil
}
