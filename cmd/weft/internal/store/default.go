package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// EndpointFile names the default task store of one endpoint, so that
// unrelated servers do not share their tasks: the command (serve, proxy),
// then how it is reached (HOST-PORT of its --http address, or stdio), then,
// for a proxy, the wrapped server's program and a digest of its whole
// command line. For example serve-127.0.0.1-8080.db, serve-stdio.db,
// proxy-stdio-npx-1f0c2a9b.db.
func EndpointFile(command, httpAddr string, wrapped []string) string {
	parts := []string{command}
	if httpAddr == "" {
		parts = append(parts, "stdio")
	} else if host, port, err := net.SplitHostPort(httpAddr); err == nil {
		parts = append(parts, host, port)
	} else {
		parts = append(parts, httpAddr)
	}
	if len(wrapped) > 0 {
		sum := sha256.Sum256([]byte(strings.Join(wrapped, "\x00")))
		parts = append(parts, filepath.Base(wrapped[0]), hex.EncodeToString(sum[:4]))
	}
	for i, p := range parts {
		parts[i] = strings.Map(fileRune, p)
	}
	return strings.Join(parts, "-") + ".db"
}

// fileRune keeps the runes that are safe in a file name on every system and
// replaces the others with _.
func fileRune(r rune) rune {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
		return r
	}
	return '_'
}

// DataDir is the folder of the default task stores: $XDG_DATA_HOME/weft,
// else ~/.local/share/weft on Unix systems, else weft in the user's
// configuration folder (the Application Support folder on macOS, %AppData%
// on Windows).
func DataDir() (string, error) {
	if dir := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "weft"), nil
	}
	if home, err := os.UserHomeDir(); err == nil && usesXDG() {
		return filepath.Join(home, ".local", "share", "weft"), nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding a folder for the default task store: %w; give --store sqlite:PATH or --store memory", err)
	}
	return filepath.Join(dir, "weft"), nil
}

// DefaultPath is the SQLite file used when --store is not given: the file
// endpoint (see EndpointFile) in DataDir.
func DefaultPath(endpoint string) (string, error) {
	dir, err := DataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, endpoint), nil
}

// DefaultUsage says, for the --store help of command, where its tasks are
// kept by default.
func DefaultUsage(command string) string {
	dir, err := DataDir()
	if err != nil {
		dir = "the user's data folder"
	}
	example := EndpointFile(command, "127.0.0.1:8080", nil)
	if command == "proxy" {
		example = EndpointFile(command, "", []string{"my-server"})
	}
	return fmt.Sprintf("; default: an SQLite file of this endpoint's own in %s, named after the command and address (such as %s)", dir, example)
}
