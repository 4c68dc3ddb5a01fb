package redis

import (
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Option configures New and NewBus.
type Option func(*config)

// config is the settings after options.
type config struct {
	prefix string
	grace  time.Duration
	logger *slog.Logger
}

// The defaults the options override.
const (
	DefaultPrefix      = "weft"
	DefaultExpiryGrace = time.Hour
)

func defaultConfig() config {
	return config{prefix: DefaultPrefix, grace: DefaultExpiryGrace, logger: slog.Default()}
}

// check rejects settings the Store and Bus cannot work with.
func (c *config) check() error {
	switch {
	case c.prefix == "" || strings.ContainsAny(c.prefix, "{}"):
		return fmt.Errorf("redis: the key prefix %q must be non-empty and free of braces (it becomes the hash tag {%s})", c.prefix, c.prefix)
	case c.grace < time.Millisecond:
		return fmt.Errorf("redis: the expiry grace must be at least a millisecond, not %v", c.grace)
	case c.logger == nil:
		return fmt.Errorf("redis: the logger must not be nil")
	}
	return nil
}

// WithPrefix sets the prefix of every key and of the signal channel
// (default DefaultPrefix). Stores and Buses that share a prefix see each
// other's tasks and signals; give separate deployments separate prefixes.
func WithPrefix(p string) Option { return func(c *config) { c.prefix = p } }

// WithExpiryGrace sets how long after its ExpiresAt (or after its last
// write, if that is later) a task's key is left before Redis deletes it by
// itself (default DefaultExpiryGrace). The Runtime's expiry sweep normally
// deletes the task first, after cancelling its work; the key's own TTL is
// the backstop for when no instance sweeps.
func WithExpiryGrace(d time.Duration) Option { return func(c *config) { c.grace = d } }

// WithLogger sets where a Bus reports that it lost and regained its
// connection, and New that it could not load its scripts (default
// slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }
