package cli

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/cmd/weft/internal/httpserve"
	"github.com/weftmcp/weft/transport/streamable"
)

// endpointOptions parses args as a server command's flags and returns the
// endpoint's settings.
func endpointOptions(t *testing.T, args ...string) (httpserve.Options, error) {
	t.Helper()
	var f listenFlags
	cmd := &cobra.Command{Use: "serve"}
	f.add(cmd, true)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatalf("parsing %q: %v", args, err)
	}
	return f.endpoint.options()
}

// Without flags the endpoint has the library's defaults, which the help
// states.
func TestEndpointDefaults(t *testing.T) {
	o, err := endpointOptions(t)
	if err != nil {
		t.Fatal(err)
	}
	want := httpserve.Options{
		Handler: streamable.HandlerOptions{MaxSessions: 10000, MaxSessionsPerClient: 100, SessionIdleTimeout: 30 * time.Minute},
		Server:  streamable.HTTPServerOptions{ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute},
	}
	if !reflect.DeepEqual(o, want) {
		t.Errorf("default options %+v, want %+v", o, want)
	}
	for _, s := range []string{"at most 100", "10000 legacy sessions", "idle for 30m0s", "within 30s", "idle for 2m0s", "gets 403"} {
		if !strings.Contains(strings.Join(strings.Fields(httpSafetyHelp), " "), s) {
			t.Errorf("the help does not say %q", s)
		}
	}
}

func TestEndpointFlags(t *testing.T) {
	o, err := endpointOptions(t, "--allow-origin", "https://app.example.com", "--allow-origin", "http://localhost:3000",
		"--max-sessions", "50", "--max-sessions-per-client", "-1", "--session-idle-timeout", "5m", "--read-timeout", "10s", "--idle-timeout", "75s")
	if err != nil {
		t.Fatal(err)
	}
	h, s := o.Handler, o.Server
	if !reflect.DeepEqual(h.Origins.AllowedOrigins, []string{"https://app.example.com", "http://localhost:3000"}) ||
		h.MaxSessions != 50 || h.MaxSessionsPerClient != -1 || h.SessionIdleTimeout != 5*time.Minute ||
		s.ReadTimeout != 10*time.Second || s.IdleTimeout != 75*time.Second {
		t.Errorf("options %+v", o)
	}
}

func TestEndpointFlagsAreChecked(t *testing.T) {
	for _, args := range [][]string{
		{"--allow-origin", "app.example.com"},
		{"--allow-origin", "https://app.example.com/"},
		{"--allow-origin", "https://app.example.com/page"},
		{"--max-sessions", "0"},
		{"--max-sessions-per-client", "-2"},
		{"--session-idle-timeout", "0s"},
		{"--read-timeout", "0s"},
		{"--idle-timeout", "-1s"},
	} {
		_, err := endpointOptions(t, args...)
		if exitCode(err) != ExitUsage || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%q: %v (exit %d), want a usage error naming the flag", args, err, exitCode(err))
		}
	}
}
