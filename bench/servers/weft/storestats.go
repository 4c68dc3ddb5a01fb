package main

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/weftmcp/weft/bench/internal/stores"
)

// reportRoundTrips appends the round trips the server has made to store so
// far to file, as a decimal line, each time the process gets SIGUSR1, so
// the harness can read them at both ends of its window as it reads the
// CPU time. It does nothing when file is empty or the store does not count
// them. The returned function stops it.
func reportRoundTrips(file string, store *stores.Opened) (stop func(), err error) {
	if _, ok := store.RoundTrips(); file == "" || !ok {
		return func() {}, nil
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open -store-stats: %w", err)
	}
	asked := make(chan os.Signal, 1)
	signal.Notify(asked, syscall.SIGUSR1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range asked {
			trips, _ := store.RoundTrips()
			// One write per line, so a reader never sees half of one.
			if _, err := f.Write(append(strconv.AppendInt(nil, trips, 10), '\n')); err != nil {
				return
			}
		}
	}()
	return func() {
		signal.Stop(asked)
		close(asked)
		<-done
		f.Close()
	}, nil
}
