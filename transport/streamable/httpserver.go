package streamable

import (
	"net/http"
	"time"
)

// Defaults of HTTPServerOptions.
const (
	DefaultReadTimeout = 30 * time.Second
	DefaultIdleTimeout = 2 * time.Minute
)

// HTTPServerOptions configures NewHTTPServer. The zero value gives safe
// defaults.
type HTTPServerOptions struct {
	// ReadTimeout bounds how long a client may take to send a request,
	// headers and body; a connection that stalls longer is closed. It
	// stops counting once the body has been read, so a response streamed
	// with SSE may last as long as it needs. 0 means DefaultReadTimeout;
	// negative means no bound.
	ReadTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that has waited this
	// long for its next request. 0 or negative means DefaultIdleTimeout,
	// longer than the 60 seconds load balancers commonly keep an idle
	// connection, so that they close it first.
	IdleTimeout time.Duration
}

// NewHTTPServer returns an http.Server that serves handler (a Handler, or
// a mux or middleware around one) with timeouts that let no client hold a
// connection by sending slowly or not at all, while SSE streams go on: a
// request must arrive, headers and body, within ReadTimeout, and a
// keep-alive connection is closed after IdleTimeout without a request.
// Set Addr, TLSConfig or ErrorLog on the result as needed, then call
// ListenAndServe or Serve; call the Handler's Shutdown before the
// server's.
//
// To serve a Handler with an http.Server of your own, set ReadTimeout
// (net/http lifts it once the handler has read the body) and IdleTimeout,
// and leave WriteTimeout zero: it would cut every SSE stream at that age.
// The Handler bounds each write to a stream itself
// (HandlerOptions.WriteTimeout).
func NewHTTPServer(handler http.Handler, opts *HTTPServerOptions) *http.Server {
	var o HTTPServerOptions
	if opts != nil {
		o = *opts
	}
	switch {
	case o.ReadTimeout == 0:
		o.ReadTimeout = DefaultReadTimeout
	case o.ReadTimeout < 0:
		o.ReadTimeout = 0 // no bound, to http.Server
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	return &http.Server{Handler: handler, ReadTimeout: o.ReadTimeout, IdleTimeout: o.IdleTimeout}
}
