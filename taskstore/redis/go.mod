module github.com/weftmcp/weft/taskstore/redis

go 1.25

require (
	github.com/redis/go-redis/v9 v9.22.0
	github.com/weftmcp/weft v0.0.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20250910080747-cc2cfa0554c3 // indirect
	go.uber.org/atomic v1.11.0 // indirect
	golang.org/x/sys v0.30.0 // indirect
)

replace github.com/weftmcp/weft => ../..
