package demo

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/weftmcp/weft/cmd/weft/internal/console"
)

// screen is where the demo tells its story: stdout, with live progress
// bars on a terminal and plain lines elsewhere.
type screen struct {
	w        io.Writer
	terminal bool

	mu  sync.Mutex
	rep console.Reporter // the live view of the task being followed
	bar *console.Bar     // the bar on screen, hidden while a question is shown
}

// step starts a new part of the story.
func (s *screen) step(format string, args ...any) {
	fmt.Fprintf(s.w, "\n▸ "+format+"\n", args...)
}

// line writes an indented line.
func (s *screen) line(format string, args ...any) {
	fmt.Fprintf(s.w, "  "+format+"\n", args...)
}

// reporter returns the live view of one task: a bar on a terminal, plain
// lines elsewhere.
func (s *screen) reporter(title string) console.Reporter {
	var rep console.Reporter
	var bar *console.Bar
	if s.terminal {
		bar = console.NewBar(s.w, "  "+title)
		rep = bar
	} else {
		rep = console.NewLines(indent{s.w}, title)
	}
	s.mu.Lock()
	s.rep, s.bar = rep, bar
	s.mu.Unlock()
	return rep
}

// status reports a status of the task being followed, as soon as the demo
// learns it (before the next poll would).
func (s *screen) status(status string) {
	s.mu.Lock()
	rep := s.rep
	s.mu.Unlock()
	if rep != nil {
		rep.Report(console.Update{Status: status})
	}
}

// table writes rows as indented, aligned columns.
func (s *screen) table(rows [][]string) {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	for _, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
		s.line("%s", strings.TrimRight(line, " "))
	}
}

// aside writes lines while a bar may be on screen, hiding it meanwhile.
func (s *screen) aside(format string, args ...any) {
	s.mu.Lock()
	bar := s.bar
	s.mu.Unlock()
	if bar != nil {
		defer bar.Hold()()
	}
	s.line(format, args...)
}

// indent indents every line written through it by two spaces.
type indent struct{ w io.Writer }

func (i indent) Write(p []byte) (int, error) {
	if _, err := i.w.Write(append([]byte("  "), p...)); err != nil {
		return 0, err
	}
	return len(p), nil
}
