package jsonrpc

import "time"

// SetReadWatchTick sets how often c's watcher looks at the request its read
// loop serves; an hour keeps it from ever handing reading off in a test.
func SetReadWatchTick(c *Conn, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reading.tick = d
}

// ReadLoopServed returns how many requests c's read loop has served itself.
func ReadLoopServed(c *Conn) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reading.served
}
