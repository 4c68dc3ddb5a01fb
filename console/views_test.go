package console

import (
	"fmt"
	"log/slog"
	"testing"
)

func TestProgressIsReadFromTheStatusMessage(t *testing.T) {
	for msg, want := range map[string]string{
		"slept 3 of 10 seconds": "0.30",
		"3/4":                   "0.75",
		"2.5 / 10":              "0.25",
		"40% done":              "0.40",
		"12 of 10":              "1.00",
		"1/0":                   "none",
		"waiting for approval":  "none",
		"":                      "none",
	} {
		got := "none"
		if p := progressOf(msg); p != nil {
			got = fmt.Sprintf("%.2f", *p)
		}
		if got != want {
			t.Errorf("progressOf(%q) = %s, want %s", msg, got, want)
		}
	}
}

func TestAuditRecorderIsBounded(t *testing.T) {
	a := NewAuditRecorder(nil, 2, 3)
	log := slog.New(a).With("instance", "i1")
	for task := range 3 {
		for ev := range 5 {
			log.Info("task step", "task_id", fmt.Sprint("t", task), "n", ev)
		}
	}
	log.Info("something else", "task_id", "t2")
	if evs := a.Events("t0"); len(evs) != 0 {
		t.Errorf("the oldest task kept %d events, want it forgotten", len(evs))
	}
	evs := a.Events("t2")
	if len(evs) != 3 || evs[0].Attrs["n"] != "2" || evs[2].Attrs["n"] != "4" || evs[0].Instance != "i1" || evs[0].Event != "step" {
		t.Errorf("t2's events are %+v, want its last 3 steps from i1", evs)
	}
}
