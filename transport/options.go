package transport

import (
	"io"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
)

// DefaultGracePeriod is how long CommandStream.Close waits for the process to
// exit after closing its stdin before killing it.
const DefaultGracePeriod = 5 * time.Second

// Option configures a stream transport. NewStdio reads WithMaxMessageSize;
// NewCommand reads all of them.
type Option func(*options)

type options struct {
	maxMessageSize int
	stderr         io.Writer
	gracePeriod    time.Duration
}

// WithMaxMessageSize sets the largest message, in bytes, a stream accepts;
// n <= 0 means jsonrpc.DefaultMaxMessageSize. A longer message is skipped and
// reported by Read as a *jsonrpc.DecodeError, so the connection answers it
// and carries on.
func WithMaxMessageSize(n int) Option {
	return func(o *options) { o.maxMessageSize = n }
}

// WithStderr sends a command's standard error to w instead of os.Stderr.
func WithStderr(w io.Writer) Option {
	return func(o *options) { o.stderr = w }
}

// WithGracePeriod sets how long CommandStream.Close waits for the process to
// exit after closing its stdin before killing it; d <= 0 means
// DefaultGracePeriod.
func WithGracePeriod(d time.Duration) Option {
	return func(o *options) { o.gracePeriod = d }
}

// buildOptions applies opts over the defaults.
func buildOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.maxMessageSize <= 0 {
		o.maxMessageSize = jsonrpc.DefaultMaxMessageSize
	}
	if o.gracePeriod <= 0 {
		o.gracePeriod = DefaultGracePeriod
	}
	return o
}

// oversize is the error Read reports for a message over the size limit.
func oversize(n, limit int) *jsonrpc.DecodeError {
	return &jsonrpc.DecodeError{
		ID:  jsonrpc.NullID,
		Err: jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "message of %d bytes exceeds the limit of %d bytes", n, limit),
	}
}
