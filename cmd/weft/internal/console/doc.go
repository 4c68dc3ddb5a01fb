// Package console shows a long call's progress and asks the user the
// server's questions: on a terminal, a live progress bar
// (github.com/schollz/progressbar/v3, a maintained and widely used bar that
// handles terminal widths, throttling and spinners) and interactive forms;
// elsewhere, plain lines.
package console
