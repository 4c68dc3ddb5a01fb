package main

import (
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"

	"github.com/weftmcp/weft/bench/internal/stores"
)

// reportRoundTrips appends the round trips the server has made to store so
// far to file, each time the process gets SIGUSR1, as a line of three
// decimals: all of them; those made in the background (outside any HTTP
// request, such as the session expiry sweep's); and the HTTP requests the
// server has begun serving (served.n), read at the same moment, so that
// the harness can divide the round trips of requests by the requests over
// exactly the interval they were counted in. So the harness reads them at
// both ends of its window as it reads the CPU time. It does nothing when
// file is empty or the store does not count them. The returned function
// stops it.
func reportRoundTrips(file string, store *stores.Opened, served *servedRequests) (stop func(), err error) {
	if _, _, ok := store.RoundTrips(); file == "" || !ok {
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
			// The requests first: a request begun after that read makes
			// its round trips after it too, so none is counted without
			// its request (one in flight may be counted without its
			// round trip, as many at each end of a window).
			requests := served.n.Load()
			all, background, _ := store.RoundTrips()
			line := strconv.AppendInt(nil, all, 10)
			line = strconv.AppendInt(append(line, ' '), background, 10)
			line = strconv.AppendInt(append(line, ' '), requests, 10)
			// One write per line, so a reader never sees half of one.
			if _, err := f.Write(append(line, '\n')); err != nil {
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

// servedRequests counts the HTTP requests the server has begun serving.
type servedRequests struct{ n atomic.Int64 }

// count returns h, counting each request as it begins.
func (c *servedRequests) count(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.n.Add(1)
		h.ServeHTTP(w, r)
	})
}
