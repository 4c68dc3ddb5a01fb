//go:build !unix

package streamable_test

import "time"

// processCPU returns 0: the process's CPU time is read on Unix only, and
// cpu-ns/op is then 0.
func processCPU() time.Duration { return 0 }
