package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/cmd/weft/internal/store"
	"github.com/weftmcp/weft/server"
)

// sessionSecretEnv names the environment variable --session-secret
// defaults to.
const sessionSecretEnv = "WEFT_SESSION_SECRET"

// minSecretLen is the shortest --session-secret key accepted.
const minSecretLen = 32

// addSessionFlags declares --session-secret.
func (f *listenFlags) addSessionFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.sessionSecret, "session-secret", "",
		"the key that signs the state of multi-round-trip requests and list cursors, the same for every server behind one endpoint; "+
			"several, comma-separated, rotate it: the first signs, all verify (default $"+sessionSecretEnv+", else a key kept in the store, "+
			"else with --store memory one per process); at least 32 characters each")
}

// shareSessions prepares the server to share what servers on st share:
// the HTTP endpoint keeps legacy sessions in st's session store and routes
// their messages through its message log and bus, and opts
// get the request-state keys from --session-secret, or else from the
// store.
func (f *listenFlags) shareSessions(ctx context.Context, st *store.Store, opts *server.Options) error {
	f.sessions = st.Sessions()
	if f.sessions != nil {
		f.messages, f.bus = st.Messages(), st.Bus
	}
	secret := f.sessionSecret
	if secret == "" {
		secret = os.Getenv(sessionSecretEnv)
	}
	if secret != "" {
		keys := strings.Split(secret, ",")
		for i, k := range keys {
			if len(k) < minSecretLen {
				return usageError("--session-secret (or $%s): key %d of %d has %d characters; give at least %d (for example from: openssl rand -hex 32)",
					sessionSecretEnv, i+1, len(keys), len(k), minSecretLen)
			}
		}
		opts.StateKey = []byte(keys[0])
		for _, k := range keys[1:] {
			opts.PreviousStateKeys = append(opts.PreviousStateKeys, []byte(k))
		}
		f.stateKey = opts.StateKey
		return nil
	}
	if f.sessions == nil {
		return nil
	}
	key, err := f.sessions.StateKey(ctx)
	if err != nil {
		return fmt.Errorf("reading the request-state key kept in %s: %w; or give --session-secret", st.Description, err)
	}
	opts.StateKey, f.stateKey = key, key
	return nil
}
