// Package demo is weft demo: it starts the example server on loopback over
// Streamable HTTP, with tasks in an SQLite file in a temporary folder,
// connects a client, and shows the whole story of durable tasks: tools, a
// slow task with live progress, a task that asks a question, a cancelled
// task and a failing tool, then a summary.
package demo
