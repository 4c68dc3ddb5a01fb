package tasks

// Executor runs task handlers. The default starts a goroutine per run; an
// Executor can instead queue runs on a bounded pool. A run that waits in a
// queue holds its lease (the instance renews it) and reacts to cancellation
// as soon as it starts.
type Executor interface {
	// Go arranges for run to be called once, on some goroutine.
	Go(run func())
}

// goExecutor runs every handler on its own goroutine.
type goExecutor struct{}

func (goExecutor) Go(run func()) { go run() }
