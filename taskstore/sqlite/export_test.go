package sqlite

import "path/filepath"

// WriterCounts returns how many transactions the writer of the file at
// path has committed in this process, and how many writes they held, for
// benchmarks to report per task.
func WriterCounts(path string) (commits, writes int64) {
	key, err := filepath.Abs(path)
	if err != nil {
		return 0, 0
	}
	writers.mu.Lock()
	defer writers.mu.Unlock()
	if sw, ok := writers.open[key]; ok {
		return sw.commits.Load(), sw.writes.Load()
	}
	return 0, 0
}
