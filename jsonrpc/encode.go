package jsonrpc

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// EncodeMessage returns the JSON text of msg; see AppendMessage.
func EncodeMessage(msg Message) ([]byte, error) {
	return AppendMessage(make([]byte, 0, 256), msg)
}

// AppendMessage appends the JSON text of msg to dst. The output is compact (no
// newline anywhere in it, so it can be framed by newlines) and starts with
// "jsonrpc":"2.0". Raw params, results and error data are checked to be valid,
// strict JSON and compacted. A request with a null id, a response with both or
// neither of result and error, an empty or nested batch, and invalid UTF-8 in
// a method name are refused. On error dst is returned unchanged.
func AppendMessage(dst []byte, msg Message) ([]byte, error) {
	out, err := appendMessage(dst, msg, false)
	if err != nil {
		return dst, err
	}
	return out, nil
}

func appendMessage(dst []byte, msg Message, inBatch bool) ([]byte, error) {
	switch m := msg.(type) {
	case *Request:
		if m != nil {
			return appendRequest(dst, m)
		}
	case *Response:
		if m != nil {
			return appendResponse(dst, m)
		}
	case Batch:
		if inBatch {
			return dst, fmt.Errorf("jsonrpc: cannot encode a batch inside a batch")
		}
		if len(m) == 0 {
			return dst, fmt.Errorf("jsonrpc: cannot encode an empty batch; JSON-RPC does not allow one")
		}
		dst = append(dst, '[')
		for i, el := range m {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendMessage(dst, el, true); err != nil {
				return dst, fmt.Errorf("batch element %d: %w", i, err)
			}
		}
		return append(dst, ']'), nil
	}
	return dst, fmt.Errorf("jsonrpc: cannot encode %T as a message; use *Request, *Response or Batch", msg)
}

func appendRequest(dst []byte, r *Request) ([]byte, error) {
	dst = append(dst, `{"jsonrpc":"2.0"`...)
	if r.ID.IsValid() {
		if r.ID.IsNull() {
			return dst, fmt.Errorf("jsonrpc: cannot encode request %q: a request id must not be null (leave it absent for a notification)", r.Method)
		}
		dst = append(dst, `,"id":`...)
		dst = append(dst, r.ID.raw...)
	}
	dst = append(dst, `,"method":`...)
	dst, err := appendString(dst, r.Method)
	if err != nil {
		return dst, fmt.Errorf("jsonrpc: cannot encode request %q: method: %w", r.Method, err)
	}
	if len(r.Params) > 0 {
		dst = append(dst, `,"params":`...)
		start := len(dst)
		if dst, err = appendRaw(dst, r.Params); err != nil {
			return dst, fmt.Errorf("jsonrpc: cannot encode request %q: params: %w", r.Method, err)
		}
		if c := dst[start]; c != '{' && c != '[' {
			return dst, fmt.Errorf("jsonrpc: cannot encode request %q: params must be a JSON object or array", r.Method)
		}
	}
	return append(dst, '}'), nil
}

func appendResponse(dst []byte, r *Response) ([]byte, error) {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	if r.ID.IsValid() {
		dst = append(dst, r.ID.raw...)
	} else {
		dst = append(dst, "null"...)
	}
	var err error
	switch {
	case r.Error != nil && len(r.Result) > 0:
		return dst, fmt.Errorf("jsonrpc: cannot encode the response to %s: it has both a result and an error", r.ID)
	case r.Error != nil:
		dst = append(dst, `,"error":{"code":`...)
		dst = strconv.AppendInt(dst, r.Error.Code, 10)
		dst = append(dst, `,"message":`...)
		// An error message often quotes input: invalid UTF-8 in it is
		// replaced rather than refused, so the error still reaches the peer.
		dst, _ = appendString(dst, r.Error.Message)
		if len(r.Error.Data) > 0 {
			dst = append(dst, `,"data":`...)
			if dst, err = appendRaw(dst, r.Error.Data); err != nil {
				return dst, fmt.Errorf("jsonrpc: cannot encode the response to %s: error data: %w", r.ID, err)
			}
		}
		dst = append(dst, '}')
	case r.encodedResult():
		dst = append(dst, `,"result":`...)
		dst = append(dst, r.Result...)
	case len(r.Result) > 0:
		dst = append(dst, `,"result":`...)
		if dst, err = appendRaw(dst, r.Result); err != nil {
			return dst, fmt.Errorf("jsonrpc: cannot encode the response to %s: result: %w", r.ID, err)
		}
	default:
		return dst, fmt.Errorf("jsonrpc: cannot encode the response to %s: it has neither a result nor an error", r.ID)
	}
	return append(dst, '}'), nil
}

// appendRaw appends a raw JSON value after checking that it is one valid,
// strict JSON value, compacting it on the way.
func appendRaw(dst, raw []byte) ([]byte, error) {
	out, err := jsontext.AppendFormat(dst, raw)
	if err != nil {
		return dst, fmt.Errorf("not valid JSON: %w", err)
	}
	return out, nil
}

// appendString appends s as a JSON string. Plain ASCII is copied directly;
// anything else goes through jsontext, which replaces invalid UTF-8 with
// U+FFFD and then reports it.
func appendString(dst []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return jsontext.AppendQuote(dst, s)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"'), nil
}
