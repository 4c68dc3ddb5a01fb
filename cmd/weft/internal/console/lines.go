package console

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// Lines reports Updates as plain lines, for logs and pipes: one line per
// change, nothing for repeats.
type Lines struct {
	w     io.Writer
	title string

	mu   sync.Mutex
	last string
}

// NewLines returns a Lines that writes to w, each line starting with title.
func NewLines(w io.Writer, title string) *Lines {
	return &Lines{w: w, title: title}
}

// Report writes a line for u unless it says what the previous one said.
func (l *Lines) Report(u Update) {
	var line string
	switch {
	case u.Status != "" && u.Message != "":
		line = fmt.Sprintf("%s: %s: %s", l.title, u.Status, u.Message)
	case u.Status != "":
		line = fmt.Sprintf("%s: %s", l.title, u.Status)
	case u.Total > 0:
		line = fmt.Sprintf("%s: %g/%g %s", l.title, u.Progress, u.Total, u.Message)
	default:
		line = fmt.Sprintf("%s: %g %s", l.title, u.Progress, u.Message)
	}
	line = strings.TrimSpace(line)
	l.mu.Lock()
	defer l.mu.Unlock()
	if line == l.last {
		return
	}
	l.last = line
	fmt.Fprintln(l.w, line)
}

// Finish writes line, if any.
func (l *Lines) Finish(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if line != "" {
		fmt.Fprintln(l.w, line)
	}
}
