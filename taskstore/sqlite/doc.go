// Package sqlite is a durable tasks.Store on SQLite, through the pure-Go
// modernc.org/sqlite driver (no cgo): the embedded default of the weft CLI.
//
// One database file may be shared by several processes on one host: the
// file is in WAL mode, every commit is a BEGIN IMMEDIATE transaction (so a
// compare-and-swap or a quota check reads and writes under the one write
// lock), and a busy timeout makes writers of other processes wait their
// turn. Within a process, the writes of every Store and Bus on a file are
// committed by one writer goroutine in batches (group commit), each write
// in a savepoint of its own. Tasks, their input exchanges and their
// results survive restarts.
//
// Open creates or migrates the schema, recorded in a version table. OpenBus
// adds a Bus that polls the same file, so instances on one host can signal
// each other without another service.
package sqlite
