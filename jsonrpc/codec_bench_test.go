package jsonrpc_test

import (
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
)

var benchRequest = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world","count":3},"_meta":{"progressToken":"p-1"}}}`)

func BenchmarkDecodeRequest(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchRequest)))
	for b.Loop() {
		if _, err := jsonrpc.DecodeMessage(benchRequest); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecoderRequest(b *testing.B) {
	var d jsonrpc.Decoder
	b.ReportAllocs()
	b.SetBytes(int64(len(benchRequest)))
	for b.Loop() {
		if _, err := d.Decode(benchRequest); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeResponse(b *testing.B) {
	resp := &jsonrpc.Response{ID: jsonrpc.Int64ID(42), Result: []byte(`{"content":[{"type":"text","text":"hello, world"}],"isError":false}`)}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = jsonrpc.AppendMessage(buf[:0], resp); err != nil {
			b.Fatal(err)
		}
	}
}
