// Package sessions keeps the state of legacy MCP sessions (2024-11-05 …
// 2025-11-25) where every server instance sharing a Store can serve them.
//
// A Store is a small driver interface, like tasks.Store: the memory driver
// is here, and SQLite, Redis and PostgreSQL drivers sit beside the task
// stores in taskstore/. Every driver passes the contract kit in
// sessions/sessiontest.
package sessions
