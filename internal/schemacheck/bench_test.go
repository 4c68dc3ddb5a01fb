package schemacheck

import (
	"reflect"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/google/jsonschema-go/jsonschema"
)

// searchArgs are the arguments of a typical tool: strings, numbers,
// booleans, a nested object and arrays.
type searchArgs struct {
	Query   string   `json:"query" jsonschema:"what to look for"`
	Limit   int      `json:"limit,omitempty"`
	Offset  uint32   `json:"offset,omitempty"`
	Score   float64  `json:"minScore,omitempty"`
	Exact   bool     `json:"exact,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	Filters struct {
		Language string   `json:"language"`
		Stars    int      `json:"stars,omitempty"`
		Archived *bool    `json:"archived,omitempty"`
		Topics   []string `json:"topics,omitempty"`
	} `json:"filters"`
}

const searchInstance = `{"query":"model context protocol","limit":20,"offset":40,"minScore":0.75,"exact":false,` +
	`"tags":["go","mcp","json-rpc"],"filters":{"language":"Go","stars":100,"archived":false,"topics":["ai","tools"]}}`

// searchSchema returns the schema jsonschema-go infers for searchArgs.
func searchSchema(tb testing.TB) []byte {
	s, err := jsonschema.ForType(reflect.TypeFor[searchArgs](), nil)
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

func TestValidate_AllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	v, err := Compile(searchSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	in := []byte(searchInstance)
	if err := v.Validate(in); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = v.Validate(in) }); n != 0 {
		t.Errorf("Validate allocates %v times per call on a valid instance, want 0", n)
	}
}

func BenchmarkValidate(b *testing.B) {
	schema, in := searchSchema(b), []byte(searchInstance)
	b.Run("schemacheck", func(b *testing.B) {
		v, err := Compile(schema)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.SetBytes(int64(len(in)))
		for b.Loop() {
			if err := v.Validate(in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jsonschema-go", func(b *testing.B) {
		rs, err := resolve(schema)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.SetBytes(int64(len(in)))
		for b.Loop() {
			if err := referenceValidate(rs, in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
