//go:build !unix

package testport

// handed holds the ports this process has handed out.
var handed = map[int]bool{}

// lockPort reserves a port within this process only, where there is no
// flock to reserve it across processes.
func lockPort(port int) (bool, error) {
	if handed[port] {
		return false, nil
	}
	handed[port] = true
	return true, nil
}
