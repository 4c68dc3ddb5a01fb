package server

import (
	"context"
	"testing"
)

// BenchmarkToolsCallMiddleware is BenchmarkToolsCall with one middleware
// that passes every request on, reading what an observer reads: the cost
// of having middleware at all (without any, BenchmarkToolsCall).
func BenchmarkToolsCallMiddleware(b *testing.B) {
	var tools int
	observe := func(next MethodHandler) MethodHandler {
		return func(ctx context.Context, r *Request) (Result, error) {
			if r.ToolName() != "" && r.SessionID() != "-" && r.ProtocolVersion() != "" {
				tools++
			}
			return next(ctx, r)
		}
	}
	benchToolsCall(b, &Options{Middleware: []Middleware{observe}})
	if tools == 0 {
		b.Fatal("the middleware saw no tools/call")
	}
}
