// Package postgres is a durable, distributed tasks.Store on PostgreSQL,
// through the pgx driver, and a tasks.Bus on LISTEN/NOTIFY: any number of
// instances on one database share their tasks, and a cancel or an answer
// reaches the instance running the task within a notification's delay.
//
// A Store's task writes made at the same time commit together: a write
// made while another batch is in flight goes, with every write that waited
// meanwhile, in the next one, one transaction and one WAL flush for them
// all. An update is conditional on the version it was checked against; a
// create under a quota counts unfinished tasks under transaction-scoped
// advisory locks, so concurrent instances never exceed it. A Store and a
// Bus of one schema on one database are paired (tasks.SignallingStore):
// the Store's writes notify their own signals, in their own statements.
// Open creates or migrates the schema (recorded in a version table, under
// an advisory lock, so instances starting together migrate it once), in
// the search_path's first schema or in the one WithSchema names.
package postgres
