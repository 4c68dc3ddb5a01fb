// Package example is the example MCP server of the weft CLI, served by
// `weft serve` and driven by `weft demo`: tools that echo, sleep with
// progress, ask the user a question and fail, plus a resource and a prompt.
package example
