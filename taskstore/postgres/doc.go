// Package postgres is a durable, distributed tasks.Store on PostgreSQL,
// through the pgx driver, and a tasks.Bus on LISTEN/NOTIFY: any number of
// instances on one database share their tasks, and a cancel or an answer
// reaches the instance running the task within a notification's delay.
//
// Every write is one transaction: a compare-and-swap update reads the row
// FOR UPDATE, and a create under a quota counts unfinished tasks under a
// transaction-scoped advisory lock, so concurrent instances never exceed
// it. Open creates or migrates the schema (recorded in a version table, under
// an advisory lock, so instances starting together migrate it once), in the
// search_path's first schema or in the one WithSchema names.
package postgres
