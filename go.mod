module github.com/weftmcp/weft

go 1.25

require github.com/go-json-experiment/json v0.0.0-20250910080747-cc2cfa0554c3
