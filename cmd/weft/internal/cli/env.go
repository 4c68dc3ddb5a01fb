package cli

import (
	"io"
	"log/slog"
	"os"

	"golang.org/x/term"
)

// env is what every command writes to and reads from.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// terminal: stdout is a terminal, so output is for a person (text,
	// live progress bars) rather than for a program (JSON).
	terminal bool
	// interactive: stdin is a terminal too, so questions can be asked.
	interactive bool
	logLevel    slog.LevelVar
}

// newEnv returns the environment of the process: its standard streams, and
// whether they are terminals (golang.org/x/term, the Go project's own
// terminal package, tells). $WEFT_OUTPUT overrides the latter for stdout:
// "text" prints for people anyway (weft tools URL | less), "json" for
// programs.
func newEnv() *env {
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	e.terminal = term.IsTerminal(int(os.Stdout.Fd()))
	switch os.Getenv("WEFT_OUTPUT") {
	case "text":
		e.terminal = true
	case "json":
		e.terminal = false
	}
	e.interactive = e.terminal && term.IsTerminal(int(os.Stdin.Fd()))
	e.logLevel.Set(slog.LevelWarn)
	return e
}

// logger returns the logger for diagnostics: text on stderr at the level
// of --log-level.
func (e *env) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: &e.logLevel}))
}
