package console

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// barScale turns fractional progress into the bar's integer steps.
const barScale = 1000

// redraw is how often a Bar redraws itself between updates, so its
// spinner and elapsed time stay live.
const redraw = 200 * time.Millisecond

// Bar is a live progress bar on a terminal, with the latest status and
// message beside it. Its methods are safe for concurrent use.
type Bar struct {
	w     io.Writer
	title string

	mu       sync.Mutex
	bar      *progressbar.ProgressBar // nil until the first update
	status   string
	message  string
	finished bool
	stop     chan struct{} // closed by Finish: the redraw loop ends
}

// NewBar returns a Bar titled title that draws on w, a terminal.
func NewBar(w io.Writer, title string) *Bar {
	return &Bar{w: w, title: title, stop: make(chan struct{})}
}

// Report moves the bar and updates its description. A status update moves
// the bar when its message states a count ("3 of 10"); otherwise the bar
// stays where it is, or spins while no total is known. A completed status
// fills the bar.
func (b *Bar) Report(u Update) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	if u.Status != "" {
		b.status = u.Status
		if done, total, ok := countIn(u.Message); ok {
			u.Progress, u.Total = done, total
		}
	}
	b.message = u.Message
	if b.bar == nil {
		b.bar = progressbar.NewOptions64(-1, // a spinner until a total is known
			progressbar.OptionSetWriter(b.w),
			progressbar.OptionSetWidth(30),
			progressbar.OptionSetPredictTime(false),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionUseANSICodes(true),
			progressbar.OptionSpinnerType(14),
			// The Bar redraws itself, under its own lock (see Hold).
			progressbar.OptionSetSpinnerChangeInterval(0),
			progressbar.OptionThrottle(0),
		)
		go b.redrawLoop()
	}
	if total := int64(u.Total * barScale); total > 0 && total != b.bar.GetMax64() {
		b.bar.ChangeMax64(total)
	}
	b.bar.Describe(b.describe())
	switch {
	case u.Status == "completed" && b.bar.GetMax64() > 0:
		b.bar.Set64(b.bar.GetMax64())
	case u.Total > 0:
		b.bar.Set64(int64(u.Progress * barScale))
	default:
		b.bar.RenderBlank()
	}
}

// redrawLoop keeps the bar live until Finish.
func (b *Bar) redrawLoop() {
	t := time.NewTicker(redraw)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			b.mu.Lock()
			if !b.finished && !b.bar.IsFinished() {
				b.bar.RenderBlank()
			}
			b.mu.Unlock()
		}
	}
}

// describe is the text beside the bar: title, status and message.
func (b *Bar) describe() string {
	d := b.title
	if b.status != "" {
		d += " [" + b.status + "]"
	}
	if b.message != "" {
		d += " " + b.message
	}
	return d
}

// Finish clears the bar and writes line in its place; an empty line
// means the bar's last description, so the screen keeps how it ended.
func (b *Bar) Finish(line string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.finished = true
	close(b.stop)
	if b.bar == nil {
		if line != "" {
			fmt.Fprintln(b.w, line)
		}
		return
	}
	b.bar.Clear()
	if line == "" {
		line = b.describe()
	}
	fmt.Fprintf(b.w, "\r%s\n", line)
}

// Hold clears the bar from the screen and keeps it from drawing until the
// returned function is called: for asking the user something meanwhile.
func (b *Bar) Hold() (release func()) {
	b.mu.Lock()
	if b.bar != nil && !b.finished {
		b.bar.Clear()
		fmt.Fprint(b.w, "\r")
	}
	return func() {
		if b.bar != nil && !b.finished {
			b.bar.RenderBlank()
		}
		b.mu.Unlock()
	}
}
