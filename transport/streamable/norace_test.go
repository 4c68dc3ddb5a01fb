//go:build !race

package streamable_test

// raceEnabled reports whether the race detector is on; it turns off the
// allocator's combining of tiny objects, so heap object counts differ.
const raceEnabled = false
