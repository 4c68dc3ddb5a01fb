package console

// Update is news of a running call or task: a progress notification
// (Progress, Total, Message) or a task's status (Status, Message).
type Update struct {
	Progress float64
	Total    float64 // 0 when unknown
	Status   string  // a task status, such as "working"; empty for progress
	Message  string
}

// Reporter shows Updates as they come, then the end.
type Reporter interface {
	Report(u Update)
	// Finish ends the display with a last line.
	Finish(line string)
}

// Nop shows nothing: for output that must be JSON only.
type Nop struct{}

// Report does nothing.
func (Nop) Report(Update) {}

// Finish does nothing.
func (Nop) Finish(string) {}
