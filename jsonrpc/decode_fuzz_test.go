package jsonrpc_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/jsonrpc"
)

// FuzzDecode checks that the decoder never panics, fails only with a
// *DecodeError carrying -32700 or -32600, gives each invalid element of a
// batch a -32600 *DecodeError, and that whatever it accepts (a batch's valid
// elements) encodes without a line break and decodes back to an equal
// message.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
		`{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"x","arguments":{"a":[1,2.5e3,"s",null,true]}}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":[1,2]}`,
		`{"jsonrpc":"2.0","id":-9223372036854775808,"result":{"content":[{"type":"text","text":"é\u2028"}]}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error","data":{"at":[1]}}}`,
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"},{"jsonrpc":"2.0","id":2,"result":null}]`,
		`{"json\u0072pc":"2\u002e0","id":"\u0031","method":"\ud83d\ude00"}`,
		"{\"jsonrpc\":\"2.0\",\n \"id\" : 3 ,\"method\":\"m\",\"params\":{ \"a\" : [ ] }}\r\n",
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"a":2}}`,
		`{"jsonrpc":"1.0","id":1,"method":"m"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"m"}`,
		`{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":"s"}`,
		`[]`, `[1]`, `[[]]`, `"s"`, `null`, ``, `{`, `{"a":}`, "{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}",
		`{"jsonrpc":"2.0","method":"m"} {}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msg, err := jsonrpc.DecodeMessage(data)
		sameAsScanningParams(t, data, msg, err)
		if err != nil {
			var de *jsonrpc.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("DecodeMessage(%q) failed with %T %v; want a *DecodeError", data, err, err)
			}
			if de.Err.Code != jsonrpc.CodeParseError && de.Err.Code != jsonrpc.CodeInvalidRequest {
				t.Fatalf("DecodeMessage(%q): code %d", data, de.Err.Code)
			}
			if !de.ID.IsValid() || (de.Err.Code == jsonrpc.CodeParseError && !de.ID.IsNull()) {
				t.Fatalf("DecodeMessage(%q): id %s with code %d", data, de.ID, de.Err.Code)
			}
			return
		}
		if b, ok := msg.(jsonrpc.Batch); ok {
			if msg = validElements(t, data, b); msg == nil {
				return
			}
		}
		enc, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatalf("decoded %q but cannot encode it: %v", data, err)
		}
		if bytes.ContainsAny(enc, "\r\n") {
			t.Fatalf("encoding of %q contains a line break: %q", data, enc)
		}
		back, err := jsonrpc.DecodeMessage(enc)
		if err != nil {
			t.Fatalf("re-encoding of %q does not decode: %q: %v", data, enc, err)
		}
		if !equalMessages(msg, back) {
			t.Fatalf("round trip changed the message:\n in %q\nout %q\n  %s\n  %s", data, enc, describe(msg), describe(back))
		}
		if enc2, err := jsonrpc.EncodeMessage(back); err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not stable: %q then %q (%v)", enc, enc2, err)
		}
	})
}

// validElements checks the invalid elements of a decoded batch and returns
// a batch of its valid ones, or nil when there are none.
func validElements(t *testing.T, data []byte, b jsonrpc.Batch) jsonrpc.Message {
	var valid jsonrpc.Batch
	for i, m := range b {
		de, ok := m.(*jsonrpc.DecodeError)
		if !ok {
			valid = append(valid, m)
			continue
		}
		if de.Err.Code != jsonrpc.CodeInvalidRequest || !de.ID.IsValid() {
			t.Fatalf("DecodeMessage(%q): element %d: code %d id %s; want -32600 and an id", data, i, de.Err.Code, de.ID)
		}
	}
	if len(valid) == 0 {
		return nil
	}
	return valid
}

// equalMessages compares two messages, raw JSON values by their compact form.
func equalMessages(a, b jsonrpc.Message) bool {
	switch a := a.(type) {
	case *jsonrpc.Request:
		b, ok := b.(*jsonrpc.Request)
		return ok && a.ID == b.ID && a.Method == b.Method && sameJSON(a.Params, b.Params)
	case *jsonrpc.Response:
		b, ok := b.(*jsonrpc.Response)
		if !ok || a.ID != b.ID || !sameJSON(a.Result, b.Result) || (a.Error == nil) != (b.Error == nil) {
			return false
		}
		return a.Error == nil || (a.Error.Code == b.Error.Code && a.Error.Message == b.Error.Message && sameJSON(a.Error.Data, b.Error.Data))
	case jsonrpc.Batch:
		b, ok := b.(jsonrpc.Batch)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equalMessages(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// sameJSON reports whether two raw values are the same JSON text once
// compacted (nil and empty are both "absent").
func sameJSON(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	ca, errA := jsontext.AppendFormat(nil, a)
	cb, errB := jsontext.AppendFormat(nil, b)
	return errA == nil && errB == nil && bytes.Equal(ca, cb)
}

// sameAsScanningParams checks that a Decoder handing each member of params
// to Decoder.ParamsMember decodes data exactly as DecodeMessage did (msg,
// err): the same message, params text included, or the same error (for
// -32700, the same code: jsontext words a syntax error found token by token
// differently).
func sameAsScanningParams(t *testing.T, data []byte, msg jsonrpc.Message, err error) {
	t.Helper()
	d := jsonrpc.Decoder{ParamsMember: func(dec *jsontext.Decoder, _ []byte) error { return dec.SkipValue() }}
	msg2, err2 := d.Decode(data)
	var de, de2 *jsonrpc.DecodeError
	errors.As(err, &de)
	errors.As(err2, &de2)
	if (err == nil) != (err2 == nil) || err != nil && !sameDecodeError(de, de2) {
		t.Fatalf("decoding %q scanning params failed with %v; DecodeMessage with %v", data, err2, err)
	}
	if err == nil && !identical(msg, msg2) {
		t.Fatalf("decoding %q scanning params gave\n  %s\nDecodeMessage gave\n  %s", data, describe(msg2), describe(msg))
	}
}

// identical reports whether two decoded messages are the same, raw params
// byte for byte and invalid batch elements included.
func identical(a, b jsonrpc.Message) bool {
	switch a := a.(type) {
	case *jsonrpc.Request:
		b, ok := b.(*jsonrpc.Request)
		return ok && a.ID == b.ID && a.Method == b.Method && bytes.Equal(a.Params, b.Params) && (a.Params == nil) == (b.Params == nil)
	case *jsonrpc.DecodeError:
		b, ok := b.(*jsonrpc.DecodeError)
		return ok && sameDecodeError(a, b)
	case jsonrpc.Batch:
		b, ok := b.(jsonrpc.Batch)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !identical(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	return equalMessages(a, b)
}

// sameDecodeError reports whether a and b are the same error: the same id,
// code and kind, and for -32600 the same message.
func sameDecodeError(a, b *jsonrpc.DecodeError) bool {
	return a != nil && b != nil && a.ID == b.ID && a.IsResponse == b.IsResponse && a.Err.Code == b.Err.Code &&
		(a.Err.Code == jsonrpc.CodeParseError || a.Err.Message == b.Err.Message)
}
