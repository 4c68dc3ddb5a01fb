// Package cli is the weft command line: its commands (demo, serve, proxy and
// the client commands), their flags, help texts and exit codes.
//
// Arguments are parsed by github.com/spf13/cobra, the de facto standard for
// Go command lines with subcommands: it gives every command --help with
// examples, flag parsing in the POSIX style, and the "--" separator the
// stdio commands use to take a server command line.
package cli
