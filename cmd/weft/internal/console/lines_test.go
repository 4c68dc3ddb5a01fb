package console

import (
	"strings"
	"testing"
)

func TestLinesWritesEachChangeOnce(t *testing.T) {
	var out strings.Builder
	l := NewLines(&out, "sleep")
	l.Report(Update{Status: "working"})
	l.Report(Update{Status: "working"})
	l.Report(Update{Status: "working", Message: "1 of 2"})
	l.Report(Update{Progress: 1, Total: 2, Message: "half"})
	l.Report(Update{Progress: 3})
	l.Finish("")
	l.Finish("done")
	want := "sleep: working\nsleep: working: 1 of 2\nsleep: 1/2 half\nsleep: 3\ndone\n"
	if out.String() != want {
		t.Errorf("Lines wrote\n%s\nwant\n%s", out.String(), want)
	}
}
