package jsonrpc

import "time"

// SetReadWatchTick sets how long c's read loop serves one request before
// reading is handed off; an hour keeps that from happening in a test.
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
