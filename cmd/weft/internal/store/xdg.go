package store

import "runtime"

// usesXDG reports whether the system keeps user data under ~/.local/share
// by the XDG convention (Linux and the BSDs), rather than in its own place.
func usesXDG() bool {
	switch runtime.GOOS {
	case "darwin", "windows", "ios", "android", "plan9", "js", "wasip1":
		return false
	}
	return true
}
