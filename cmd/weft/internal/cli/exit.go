package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/weftmcp/weft/cmd/weft/internal/store"
	"github.com/weftmcp/weft/jsonrpc"
)

// Exit codes of every weft command.
const (
	// ExitOK: the command did what it was asked.
	ExitOK = 0
	// ExitToolError: the tool reported an error (a result with isError),
	// or a task ended failed or cancelled.
	ExitToolError = 1
	// ExitProtocol: the server could not be reached or started, answered
	// with a JSON-RPC error, or the command failed for another reason.
	ExitProtocol = 2
	// ExitUsage: the command line is wrong (EX_USAGE of sysexits.h).
	ExitUsage = 64
	// ExitInterrupted: stopped by SIGINT or SIGTERM before it finished
	// (128 + SIGINT, as shells report it).
	ExitInterrupted = 130
)

// exitCodesHelp documents the exit codes in the root command's help.
const exitCodesHelp = `Exit codes:
  0    success
  1    the tool reported an error, or the task failed or was cancelled
  2    protocol or other failure: the server could not be reached or started,
       or it answered with a JSON-RPC error
  64   usage error: unknown command or flag, wrong arguments
  130  interrupted (SIGINT or SIGTERM) before the command finished`

// exitError carries the exit code an error should end the command with.
type exitError struct {
	code int
	err  error
}

// Error implements error.
func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError reports a wrong command line.
func usageError(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// toolFailed reports that the tool or task failed; what it said has
// already been shown, so the message is only a summary.
func toolFailed(format string, args ...any) error {
	return &exitError{code: ExitToolError, err: fmt.Errorf(format, args...)}
}

// exitCode returns the exit code for an error out of the command tree.
// Every command classifies its own errors (see classify), so an error
// without a code comes from cobra's parsing of the command line.
func exitCode(err error) int {
	var ee *exitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.code
	}
	return ExitUsage
}

// classify gives an error returned by a command its exit code: its own if
// it has one, ExitInterrupted if a signal stopped the command, else
// ExitProtocol.
func classify(ctx context.Context, err error) error {
	var ee *exitError
	switch {
	case err == nil || errors.As(err, &ee):
		return err
	case errors.Is(err, store.ErrBadSpec), errors.Is(err, store.ErrBadSettings):
		return &exitError{code: ExitUsage, err: err}
	case ctx.Err() != nil:
		return &exitError{code: ExitInterrupted, err: fmt.Errorf("interrupted: %w", err)}
	}
	return &exitError{code: ExitProtocol, err: err}
}

// protocolError describes a JSON-RPC error from the server in words.
func protocolError(what string, err error) error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		if hint := missingCapabilityHint(je); hint != "" {
			return fmt.Errorf("%s: the server answered with error %d: %s: %s", what, je.Code, je.Message, hint)
		}
		return fmt.Errorf("%s: the server answered with error %d: %s", what, je.Code, je.Message)
	}
	return fmt.Errorf("%s: %w", what, err)
}
