package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/trace/noop"

	weftotel "github.com/weftmcp/weft/otel"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
)

// metricsUsage is the help of --metrics.
const metricsUsage = "serve Prometheus metrics (text format) at http://HOST:PORT/metrics: request durations by method and tool, " +
	"session durations, and tasks by tool and final status with their run time and time spent input_required. " +
	"The endpoint has no authentication: keep it on a loopback address (127.0.0.1:9464) unless a firewall guards it"

// metricsEndpoint serves the server's request and task metrics at
// /metrics (--metrics), from OpenTelemetry instruments read by the
// OpenTelemetry Prometheus exporter. A nil *metricsEndpoint (no
// --metrics) instruments nothing.
type metricsEndpoint struct {
	inst     *weftotel.Instrumentation
	provider *sdkmetric.MeterProvider
	srv      *http.Server
	served   chan error
}

// startMetrics starts serving metrics on addr; nil when addr is "".
func startMetrics(addr string, stderr io.Writer, logger *slog.Logger) (*metricsEndpoint, error) {
	if addr == "" {
		return nil, nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, usageError("--metrics %q is not HOST:PORT (for example 127.0.0.1:9464): %v", addr, err)
	}
	registry := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(registry), otelprom.WithoutScopeInfo())
	if err != nil {
		return nil, fmt.Errorf("--metrics: starting the Prometheus exporter: %w", err)
	}
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	inst, err := weftotel.New(&weftotel.Options{MeterProvider: provider, TracerProvider: noop.NewTracerProvider()})
	if err != nil {
		provider.Shutdown(context.Background())
		return nil, fmt.Errorf("--metrics: making the instruments: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		provider.Shutdown(context.Background())
		return nil, fmt.Errorf("--metrics: listening on %s: %w; pick another address or port", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(registry, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelError)}))
	m := &metricsEndpoint{inst: inst, provider: provider, served: make(chan error, 1),
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	go func() { m.served <- m.srv.Serve(ln) }()
	fmt.Fprintf(stderr, "weft: serving metrics at http://%s/metrics\n", ln.Addr())
	return m, nil
}

// instrument adds the metrics' middleware and session hooks to opts.
func (m *metricsEndpoint) instrument(opts *server.Options) *server.Options {
	if m == nil {
		return opts
	}
	opts.Middleware = append(opts.Middleware, m.inst.ServerMiddleware())
	opts.AskMiddleware = append(opts.AskMiddleware, m.inst.ServerAskMiddleware())
	opts.Sessions = m.inst.SessionHooks()
	return opts
}

// observer is the task runtime's observer: nil without --metrics.
func (m *metricsEndpoint) observer() tasks.Observer {
	if m == nil {
		return nil
	}
	return m.inst.TaskObserver()
}

// Close stops serving metrics.
func (m *metricsEndpoint) Close() error {
	if m == nil {
		return nil
	}
	err := m.srv.Close()
	if serr := <-m.served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return errors.Join(err, m.provider.Shutdown(context.Background()))
}
