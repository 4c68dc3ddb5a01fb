module github.com/weftmcp/weft

go 1.25

require (
	github.com/coder/websocket v1.8.15
	github.com/go-jose/go-jose/v4 v4.1.8
	github.com/go-json-experiment/json v0.0.0-20250910080747-cc2cfa0554c3
	github.com/google/jsonschema-go v0.4.3
	github.com/yosida95/uritemplate/v3 v3.0.2
)

require go.yaml.in/yaml/v3 v3.0.6
