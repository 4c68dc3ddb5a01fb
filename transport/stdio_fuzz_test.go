package transport_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// chunkReader returns at most n bytes per Read, so lines span reads.
type chunkReader struct {
	data []byte
	n    int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	if len(p) > r.n {
		p = p[:r.n]
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// FuzzStdioFraming checks the stdio stream's line framing against a plain
// reading of the input, whatever the bytes and however they arrive: every
// line (LF or CRLF, the last one with no newline too) longer than the
// limit is a -32600 *DecodeError, a blank line is skipped, and any other
// line reads as jsonrpc.DecodeMessage decodes it; then io.EOF.
func FuzzStdioFraming(f *testing.F) {
	for _, seed := range []string{
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
		"{\"jsonrpc\":\"2.0\",\"method\":\"m\"}\r\n\n  \n{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{}}",
		"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}]\n{\n}\n",
		"not json\r\nnull\n\r\n\r",
		"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"s\":\"" + string(bytes.Repeat([]byte("x"), 300)) + "\"}}\n{}",
		"\xff\xfe\n\x00\n",
	} {
		f.Add([]byte(seed), uint8(7), uint16(200))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8, limit uint16) {
		maxSize := 1 + int(limit)%1024
		s := transport.NewStdio(&chunkReader{data: data, n: 1 + int(chunk)}, io.Discard, transport.WithMaxMessageSize(maxSize))
		ctx := context.Background()
		for i, line := range framedLines(data) {
			if len(line) <= maxSize && len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			msg, err := s.Read(ctx)
			if len(line) > maxSize {
				var de *jsonrpc.DecodeError
				if !errors.As(err, &de) || de.Err.Code != jsonrpc.CodeInvalidRequest {
					t.Fatalf("line %d of %d bytes (limit %d): got %v, %v; want a -32600 DecodeError", i, len(line), maxSize, msg, err)
				}
				continue
			}
			want, wantErr := jsonrpc.DecodeMessage(line)
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("line %d %q: read %v, %v; DecodeMessage gives %v, %v", i, line, msg, err, want, wantErr)
			}
			if err != nil {
				var got, exp *jsonrpc.DecodeError
				if !errors.As(err, &got) || !errors.As(wantErr, &exp) || got.Err.Code != exp.Err.Code || got.ID != exp.ID {
					t.Fatalf("line %d %q: read error %v; DecodeMessage's is %v", i, line, err, wantErr)
				}
				continue
			}
			if a, b := framedMessage(msg), framedMessage(want); a != b {
				t.Fatalf("line %d %q: read %s; DecodeMessage gives %s", i, line, a, b)
			}
		}
		if msg, err := s.Read(ctx); !errors.Is(err, io.EOF) {
			t.Fatalf("after the last line: %v, %v; want io.EOF", msg, err)
		}
	})
}

// framedMessage returns the encoding of a message, a batch's invalid elements
// by their error code and id.
func framedMessage(m jsonrpc.Message) string {
	switch m := m.(type) {
	case jsonrpc.Batch:
		out := "["
		for _, e := range m {
			out += framedMessage(e) + ","
		}
		return out + "]"
	case *jsonrpc.DecodeError:
		return fmt.Sprintf("error %d for %s", m.Err.Code, m.ID)
	}
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return "unencodable: " + err.Error()
	}
	return string(b)
}

// framedLines splits data into lines the way the stdio transport defines
// them: ended by LF or CRLF (removed), the text after the last LF a line if
// not empty.
func framedLines(data []byte) [][]byte {
	var lines [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			lines = append(lines, data)
			break
		}
		line := data[:i]
		line = bytes.TrimSuffix(line, []byte("\r"))
		lines = append(lines, line)
		data = data[i+1:]
	}
	return lines
}
